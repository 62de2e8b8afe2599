"""The `simt` command (also `python -m simt`): info, show, and the tools of later stages."""

from __future__ import annotations

import argparse
import importlib.util
import platform
import sys
from pathlib import Path
from typing import Any

import numpy as np

from . import __version__
from . import types as T
from .errors import CompileError, SimtError, file_error

_SHORT = {
    "f32": "float32",
    "f64": "float64",
    "i32": "int32",
    "i64": "int64",
    "u32": "uint32",
    "b": "bool",
}


def _info(args: argparse.Namespace) -> int:
    from .runtime import registry

    print(
        f"simt {__version__} on Python {platform.python_version()} ({platform.machine()}), "
        f"NumPy {np.__version__}"
    )
    default = registry.default_name()
    for name in registry.RUNTIMES:
        ok, why = registry.probe(name)
        mark = "yes" if ok else "no "
        star = "  (default)" if name == default else ""
        print(f"  {name:7s} {mark}  {why}{star}")
        if ok:
            lines = _profile_lines(name)
            if not args.verbose:  # the headline numbers only; -v for the model's details
                lines = lines[:1] if "nominal" in "".join(lines[:1]) else lines[:2]
            for line in lines:
                print(f"            {line}")
        if ok and args.verbose:
            try:
                for k, v in registry.get(name).info().items():
                    print(f"            {k}: {v}")
            except SimtError as e:
                print(f"            ({e})")
    print("Choose with simt.use(NAME) or SIMT_BACKEND=NAME.")
    return 0


def _profile_lines(backend: str) -> list[str]:
    """The measured device profile (`simt calibrate`), when there is one."""
    try:
        from .benchtool.profile import profile_lines
    except ImportError:
        return []
    return [ln for ln in profile_lines(backend) if "unavailable" not in ln]


def parse_type(text: str) -> Any:
    """A parameter type from text: `f32[:]`, `float32[:,:]`, `i32`, or a Python literal
    (a known value, e.g. `16`)."""
    text = text.strip()
    base, _, dims = text.partition("[")
    name = _SHORT.get(base, base)
    if name in T.SCALARS:
        t = T.SCALARS[name]
        if dims:
            return np.zeros((1,) * (dims.count(",") + 1), t.np)
        return t.np.type(1)
    import ast

    return ast.literal_eval(text)


class UsageError(Exception):
    """A command line that cannot be carried out as written: exit status 2."""


def _show(args: argparse.Namespace) -> int:
    path, _, name = args.target.rpartition(":")
    if not path or not name:
        raise UsageError(f"give FILE.py:KERNEL, got {args.target!r}")
    if not Path(path).is_file():
        raise UsageError(f"no such file: {path}")
    values = None
    if args.args:
        values = [_parse_arg(a) for a in _split(args.args)]
    spec = importlib.util.spec_from_file_location("_simt_show", path)
    if spec is None or spec.loader is None:
        raise UsageError(f"cannot load {path}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except SimtError:
        raise
    except Exception as e:  # noqa: BLE001 - the user's file failed: said in one line
        raise CommandFailed(file_error(path, e)) from None
    k = getattr(module, name, None)
    if k is None:
        raise CommandFailed(f"{path} has no {name}")
    from .compiled import compile as simt_compile
    from .imagefn import ImageFunction
    from .kernel import Kernel

    if not isinstance(k, (Kernel, ImageFunction)):
        k = simt_compile(k)  # a plain function: a kernel, or an image function
    if isinstance(k, ImageFunction):  # shown for an 8 x 8 grey image unless --args says
        images = values or []
        try:
            text = k.ir(*images) if args.backend == "ir" else k.source(args.backend, *images)
        except SimtError as e:
            raise CommandFailed(
                f"{error_line(e)} (an image function whose parameters must be known is shown "
                f"from Python: simt.compile({name}, param=value).source({args.backend!r}))"
            ) from None
    else:
        if values is None:  # every parameter a float32 vector, the commonest case
            values = [np.zeros(1, np.float32) for _ in k.signature.parameters]
        text = k.ir(*values) if args.backend == "ir" else k.source(args.backend, *values)
    print(text, end="" if text.endswith("\n") else "\n")
    return 0


def _parse_arg(text: str) -> Any:
    try:
        return parse_type(text)
    except (ValueError, SyntaxError, TypeError):
        raise UsageError(
            f"--args: cannot read {text.strip()!r} as a parameter type; write f32[:], "
            "i32[:,:], f64, i32 or a Python literal (a known value, e.g. 16)"
        ) from None


class CommandFailed(Exception):
    """A command that could not do its work: exit status 1."""


def error_line(e: BaseException) -> str:
    """A simt error in one line: where, what, and what to do (no source line or caret)."""
    if isinstance(e, CompileError):
        where = f"{e.filename}:{e.line}: " if e.filename and e.line else ""
        return where + e.message + (f" ({e.hint})" if e.hint else "")
    return " ".join(str(e).split("\n")[0].split())


def _split(text: str) -> list[str]:
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
            continue
        depth += ch in "[(" and 1 or 0
        depth -= ch in "])" and 1 or 0
        cur += ch
    if cur.strip():
        out.append(cur)
    return out


def _delegate(module: str, argv: list[str]) -> int:
    try:
        mod = importlib.import_module(module)
    except ImportError as e:
        raise CommandFailed(f"this command is not available: {e}") from None
    return int(mod.main(argv) or 0)


# name -> (module whose main() runs it, one line for `simt --help`); info and show are here
DELEGATED = {
    "repl": ("simt.repl", "the mega-REPL: each line you type runs on a million threads"),
    "bench": ("simt.benchtool", "time the W1-W6 suite and your benchmark files"),
    "calibrate": ("simt.benchtool", "measure this device for the cost model; store its profile"),
    "fuzz": ("simt.testing.campaign", "random kernels on every backend against sim"),
}


def _parser() -> argparse.ArgumentParser:
    from .runtime import registry

    p = argparse.ArgumentParser(
        prog="simt",
        description="Python kernels on every GPU thread.",
        epilog="Run `simt COMMAND --help` for a command's options.",
    )
    p.add_argument("--version", action="version", version=f"simt {__version__}")
    sub = p.add_subparsers(dest="cmd", metavar="COMMAND", title="commands")
    pi = sub.add_parser("info", help="which backends are present, and why the others are not")
    pi.add_argument("-v", "--verbose", action="store_true", help="details of each backend")
    ps = sub.add_parser(
        "show",
        help="print a kernel's IR or generated source",
        description="Print the IR or the source a backend compiles for a kernel or an image "
        "function of FILE.py (an image function is shown for an 8 x 8 grey image).",
    )
    ps.add_argument("target", metavar="FILE.py:KERNEL", help="the file and the kernel's name")
    ps.add_argument(
        "--args",
        default="",
        metavar="TYPES",
        help="parameter types, e.g. 'f32[:],f32[:],i32' (default: float32 vectors)",
    )
    ps.add_argument(
        "--backend",
        default="ir",
        choices=["ir", *registry.RUNTIMES],
        help=f"ir (the default) or a backend: {', '.join(registry.RUNTIMES)}",
    )
    for name, (_, text) in DELEGATED.items():
        sub.add_parser(name, help=text, add_help=False)
    return p


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `simt` command: 0 on success, 1 when a command fails, 2 for a
    command line that cannot be carried out (as pip, pytest and ruff)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    cmd = argv[0] if argv else None
    try:
        if cmd in DELEGATED:
            module = DELEGATED[cmd][0]
            return _delegate(module, argv if cmd == "calibrate" else argv[1:])
        p = _parser()
        if not argv:
            p.print_usage(sys.stderr)
            print("simt: error: give a command (simt --help lists them)", file=sys.stderr)
            return 2
        args = p.parse_args(argv)
        if args.cmd == "info":
            return _info(args)
        return _show(args)
    except UsageError as e:
        print(f"simt {cmd}: error: {e}", file=sys.stderr)
        return 2
    except (CommandFailed, SimtError) as e:
        print(f"simt {cmd}: error: {error_line(e)}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"simt {cmd}: interrupted", file=sys.stderr)
        return 130
