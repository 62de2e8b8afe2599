"""The `cpu` runtime: SPMD-lowered kernels compiled in process by LLVM (llvmlite).

`compile` renders the kernel (`backends.llvm`), optimises it at O3 for the host CPU, and keeps
the object code in the disk cache, so a second process only loads it. A launch packs the
arguments into an array of 8-byte slots (NumPy buffers are passed by address: no copies) and
calls the entry on ranges of blocks from a persistent pool of threads; ctypes releases the GIL
for the call. `SIMT_NUM_THREADS` sets the pool size (default: every core); small launches run
on the calling thread.
"""

from __future__ import annotations

import copy
import ctypes
import ctypes.util
import os
import threading
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .. import cache
from ..array import DeviceArray
from ..backends.common import describe_failure
from ..backends.llvm import ENTRY, SITE_BITS, Meta, lower, render_lowered
from ..errors import KernelError
from ..ir import Function
from ..passes.spmd import can_coarsen, coarsen
from ..passes.spmd import lower as spmd_lower
from ..types import ArrayType
from .base import Compiled, Dim3, PrintRecord, Runtime, unflatten
from .printing import emit

_NO_ERROR = np.iinfo(np.int64).max
_ENTRY_TYPE = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64,
                               ctypes.c_int64)  # fmt: skip
# Launches with fewer threads than this run on the calling thread (a pool round trip costs
# tens of microseconds).
SMALL_LAUNCH = 1 << 17
_PRINT_CAPACITY = 1 << 20

_lock = threading.Lock()
_llvm: Any = None
_target: Any = None


def _binding() -> Any:
    """llvmlite.binding, with the native target set up once."""
    global _llvm, _target
    with _lock:
        if _llvm is None:
            import llvmlite.binding as llvm

            llvm.initialize_native_target()
            llvm.initialize_native_asmprinter()
            llvm.initialize_native_asmparser()
            _register_libm(llvm)
            _llvm = llvm
            _target = _target_machine()
    return _llvm


def _target_machine() -> Any:
    """A target machine for the host CPU (an execution engine owns the one it is given)."""
    import llvmlite.binding as llvm

    return llvm.Target.from_default_triple().create_target_machine(
        cpu=llvm.get_host_cpu_name(),
        features=llvm.get_host_cpu_features().flatten(),
        opt=3,
        jit=True,
    )


def _register_libm(llvm: Any) -> None:
    """Make the C math library's functions known to the JIT linker by address."""
    from ..builtins import MATH

    names = {"fmod", "fmodf", "memset", "memcpy", "memmove"}
    for m in MATH.values():
        base = m.c.split("(")[0]
        if "{" in base and "{f}" not in base:
            continue
        names.add(base.replace("{f}", ""))
        names.add(base.replace("{f}", "f"))
    # the process's own symbols first (CPython links the C math library): no library search
    libs = [ctypes.CDLL(None)] if os.name == "posix" else []
    if not libs or not all(hasattr(libs[0], n) for n in ("sinf", "fmodf")):
        found = (ctypes.util.find_library("m"), ctypes.util.find_library("c"))
        libs += [ctypes.CDLL(p) for p in found if p]
    for n in sorted(names):
        for lib in libs:
            f = getattr(lib, n, None)
            if f is not None:
                llvm.add_symbol(n, ctypes.cast(f, ctypes.c_void_p).value)
                break


def _vector_bits(features: str) -> int:
    if "+avx512f" in features:
        return 512
    if "+avx" in features or "+avx2" in features:
        return 256
    return 128


def num_threads() -> int:
    """`SIMT_NUM_THREADS`, else the number of cores this process may use."""
    env = os.environ.get("SIMT_NUM_THREADS")
    if env:
        try:
            return max(1, int(env))
        except ValueError:
            pass
    try:
        return len(os.sched_getaffinity(0))  # type: ignore[attr-defined,unused-ignore]
    except AttributeError:
        return os.cpu_count() or 1


@dataclass
class _Variant:
    engine: Any
    entry: Any


@dataclass
class _Kernel:
    lowered: Function
    meta: Meta
    arrays: frozenset[str]  # names of the array parameters
    coarsenable: bool = False  # see `passes.spmd.can_coarsen`
    # compiled code per (contiguous arrays, block shape): both are constants to LLVM
    variants: dict[tuple[frozenset[str], tuple[int, int, int], int], _Variant] = field(
        default_factory=dict
    )


class CpuRuntime(Runtime):
    """SPMD LLVM code on the host's cores."""

    name = "cpu"

    def __init__(self) -> None:
        self.threads = num_threads()
        self._pool: ThreadPoolExecutor | None = None

    # ---- discovery -----------------------------------------------------------------------
    @classmethod
    def probe(cls) -> tuple[bool, str]:
        try:
            llvm = _binding()
        except ImportError:
            return False, "llvmlite is not installed (pip install 'simt[cpu]')"
        except Exception as e:  # noqa: BLE001 - a broken LLVM must not break `simt info`
            return False, f"llvmlite failed to start: {e}"
        info = _info(llvm)
        return True, (f"LLVM {info['llvm']} on {info['target cpu']} ({info['vector width']}), "
                      f"{info['threads']} threads")  # fmt: skip

    def info(self) -> dict[str, str]:
        return _info(_binding())

    # ---- compile -------------------------------------------------------------------------
    def render(self, fn: Function, stage: str = "ir") -> str:  # type: ignore[override]
        """The kernel as LLVM IR (`stage="ir"`), optimised IR (`"opt"`) or assembly (`"asm"`)."""
        text, _ = render_lowered(lower(fn), _all_arrays(fn))
        if stage == "ir":
            return text
        mod = self._optimise(text)
        if stage == "opt":
            return str(mod)
        if stage == "asm":
            return str(_target.emit_assembly(mod))
        raise ValueError(f"stage must be 'ir', 'opt' or 'asm', not {stage!r}")

    def _optimise(self, text: str) -> Any:
        llvm = _binding()
        mod = llvm.parse_assembly(text)
        mod.triple = _target.triple
        mod.data_layout = str(_target.target_data)
        mod.verify()
        pto = llvm.create_pipeline_tuning_options(speed_level=3)
        pto.loop_vectorization = True
        pto.slp_vectorization = True
        pb = llvm.create_pass_builder(_target, pto)
        pb.getModulePassManager().run(mod, pb)
        return mod

    def compile(self, fn: Function) -> Compiled:
        """Lower and render `fn`; LLVM compiles it at the first launch, specialised on the
        block shape and on which arrays are contiguous (usually one variant per kernel)."""
        lowered = lower(fn)
        text, meta = render_lowered(lowered, _all_arrays(fn))
        kernel = _Kernel(lowered, meta, _all_arrays(fn), can_coarsen(fn))
        return Compiled(fn, text, kernel, {"formats": meta.formats})

    def _build(self, text: str) -> _Variant:
        llvm = _binding()
        key = cache.key(text, _target.triple, llvm.get_host_cpu_name(),
                        llvm.get_host_cpu_features().flatten(),
                        ".".join(map(str, llvm.llvm_version_info)))  # fmt: skip
        obj = cache.load("cpu", key)
        if obj is None:
            mod = self._optimise(text)
            obj = bytes(_target.emit_object(mod))
            cache.store("cpu", key, obj)
        engine = llvm.create_mcjit_compiler(llvm.parse_assembly(""), _target_machine())
        engine.add_object_file(llvm.ObjectFileRef.from_data(obj))
        engine.finalize_object()
        addr = engine.get_function_address(ENTRY)
        if not addr:
            raise RuntimeError("cpu: the compiled kernel has no entry point")
        return _Variant(engine, _ENTRY_TYPE(addr))

    # ---- launch --------------------------------------------------------------------------
    def launch(self, kernel: Compiled, grid: Dim3, block: Dim3, args: list[Any]) -> None:
        k: _Kernel = kernel.handle
        fn = k.lowered
        units = frozenset(
            p.name for p, a in zip(fn.params, args)
            if isinstance(a, DeviceArray) and (a.ndim == 0 or a.strides[-1] == 1
                                               or a.shape[-1] <= 1)
        )  # fmt: skip
        units &= k.arrays
        wide = _coarsening(k, grid, block, self.threads)
        if wide > 1:
            # adjacent blocks run as one wider block: longer, contiguous thread loops
            grid = Dim3(grid.x // wide, grid.y, grid.z)
            block = Dim3(block.x * wide, block.y, block.z)
        shape = (block.x, block.y, block.z)
        variant = k.variants.get((units, shape, wide))
        if variant is None:
            lowered = k.lowered
            if wide > 1:
                lowered = spmd_lower(coarsen(copy.deepcopy(kernel.fn), wide))
            text, _ = render_lowered(lowered, units, block=shape)
            variant = k.variants[(units, shape, wide)] = self._build(text)
        slots, keep = _pack(fn, k.meta.layout, grid, block, args)
        meta = k.meta
        n_prints = len(meta.formats)
        total = grid.size * block.size
        cap = min(_PRINT_CAPACITY, max(1024, 4 * total)) if n_prints else 0
        pbuf = np.zeros(cap * meta.record_slots, np.int64) if n_prints else None
        ctx = np.array([_NO_ERROR, 0, cap, pbuf.ctypes.data if pbuf is not None else 0], np.int64)
        self._run(variant.entry, slots.ctypes.data, ctx.ctypes.data, grid.size, total)
        del keep
        if pbuf is not None:
            count = int(ctx[1])
            self._emit_prints(meta, pbuf, min(count, cap))
            if count > cap:
                raise KernelError(f"the kernel printed more than {cap} lines; print less")
        if int(ctx[0]) != _NO_ERROR:
            code = int(ctx[0])
            thread, site = code >> SITE_BITS, code & ((1 << SITE_BITS) - 1)
            op = meta.sites[site - 1]
            bidx, tidx = unflatten(thread, grid, block)
            loc = op.loc
            raise KernelError(
                describe_failure(op), bidx, tidx,  # type: ignore[arg-type]
                loc.filename if loc else None, loc.line if loc else None,
                loc.source_line if loc else None,
            )  # fmt: skip

    def _run(self, entry: Any, args: int, ctx: int, nblocks: int, total: int) -> None:
        if self.threads <= 1 or nblocks <= 1 or total < SMALL_LAUNCH:
            entry(args, ctx, 0, nblocks)
            return
        if self._pool is None:
            self._pool = ThreadPoolExecutor(self.threads - 1, thread_name_prefix="simt-cpu")
        per = max(1, nblocks // (self.threads * 8))
        chunks = deque((b, min(b + per, nblocks)) for b in range(0, nblocks, per))

        def work() -> None:
            while True:
                try:
                    lo, hi = chunks.popleft()
                except IndexError:
                    return
                entry(args, ctx, lo, hi)

        futures = [self._pool.submit(work) for _ in range(self.threads - 1)]
        work()
        for f in futures:
            f.result()

    @staticmethod
    def _emit_prints(meta: Meta, pbuf: np.ndarray, count: int) -> None:
        recs = pbuf[: count * meta.record_slots].reshape(count, meta.record_slots)
        records = []
        for i, row in enumerate(recs):
            pid = int(row[1])
            vals = []
            for j, t in enumerate(meta.print_types[pid]):
                raw = row[2 + j]
                if t.is_float:
                    x = np.array([raw], np.int64).view(np.float64)[0]
                    vals.append(t.np.type(x))
                elif t.is_bool:
                    vals.append(np.bool_(raw != 0))
                else:
                    vals.append(np.array([raw], np.int64).astype(t.np)[0])
            records.append(PrintRecord(int(row[0]), i, pid, tuple(vals)))
        emit(records, meta.formats)

    # ---- memory --------------------------------------------------------------------------
    def empty(self, shape: tuple[int, ...], dtype: np.dtype) -> Any:
        return np.empty(shape, dtype)

    def upload(self, host: np.ndarray) -> Any:
        return np.array(host, order="C", copy=True)

    def download(self, buf: Any, out: np.ndarray) -> None:
        out[...] = buf


def _coarsening(k: _Kernel, grid: Dim3, block: Dim3, threads: int) -> int:
    """How many adjacent blocks (in x) to run as one: 1 unless the kernel allows it
    (`can_coarsen`) and enough blocks are left to keep every pool thread busy."""
    if not k.coarsenable:
        return 1
    for wide in (8, 4, 2):
        if (grid.x % wide == 0 and block.size * wide <= 2048
                and grid.size // wide >= 8 * threads):  # fmt: skip
            return wide
    return 1


def _all_arrays(fn: Function) -> frozenset[str]:
    return frozenset(p.name for p in fn.params if isinstance(p.value.type, ArrayType))


def _pack(fn: Function, layout: list[int], grid: Dim3, block: Dim3,
          args: list[Any]) -> tuple[np.ndarray, list[Any]]:  # fmt: skip
    """The `args` slot array of a launch, and the buffers it points into (kept alive)."""
    slots = np.zeros(layout[-1], np.int64)
    slots[:6] = (*grid, *block)
    raw = slots.view(np.uint8)
    keep: list[Any] = []
    for p, first, a in zip(fn.params, layout, args):
        t = p.value.type
        if isinstance(t, ArrayType):
            buf = a.buf if isinstance(a, DeviceArray) else np.asarray(a)
            keep.append(buf)
            slots[first] = buf.ctypes.data
            shape = a.shape if isinstance(a, DeviceArray) else buf.shape
            strides = (a.strides if isinstance(a, DeviceArray)
                       else tuple(s // buf.itemsize for s in buf.strides))  # fmt: skip
            slots[first + 1 : first + 1 + t.ndim] = shape
            slots[first + 1 + t.ndim : first + 1 + 2 * t.ndim] = strides
        else:
            v = np.array(a, dtype=np.uint8 if t.is_bool else t.np).reshape(1)
            b = v.view(np.uint8)
            raw[8 * first : 8 * first + b.size] = b
    return slots, keep


def _info(llvm: Any) -> dict[str, str]:
    features = llvm.get_host_cpu_features().flatten()
    return {
        "llvm": ".".join(map(str, llvm.llvm_version_info)),
        "target cpu": llvm.get_host_cpu_name(),
        "vector width": f"{_vector_bits(features)}-bit SIMD",
        "threads": str(num_threads()),
    }
