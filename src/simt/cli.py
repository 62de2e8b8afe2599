"""The `simt` command (also `python -m simt`): info, show, and the tools of later stages."""

from __future__ import annotations

import argparse
import importlib.util
import platform
import sys
from typing import Any

import numpy as np

from . import __version__
from . import types as T
from .errors import SimtError

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


def _show(args: argparse.Namespace) -> int:
    path, _, name = args.target.rpartition(":")
    if not path or not name:
        print("simt show: give FILE.py:KERNEL", file=sys.stderr)
        return 2
    spec = importlib.util.spec_from_file_location("_simt_show", path)
    if spec is None or spec.loader is None:
        print(f"simt show: cannot load {path}", file=sys.stderr)
        return 2
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    k = getattr(module, name, None)
    if k is None:
        print(f"simt show: {path} has no {name}", file=sys.stderr)
        return 2
    from .kernel import Kernel

    if not isinstance(k, Kernel):
        k = Kernel(k)
    if args.args:
        values = [parse_type(a) for a in _split(args.args)]
    else:  # every parameter a float32 vector, the commonest case
        values = [np.zeros(1, np.float32) for _ in k.signature.parameters]
    try:
        text = k.ir(*values) if args.backend == "ir" else k.source(args.backend, *values)
    except SimtError as e:
        print(e, file=sys.stderr)
        return 1
    print(text, end="" if text.endswith("\n") else "\n")
    return 0


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
        print(f"simt: this command is not available: {e}", file=sys.stderr)
        return 2
    return int(mod.main(argv) or 0)


import importlib  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `simt` command."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in ("repl", "bench", "calibrate", "fuzz"):
        target = {
            "repl": "simt.repl",
            "bench": "simt.benchtool",
            "calibrate": "simt.benchtool",
            "fuzz": "simt.testing.campaign",
        }
        return _delegate(target[argv[0]], argv if argv[0] == "calibrate" else argv[1:])
    p = argparse.ArgumentParser(prog="simt", description="Python kernels on every GPU thread.")
    sub = p.add_subparsers(dest="cmd")
    pi = sub.add_parser("info", help="which backends are present, and why the others are not")
    pi.add_argument("-v", "--verbose", action="store_true", help="details of each backend")
    ps = sub.add_parser("show", help="print a kernel's IR or generated source")
    ps.add_argument("target", help="FILE.py:KERNEL")
    ps.add_argument(
        "--args",
        default="",
        help="parameter types, e.g. 'f32[:],f32[:],i32' (default: float32 vectors)",
    )
    ps.add_argument("--backend", default="ir", help="ir (default), sim, cpu, cuda or webgpu")
    sub.add_parser("repl", help="the mega-REPL: each line on a million threads")
    sub.add_parser("bench", help="the W1-W6 benchmark suite")
    sub.add_parser("fuzz", help="random kernels on every backend against sim (simt's own tests)")
    args = p.parse_args(argv)
    if args.cmd == "info":
        return _info(args)
    if args.cmd == "show":
        return _show(args)
    p.print_help()
    return 0
