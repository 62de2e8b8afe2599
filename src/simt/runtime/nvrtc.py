"""CUDA C++ to CUBIN through NVRTC (`cuda.bindings.nvrtc`), with no GPU and no driver needed.

Always CUBIN for one `sm_XY`, never PTX: a driver older than the NVRTC wheel cannot JIT the
newer PTX it emits. `-Xptxas=-v` makes ptxas report registers, spills and shared memory,
parsed into a dict by `parse_resources`.
"""

from __future__ import annotations

import re
import uuid
from typing import Any

from ..errors import BackendUnavailable, CompileError

BASE_OPTIONS = ("-Xptxas=-v", "-std=c++17", "-default-device")


class NvrtcError(CompileError):
    """NVRTC rejected generated source: a bug in simt's CUDA renderer. Carries the source and
    NVRTC's log, both in the message; its traceback keeps simt's frames (an internal error)."""

    internal = True

    def __init__(self, message: str, source: str, log: str) -> None:
        self.source = source
        self.log = log
        numbered = "\n".join(f"{i + 1:4d}  {line}" for i, line in enumerate(source.splitlines()))
        super().__init__(f"{message}\n--- NVRTC log ---\n{log}\n--- CUDA source ---\n{numbered}")


def _nvrtc() -> Any:
    try:
        from cuda.bindings import nvrtc
    except ImportError as e:
        raise BackendUnavailable(
            "NVRTC is not installed: pip install 'cuda-bindings>=13,<14' "
            f"'nvidia-cuda-nvrtc>=13,<14' ({e})"
        ) from None
    return nvrtc


def version() -> tuple[int, int] | None:
    """NVRTC's (major, minor), or None when it cannot be loaded. Never raises."""
    try:
        nvrtc = _nvrtc()
        err, major, minor = nvrtc.nvrtcVersion()
        if int(err) != 0:
            return None
        return int(major), int(minor)
    except Exception:  # noqa: BLE001 - a missing library shows up as many exception types
        return None


def supported_archs() -> list[str]:
    """The `sm_XY` targets this NVRTC can compile for (empty when NVRTC is missing)."""
    try:
        nvrtc = _nvrtc()
        err, n = nvrtc.nvrtcGetNumSupportedArchs()
        if int(err) != 0:
            return []
        err, archs = nvrtc.nvrtcGetSupportedArchs()
        return [f"sm_{int(a)}" for a in archs]
    except Exception:  # noqa: BLE001
        return []


def _check(nvrtc: Any, result: Any, what: str) -> None:
    if int(result) != 0:
        err, text = nvrtc.nvrtcGetErrorString(result)
        raise CompileError(f"NVRTC {what} failed: {text.decode(errors='replace')}")


def _log(nvrtc: Any, prog: Any) -> str:
    err, size = nvrtc.nvrtcGetProgramLogSize(prog)
    if int(err) != 0 or size <= 1:
        return ""
    buf = b" " * size
    nvrtc.nvrtcGetProgramLog(prog, buf)
    return buf.rstrip(b"\0 ").decode(errors="replace")


def compile_cubin(
    source: str,
    arch: str = "sm_90",
    options: tuple[str, ...] = (),
    name: str = "simt_kernel.cu",
) -> tuple[bytes, str, dict[str, dict[str, int]]]:
    """Compile CUDA C++ `source` to a CUBIN for `arch` (`"sm_90"`, or `"90"`).

    Returns (cubin, NVRTC's log, resources per kernel as `parse_resources` gives them).
    Raises `NvrtcError` (a `CompileError`) with the source and log when NVRTC rejects it, and
    `BackendUnavailable` when NVRTC is not installed.
    """
    arch = arch if arch.startswith(("sm_", "compute_")) else f"sm_{arch}"
    arch = arch.replace("compute_", "sm_")
    cubin, log = _compile(source, arch, options, name)
    if "__global__" in source and not _ENTRY.search(log):
        # NVRTC 13.0 was seen answering PTX it had assembled before (in this process or an
        # earlier one) from a cache of its own, with an empty log and so no resource report.
        # Compile again with a uniquely named empty kernel beside ours: new PTX, so ptxas runs
        # and reports; our kernel's code is unchanged.
        nonce = uuid.uuid4().hex
        source = f'{source}\nextern "C" __global__ void simt_fresh_{nonce}() {{}}\n'
        cubin, log = _compile(source, arch, options, name)
    return cubin, log, parse_resources(log)


def _compile(source: str, arch: str, options: tuple[str, ...], name: str) -> tuple[bytes, str]:
    nvrtc = _nvrtc()
    opts = [f"-arch={arch}", *BASE_OPTIONS, *options]
    err, prog = nvrtc.nvrtcCreateProgram(source.encode(), name.encode(), 0, [], [])
    _check(nvrtc, err, "program creation")
    try:
        (result,) = nvrtc.nvrtcCompileProgram(prog, len(opts), [o.encode() for o in opts])
        log = _log(nvrtc, prog)
        if int(result) != 0:
            _, text = nvrtc.nvrtcGetErrorString(result)
            raise NvrtcError(
                f"NVRTC rejected the generated CUDA C++ for {arch} "
                f"({text.decode(errors='replace')}); this is a bug in simt",
                source,
                log,
            )
        err, size = nvrtc.nvrtcGetCUBINSize(prog)
        _check(nvrtc, err, "CUBIN size query")
        cubin = b" " * size
        (err,) = nvrtc.nvrtcGetCUBIN(prog, cubin)
        _check(nvrtc, err, "CUBIN read")
    finally:
        nvrtc.nvrtcDestroyProgram(prog)
    return cubin, log


_ENTRY = re.compile(r"Compiling entry function '([^']+)' for '([^']+)'")
_PROPS = re.compile(r"Function properties for (\S+)")
_FRAME = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
_USED = re.compile(r"Used (\d+) registers")
_SMEM = re.compile(r"(\d+) bytes smem")
_CMEM = re.compile(r"(\d+) bytes cmem\[0\]")
_BARRIERS = re.compile(r"used (\d+) barriers")


def parse_resources(log: str) -> dict[str, dict[str, int]]:
    """Per entry function: registers, spill_stores, spill_loads, stack_frame, shared (static
    shared memory per block, bytes), constant (bytes of cmem[0], the parameters) and barriers,
    read from ptxas's `-v` report in an NVRTC log."""
    out: dict[str, dict[str, int]] = {}
    current: str | None = None
    for line in log.splitlines():
        m = _ENTRY.search(line)
        if m:
            current = m.group(1)
            out.setdefault(current, _empty())
            continue
        m = _PROPS.search(line)
        if m:
            current = m.group(1) if m.group(1) in out else None
            continue
        if current is None:
            continue
        r = out[current]
        m = _FRAME.search(line)
        if m:
            r["stack_frame"], r["spill_stores"], r["spill_loads"] = (int(g) for g in m.groups())
        m = _USED.search(line)
        if m:
            r["registers"] = int(m.group(1))
            for rx, key in ((_SMEM, "shared"), (_CMEM, "constant"), (_BARRIERS, "barriers")):
                mm = rx.search(line)
                if mm:
                    r[key] = int(mm.group(1))
    return out


def _empty() -> dict[str, int]:
    return {
        "registers": 0,
        "spill_stores": 0,
        "spill_loads": 0,
        "stack_frame": 0,
        "shared": 0,
        "constant": 0,
        "barriers": 0,
    }
