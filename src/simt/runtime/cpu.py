"""The `cpu` runtime: SPMD-lowered kernels compiled in process by LLVM (llvmlite).

At its first launch with a block shape, a kernel is lowered (`passes.spmd`) and rendered
(`backends.llvm`) by `lower_and_render`, the one CPU lowering `kernel.source("cpu")` shows
too; the LLVM text is optimised for the host CPU and compiled to object code, which the disk
cache keeps under that text (and the host's CPU and LLVM version): a second process renders
again but skips LLVM's optimiser and code generator, and only loads the object.
A launch packs the arguments into an array of 8-byte slots (NumPy buffers are passed by
address: no copies) and runs the blocks on the calling thread and a persistent pool of threads
that share them out natively (`cpu_pool`); ctypes releases the GIL for the calls.
`SIMT_NUM_THREADS` sets the number of threads (default: every core); small launches run on
the calling thread alone. LLVM's remarks and warnings ("loop not
vectorized") never reach the terminal.
"""

from __future__ import annotations

import ctypes
import math
import os
import re
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .. import cache
from ..array import DeviceArray, host_view
from ..backends.common import describe_failure
from ..backends.llvm import render_lowered
from ..backends.llvm_abi import (
    CHECKED_THREADS,
    CONTEXT_WORDS,
    ENTRY,
    ERROR_RECORD,
    INTERRUPT_WORD,
    NO_MEMORY,
    POLL_FUNCTION,
    RECORD_DIMS,
    SITE_BITS,
    STOPPED,
    Meta,
    arg_layout,
)  # fmt: skip
from ..errors import CompileError, KernelError, LaunchError
from ..ir import Function, Hidden, Op, copy_function, walk
from ..ir.failures import checked
from ..passes.clamp_split import split_clamps
from ..passes.sites import number_sites
from ..passes.spmd import can_coarsen, coarsen, one_thread
from ..passes.spmd import lower as spmd_lower
from ..types import FLOAT16, ArrayType
from . import cpu_cache, cpu_fast, cpu_interrupt, cpu_pool
from .base import Compiled, DeviceFacts, Dim3, Nominal, PrintRecord, Runtime, unflatten
from .cpu_fast import FastLaunch
from .cpu_pool import Pool, chunk, slices
from .fingerprint import fingerprint
from .printing import Stream, emit, watch

_NO_ERROR = np.iinfo(np.int64).max
_ENTRY_TYPE = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64,
                               ctypes.c_int64)  # fmt: skip
# Launches with fewer threads than this run on the calling thread (a pool round trip costs
# tens of microseconds).
SMALL_LAUNCH = 1 << 17
_PRINT_CAPACITY = 1 << 20
# At most this many threads in a block made of adjacent blocks (`_coarsening`): longer runs
# along rows. 8192 rather than 2048 took W1 (column sums: 256 rows of 32 KiB runs instead of
# 8 KiB) from 24.4 to 18.1 ms on one core and 14.7 to 12.9 ms on two; W2-W6 moved by less
# than their noise. Per-lane arrays that no longer fit the stack go to the heap (`llvm`).
COARSE_LANES = 8192
# A launch of 2-D (or 3-D) blocks runs a whole row of blocks as one block when that is at most
# this many threads: its rows are then read and written as one stream in address order, where
# pieces of rows (16 rows of 512 lanes for 16 x 16 blocks) made as many short streams. On
# 2048^2 float32 images, one thread: a copy 2.1-2.3 -> 0.86-0.97 ms, W4's Sobel 2.9 -> 2.3-2.7 ms
# (bench/image_sobel.py; W3 and W6 unchanged). The index slots of a thread loop's kept checks
# (`backends.llvm`, 8 bytes a lane each) stay within ROW_SLOT_BYTES of stack; a kernel with
# per-thread arrays (as large as its block: ROW_LANES of them) keeps to COARSE_LANES.
ROW_LANES = 1 << 15
ROW_SLOT_BYTES = 1 << 21

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
            # kernels' loops ask it whether Ctrl-C was pressed (`cpu_interrupt`)
            llvm.add_symbol(POLL_FUNCTION, cpu_interrupt.address(lambda t: _engine(llvm, t)))
            _llvm = llvm
            _target = _target_machine()
    return _llvm


def _check_half(fn: Function) -> None:
    """float16 converts with the CPU's own instructions (F16C on x86-64): without them LLVM
    would call a runtime library the in-process JIT does not have, so say it instead."""
    import platform

    if platform.machine().lower() not in ("x86_64", "amd64"):
        return
    if "+f16c" in _binding().get_host_cpu_features().flatten():
        return
    for op in walk(fn.body):
        if op.opcode == "cast" and FLOAT16 in (op.result.type, op.operands[0].type):
            raise CompileError(
                f"float16 arrays on the cpu backend need a CPU with F16C ({fn.name}() uses "
                "them and this one has none)",
                fn.filename,
                hint="convert the array with a.astype(np.float32), or use the sim backend",
            )


def _target_machine() -> Any:
    """A target machine for the host CPU (an execution engine owns the one it is given)."""
    import llvmlite.binding as llvm

    return llvm.Target.from_default_triple().create_target_machine(
        cpu=llvm.get_host_cpu_name(),
        features=llvm.get_host_cpu_features().flatten(),
        opt=3,
        jit=True,
    )


def _free_pass_manager(mpm: Any) -> None:
    """Free a module pass manager's native object now. llvmlite (0.44 to 0.50 at least) never
    frees it: in `ModulePassManager`'s bases `ffi.ObjectRef`'s empty `_dispose` comes before
    `NewPassManager`'s, so its close only forgets the pointer, and the passes keep what they
    last held of their module. That was 70-215 KB of every compiled variant, for the life of
    the process (helper mem11, 2026-11-28: 200 fresh kernels took the process 122 -> 162 MB)."""
    from llvmlite.binding import ffi

    dispose = getattr(ffi.ObjectRef, "_dispose", None)
    if getattr(type(mpm), "_dispose", None) is dispose:  # the shadowed base (see above)
        from llvmlite.binding.newpassmanagers import NewPassManager

        NewPassManager._dispose(mpm)
        mpm.detach()
    else:  # an llvmlite whose own close frees it
        mpm.close()


def _register_libm(llvm: Any) -> None:
    """Make the C math library's functions known to the JIT linker by address."""
    from ..builtins import LIBM_NAMES

    # _setjmp / _longjmp: Ctrl-C's way out of a kernel's loops (`backends.llvm`)
    names = {"fmod", "fmodf", "memset", "memcpy", "memmove", "malloc", "free", "_setjmp",
             "_longjmp", "sigaction", *LIBM_NAMES}  # fmt: skip
    # the process's own symbols first (CPython links the C math library): no library search
    libs = [ctypes.CDLL(None)] if os.name == "posix" else []
    if not libs or not all(hasattr(libs[0], n) for n in ("sinf", "fmodf")):
        from ctypes.util import find_library  # only here: importing it takes ~15 ms

        found = (find_library("m"), find_library("c"))
        libs += [ctypes.CDLL(p) for p in found if p]
    for n in sorted(names):
        for lib in libs:
            f = getattr(lib, n, None)
            if f is not None:
                llvm.add_symbol(n, ctypes.cast(f, ctypes.c_void_p).value)
                break


def _jit(text: str) -> Callable[[str], int]:
    """Compile LLVM IR text for the host: the address of each of its functions by name (the
    function returned keeps the code alive)."""
    return _engine(_binding(), text)


def _engine(llvm: Any, text: str) -> Callable[[str], int]:
    engine = llvm.create_mcjit_compiler(llvm.parse_assembly(text), _target_machine())
    engine.finalize_object()
    return engine.get_function_address  # type: ignore[no-any-return]


def _vector_bits(features: str) -> int:
    if "+avx512f" in features:
        return 512
    if "+avx" in features or "+avx2" in features:
        return 256
    return 128


def num_threads() -> int:
    """`SIMT_NUM_THREADS`, else the number of cores this process may use."""
    env = os.environ.get("SIMT_NUM_THREADS")
    if env is not None and env.strip():
        try:
            n = int(env)
        except ValueError:
            n = 0
        if n < 1:
            raise LaunchError(
                f"SIMT_NUM_THREADS={env!r} is not a number of threads: set it to a whole "
                "number of 1 or more (the cpu backend's threads), or unset it to use every core"
            )
        return n
    try:
        return len(os.sched_getaffinity(0))  # type: ignore[attr-defined,unused-ignore]
    except AttributeError:
        return os.cpu_count() or 1


@dataclass
class _Variant:
    engine: Any
    entry: Any  # the entry as a ctypes function
    address: int  # and its address (for `cpu_pool`)
    meta: Meta  # print formats and error sites of the rendered code
    checked_at: int = 0  # the address of its count of threads run checked (0: none)


@dataclass
class _Kernel:
    fn: Function  # as the front end made it (left unchanged: variants lower copies)
    fingerprint: str  # see `fingerprint`
    arrays: frozenset[str]  # names of the array parameters
    layout: list[int]  # the argument slots (`backends.llvm_abi.arg_layout`)
    prints: bool  # whether it has a `print` (then a launch needs its print formats)
    coarsenable: bool = False  # see `passes.spmd.can_coarsen`
    # register-tiled (`tile=True` loops, `tensor.gemm`): each thread is heavy, so even a small
    # grid runs on the pool
    heavy: bool = False
    # index slots per lane that the checks kept in a thread loop may need (`_slots`)
    slots: int = 0
    local: bool = False  # it has per-thread arrays (per-lane arrays of a block's size)
    # compiled code per (contiguous arrays, block shape, blocks run as one): constants to LLVM
    variants: dict[tuple[frozenset[str], tuple[int, int, int], int], _Variant] = field(
        default_factory=dict
    )


class CpuRuntime(Runtime):
    """SPMD LLVM code on the host's cores."""

    name = "cpu"
    max_threads = 2**32
    max_threads_why = "the limit webgpu has too, so a launch that runs on one runs on both"
    host_memory = True
    unit_word = "cores"
    spmd = True
    host_threads = True
    nominal = Nominal(copy_bandwidth=15e9, peak_flops=50e9, launch_overhead=30e-6,
                      far_rate=200e6, loop_rate=200e6, op_rate=10e9, gather_rate=2e9)  # fmt: skip
    # rows of 128 lanes (adjacent blocks run as one: up to whole rows, `COARSE_LANES`): long
    # vector loops that stream along rows; 16 x 16 tiles ran Sobel ~25 % slower, 128 x 2 ~5 %
    # (bench/image_sobel.py)
    image_block = (128, 1)

    def __init__(self) -> None:
        self.threads = num_threads()
        self._pool: Pool | None = None

    # ---- discovery -----------------------------------------------------------------------
    @classmethod
    def probe(cls) -> tuple[bool, str]:
        try:
            llvm = _binding()
        except ImportError:
            return False, "llvmlite is not installed (a core dependency: reinstall simt)"
        except Exception as e:  # noqa: BLE001 - a broken LLVM must not break `simt info`
            return False, f"llvmlite failed to start: {e}"
        info = _info(llvm)
        return True, (f"LLVM {info['llvm']} on {info['target cpu']} ({info['vector width']}), "
                      f"{info['threads']} threads")  # fmt: skip

    def info(self) -> dict[str, str]:
        return _info(_binding())

    # ---- compile -------------------------------------------------------------------------
    def device_facts(self) -> DeviceFacts:
        """The host CPU: SIMD width in float32 lanes, threads, the largest cache Linux lists;
        the thread loop runs 4 x 16 lanes at once in read-and-accumulate loops."""
        info = self.info()
        bits = int(re.match(r"\d+", info.get("vector width", "128")).group())  # type: ignore[union-attr]
        return DeviceFacts(f"{info.get('target cpu', 'cpu')}-{info.get('threads', '1')}t",
                           max(1, bits // 32), int(info.get("threads", "1")), 1024,
                           _cache_bytes(), tile_lanes=64)  # fmt: skip

    @classmethod
    def source(cls, fn: Function) -> str:
        """The LLVM IR of `fn` as a launch compiles it (every array taken as contiguous, no
        block shape fixed): `lower_and_render`, the one CPU lowering."""
        return lower_and_render(fn, _all_arrays(fn))[0]

    def render(  # type: ignore[override]
        self, fn: Function, stage: str = "ir", block: tuple[int, int, int] | None = None,
        heavy: bool = False,
    ) -> str:
        """The kernel as LLVM IR (`stage="ir"`), optimised IR (`"opt"`) or assembly (`"asm"`);
        with `block`, as a launch with blocks of that shape compiles it; `heavy`, optimised as
        a register-tiled kernel of `simt.tensor` is (see `_level`)."""
        text, meta = lower_and_render(fn, _all_arrays(fn), block)
        if stage == "ir":
            return text
        mod = self.optimise(text, _level(meta, heavy))
        if stage == "opt":
            return str(mod)
        if stage == "asm":
            with _quiet_llvm():
                return str(_target.emit_assembly(mod))
        raise ValueError(f"stage must be 'ir', 'opt' or 'asm', not {stage!r}")

    def optimise(self, text: str, level: int = 3) -> Any:
        """The module of `text`, optimised for the host at `level` (3, or 2: see `_level`);
        a module of more than `SLP_REDUCTIONS_MAX` instructions without the SLP vectoriser's
        horizontal reductions."""
        llvm = _binding()
        mod = llvm.parse_assembly(text)
        mod.triple = _target.triple
        mod.data_layout = str(_target.target_data)
        mod.verify()
        pto = llvm.create_pipeline_tuning_options(speed_level=level)
        pto.loop_vectorization = True
        pto.slp_vectorization = True
        pb = llvm.create_pass_builder(_target, pto)
        mpm = pb.getModulePassManager()
        big = instructions(text) > SLP_REDUCTIONS_MAX
        try:
            with _quiet_llvm():  # (its lock: no other compile sees the option changed)
                if big:
                    llvm.set_option("", "-slp-vectorize-hor=false")
                try:
                    mpm.run(mod, pb)
                finally:
                    if big:
                        llvm.set_option("", "-slp-vectorize-hor=true")
        finally:
            _free_pass_manager(mpm)
        return mod

    def compile(self, fn: Function) -> Compiled:
        """What launches need to know of `fn`. LLVM compiles it at the first launch with a
        block shape (through the disk cache), specialised on that shape and on which arrays
        are contiguous: usually one variant per kernel. `kernel.source("cpu", ...)` renders
        the LLVM IR; `Compiled.source` here is the fingerprint the cache is keyed by."""
        _check_half(fn)
        arrays = _all_arrays(fn)
        prints = any(o.opcode == "print" for o in walk(fn.body))
        heavy = any(o.opcode == "for" and o.attrs.get("tile") for o in walk(fn.body))
        kernel = _Kernel(fn, fingerprint(fn), arrays, arg_layout(fn), prints, can_coarsen(fn),
                         heavy=heavy, slots=_slots(fn),
                         local=any(o.opcode == "alloc" for o in walk(fn.body)))  # fmt: skip
        return Compiled(fn, kernel.fingerprint, kernel, {})

    def _variant(self, k: _Kernel, units: frozenset[str], shape: tuple[int, int, int],
                 wide: int) -> _Variant:  # fmt: skip
        """The compiled code of one specialisation: lowered and rendered, then from the disk
        cache (keyed by the LLVM text, as CUDA's is by its source) or optimised, compiled
        and stored. A variant lowered before (in this process or another) is found by its IR
        first (`cpu_cache`), without lowering and rendering it again."""
        llvm = _binding()
        target = (_target.triple, llvm.get_host_cpu_name(), llvm.get_host_cpu_features().flatten(),
                  ".".join(map(str, llvm.llvm_version_info)))  # fmt: skip
        front = None if k.prints else cpu_cache.key(k.fingerprint, k.fn.name, units, shape,
                                                     wide, _poll(), target)  # fmt: skip
        got = cpu_cache.load(front, k.fn) if front is not None and cache.enabled() else None
        obj = cache.load("cpu", got[0]) if got is not None else None
        if got is not None and obj is not None:
            meta = got[1]
        else:
            text, meta = lower_and_render(k.fn, units, shape, wide)
            key = cache.key(text, *target)
            obj = cache.load("cpu", key)
            if obj is None:
                obj = self._object(text, _level(meta, k.heavy))
                cache.store("cpu", key, obj)
            if front is not None:
                cpu_cache.store(front, k.fn, key, meta)
        engine = llvm.create_mcjit_compiler(llvm.parse_assembly(""), _target_machine())
        engine.add_object_file(llvm.ObjectFileRef.from_data(obj))
        engine.finalize_object()
        addr = engine.get_function_address(ENTRY)
        if not addr:
            raise RuntimeError("cpu: the compiled kernel has no entry point")
        counter = engine.get_global_value_address(CHECKED_THREADS)  # (0: no versioned body)
        return _Variant(engine, _ENTRY_TYPE(addr), addr, meta, counter)

    def checked_threads(self, kernel: Compiled) -> int:
        """How many threads the launches of `kernel` so far ran through the checked copy of
        its body (`passes.bounds`: the blocks that failed its block-level test, each with all
        its threads), over every compiled variant; 0 for a kernel whose body has no such copy.
        `bench/bounds.py` reports it beside the checks a kernel kept."""
        k: _Kernel = kernel.handle
        return sum(ctypes.c_int64.from_address(v.checked_at).value
                   for v in k.variants.values() if v.checked_at)  # fmt: skip

    def _object(self, text: str, level: int = 3) -> bytes:
        """Object code for the host from LLVM IR text."""
        mod = self.optimise(text, level)
        with _quiet_llvm():
            return bytes(_target.emit_object(mod))

    # ---- launch --------------------------------------------------------------------------
    def launch(self, kernel: Compiled, grid: Dim3, block: Dim3, args: list[Any]) -> None:
        k: _Kernel = kernel.handle
        fn = k.fn
        variant, run_grid, run_block, wide = self._prepare(k, grid, block, args)
        slots, keep = _pack(fn, k.layout, run_grid, run_block, args)
        meta = variant.meta if k.prints else None
        n_prints = len(meta.formats) if meta is not None else 0
        total = run_grid.size * run_block.size
        # records (a number or a piece of text each; a string built at run time takes one per
        # character): np.zeros's pages are only made where records are written
        cap = min(_PRINT_CAPACITY, max(1 << 16, 4 * total)) if n_prints else 0
        slots_per = meta.record_slots if meta is not None else 0
        pbuf = np.zeros(cap * slots_per, np.int64) if n_prints else None
        ctx = _context(cap, pbuf.ctypes.data if pbuf is not None else 0)
        ctx[INTERRUPT_WORD] = cpu_interrupt.armed()  # a later Ctrl-C stops the kernel's loops
        done = [0]  # records written so far (streamed)
        end = None
        if pbuf is not None and meta is not None and Stream.wanted():
            end = self._stream(meta, pbuf, ctx, cap, done)
        try:
            self._run(variant, slots, ctx, run_grid.size, SMALL_LAUNCH if k.heavy else total)
        finally:
            if end is not None:
                end()
        del keep
        if pbuf is not None and meta is not None and int(ctx[0]) != STOPPED:
            count = int(ctx[1])
            emit(self._records(meta, pbuf, done[0], min(count, cap)), meta.formats)
            if count > cap:
                raise KernelError(
                    f"the kernel printed more than {cap} print records (a number or a piece "
                    "of text each, a string built at run time one per character); the first "
                    f"{cap} are shown above: print less"
                )
        _check(ctx, fn, variant, run_grid, run_block, block.x if wide > 1 else 0)

    def _prepare(
        self, k: _Kernel, grid: Dim3, block: Dim3, args: list[Any]
    ) -> tuple[_Variant, Dim3, Dim3, int]:
        """The compiled variant a launch runs (compiled now if new), and the grid and block
        it runs with: `wide` adjacent blocks in x run as one (`_coarsening`)."""
        units = frozenset(
            p.name for p, a in zip(k.fn.params, args)
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
        vkey = (units, shape, wide)
        variant = k.variants.get(vkey)
        if variant is None:
            variant = k.variants[vkey] = self._variant(k, units, shape, wide)
        return variant, grid, block, wide

    def fast_launch(
        self, kernel: Compiled, grid: Dim3, block: Dim3, values: list[Any], written: set[str],
        failures: np.ndarray | None = None, exact: bool = False,
    ) -> FastLaunch | None:
        """A native fast path (`cpu_fast`) for launches of `kernel` on (`grid`, `block`) with
        arguments of the types of `values` (the kernel's arguments in order, as the launch
        that just ran got them), or None: it prints (a print buffer per launch), the launch
        is shared with the pool threads, or an argument is of a kind the fast path does not
        read. `exact`: its arrays must also have the shapes of `values`' (`cpu_fast.table`)."""
        k: _Kernel = kernel.handle
        fn = k.fn
        if k.prints or not _poll():
            return None
        for p in fn.params:  # hidden arrays, made per launch by `Kernel`, but the failure
            if p.hidden and (p.hidden is not Hidden.FAILURES or failures is None):  # buffer
                return None
        units = frozenset(
            p.name for p in fn.params
            if type(v := values[p.index]) is np.ndarray and (v.strides[-1] == v.itemsize
                                                              or v.shape[-1] <= 1)
        )  # fmt: skip
        table = cpu_fast.table(fn, k.layout, values, written, units, exact)
        if table is None:  # an argument the fast path does not read
            return None
        # (the failure buffer's slots are written once, here)
        args = [host_view(self, failures) if p.hidden and failures is not None else
                host_view(self, values[p.index]) if isinstance(p.value.type, ArrayType)
                else values[p.index] for p in fn.params]  # fmt: skip
        variant, run_grid, run_block, wide = self._prepare(k, grid, block, args)
        total = SMALL_LAUNCH if k.heavy else run_grid.size * run_block.size
        drive = cpu_fast.driver(_jit, cpu_interrupt.arm_address())
        if drive is None:
            return None
        pool = None if self._on_caller(run_grid.size, total) else self._the_pool()
        slots = _pack(fn, k.layout, run_grid, run_block, args)[0]
        ctx = _context(0, 0)
        template = ctx.copy()
        table[1:6] = (variant.address, slots.ctypes.data, ctx.ctypes.data,
                      template.ctypes.data, run_grid.size)  # fmt: skip
        if pool is not None:  # shared with the pool's workers (`cpu_pool.simt_pool_run`)
            table[8:11] = (pool.address, chunk(run_grid.size, pool.threads), pool.run_address)
        asked = block.x if wide > 1 else 0
        dtypes = tuple(getattr(v, "dtype", None) for v in values)  # the table names them by id

        def failure() -> None:
            _check(ctx, fn, variant, run_grid, run_block, asked)

        keep = (slots, ctx, template, variant, dtypes, pool)
        return FastLaunch(self, drive, table, keep, failure)

    def _on_caller(self, nblocks: int, total: int) -> bool:
        """Whether a launch of `nblocks` blocks, `total` threads, runs on the calling thread
        alone (too small to be worth waking the pool; or no pool here: `cpu_pool.available`)."""
        return (self.threads <= 1 or nblocks <= 1 or total < SMALL_LAUNCH
                or not cpu_pool.available())  # fmt: skip

    def _the_pool(self) -> Pool:
        if self._pool is None or self._pool.pid != os.getpid():  # (a child made by fork: anew)
            _binding()  # the Ctrl-C handler compiled (its count)
            self._pool = Pool(self.threads, _jit, cpu_interrupt.counter())
        return self._pool

    def _run(self, variant: _Variant, args: np.ndarray, ctx: np.ndarray, nblocks: int,
             total: int) -> None:  # fmt: skip
        if self._on_caller(nblocks, total):
            # in slices of blocks, back in Python in between: there Ctrl-C raises
            # KeyboardInterrupt (a ctypes call cannot be interrupted)
            a, c, lo = args.ctypes.data, ctx.ctypes.data, 0
            for n in slices(nblocks):
                variant.entry(a, c, lo, min(lo + n, nblocks))
                lo += n
                if lo >= nblocks or ctx[0] != _NO_ERROR:
                    return
        self._the_pool().run(variant.address, args, ctx, nblocks)

    def _stream(self, meta: Meta, pbuf: np.ndarray, ctx: np.ndarray, cap: int,
                done: list[int]) -> Callable[[], None]:  # fmt: skip
        """Stream the launch's prints while it runs (`printing.watch`): a record is complete
        when its print id (written last, with release order) is no longer -1."""
        rows = pbuf.reshape(cap, meta.record_slots)
        rows[:, 1] = -1

        def poll() -> list[PrintRecord]:
            count = min(int(ctx[1]), cap)
            ready = rows[done[0] : count, 1] >= 0
            n = int(ready.argmin()) if not ready.all() else len(ready)
            recs = self._records(meta, pbuf, done[0], done[0] + n)
            done[0] += n
            return recs

        return watch(Stream(meta.formats), poll)

    @staticmethod
    def _records(meta: Meta, pbuf: np.ndarray, lo: int, hi: int) -> list[PrintRecord]:
        """The print records `lo <= i < hi` of the buffer, decoded (`seq` is `i`: a thread's
        records are in the order it printed them)."""
        recs = pbuf[lo * meta.record_slots : hi * meta.record_slots].reshape(
            hi - lo, meta.record_slots
        )
        records = []
        for i, row in enumerate(recs, lo):
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
        return records

    # ---- memory --------------------------------------------------------------------------
    def empty(self, shape: tuple[int, ...], dtype: np.dtype) -> Any:
        return np.empty(shape, dtype)

    def upload(self, host: np.ndarray) -> Any:
        return np.array(host, order="C", copy=True)

    def download(self, buf: Any, out: np.ndarray) -> None:
        out[...] = buf


def _context(cap: int, pbuf: int) -> np.ndarray:
    """A launch's context words before it runs: no error, no print yet (`cap` records at
    address `pbuf`), no failing access recorded; the Ctrl-C count is set by the launch."""
    ctx = np.zeros(CONTEXT_WORDS, np.int64)
    ctx[:4] = [_NO_ERROR, 0, cap, pbuf]
    ctx[ERROR_RECORD + 1] = _NO_ERROR  # no failing access recorded yet
    return ctx


def _check(
    ctx: np.ndarray, fn: Function, variant: _Variant, grid: Dim3, block: Dim3, width: int
) -> None:
    """Raise what stopped a launch that ran on (`grid`, `block`) (`width`: the user's block
    width when adjacent blocks ran as one), if anything did: Ctrl-C, no memory, a failure."""
    code = int(ctx[0])
    if code == _NO_ERROR:
        return
    if code == STOPPED:  # Ctrl-C, where Python's own handler did not raise
        raise KeyboardInterrupt
    if code == NO_MEMORY:
        raise _no_memory(fn, Dim3(width or block.x, block.y, block.z))
    thread, site = code >> SITE_BITS, code & ((1 << SITE_BITS) - 1)
    op = variant.meta.sites[site]
    bidx, tidx = coarse_thread(thread, grid, block, width)
    loc = op.loc
    index: list[int] | None = None
    extent: list[int] | None = None
    r = ERROR_RECORD
    if int(ctx[r + 1]) == code and 0 < int(ctx[r + 2]) <= RECORD_DIMS:
        nd = int(ctx[r + 2])
        index = [int(x) for x in ctx[r + 3 : r + 3 + nd]]
        extent = [int(x) for x in ctx[r + 3 + RECORD_DIMS : r + 3 + RECORD_DIMS + nd]]
    raise KernelError(
        describe_failure(op, index, extent), bidx, tidx,  # type: ignore[arg-type]
        loc.filename if loc else None, loc.line if loc else None,
        loc.source_line if loc else None,
    )  # fmt: skip


def coarse_thread(
    thread: int, grid: Dim3, block: Dim3, width: int = 0
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(block index, thread index) in the user's launch of linear thread `thread` of the
    launch that ran (`grid`, `block`); with `width`, that launch ran adjacent blocks of
    `width` threads in x as one wider block (`passes.spmd.coarsen`)."""
    bidx, tidx = unflatten(thread, grid, block)
    if width:
        wide = block.x // width
        bidx = (bidx[0] * wide + tidx[0] // width, *bidx[1:])
        tidx = (tidx[0] % width, *tidx[1:])
    return bidx, tidx


def _no_memory(fn: Function, block: Dim3) -> KernelError:
    """The error of a launch whose per-thread and per-block arrays could not be allocated,
    at the line of the largest of them (the one to make smaller)."""

    def nbytes(op: Op) -> int:
        t = op.result.array
        return math.prod(t.shape or ()) * max(1, t.dtype.bits // 8)

    big = max((op for op in walk(fn.body) if op.opcode == "alloc"), key=nbytes, default=None)
    loc = big.loc if big is not None else None
    return KernelError(
        f"the cpu backend could not allocate the per-thread and per-block arrays of {fn.name} "
        f"for blocks of {block.x} x {block.y} x {block.z} threads; use smaller local arrays or "
        "fewer threads per block",
        filename=loc.filename if loc else None,
        line=loc.line if loc else None,
        source_line=loc.source_line if loc else None,
    )


def _coarsening(k: _Kernel, grid: Dim3, block: Dim3, threads: int) -> int:
    """How many adjacent blocks (in x) to run as one: 1 unless the kernel allows it
    (`can_coarsen`) and enough blocks are left to keep every pool thread busy; a whole row of
    2-D blocks where it is small enough (`ROW_LANES`)."""
    if not k.coarsenable:
        return 1
    lanes = block.size * grid.x
    if (block.y * block.z > 1 and grid.x > 1 and lanes <= ROW_LANES and not k.local
            and 8 * lanes * k.slots <= ROW_SLOT_BYTES
            and grid.size // grid.x >= 8 * threads):  # fmt: skip
        return grid.x  # whole rows (`ROW_LANES`)
    for wide in (64, 32, 16, 8, 4, 2):
        if (grid.x % wide == 0 and block.size * wide <= COARSE_LANES
                and grid.size // wide >= 8 * threads):  # fmt: skip
            return wide
    return 1


def _slots(fn: Function) -> int:
    """At most how many index slots per lane (one per dimension of each access that keeps
    its bounds check) the rendered thread loops of `fn` keep for an error report."""
    return sum(op.operands[0].array.ndim for op in walk(fn.body)
               if checked(op, fn.checks_bounds))  # fmt: skip


# LLVM's SLP vectoriser looks for horizontal reductions (`a0 + a1 + ...` in straight-line
# code) at a cost that grows faster than the module: the fuzzer's kernel 158 (19,535
# instructions; strings, lists, sets and files) spent 100 of its 116 s of compilation there, its
# horizontal reductions off 15 s, while kernel 162 (18,287) took 8 s with them. The largest
# kernels of the benchmarks are under 10,000 (`tensor`'s register-tiled micro-kernel: 9,826;
# bench/bounds.py's fast_matmul 6,503) and keep them.
SLP_REDUCTIONS_MAX = 12_000


def instructions(text: str) -> int:
    """About how many instructions LLVM IR `text` has (its indented lines)."""
    return sum(1 for line in text.splitlines() if line.startswith("  "))


def _level(meta: Meta, heavy: bool = False) -> int:
    """LLVM's optimisation level for a module: 3, or 2 for one with jammed loops. Their bodies
    are already many lanes wide (SLP makes the vectors); O3's extra loop unswitching and
    unrolling of those copies cost W6 (naive matmul) ~80 ms more to compile and ran no faster.
    1 (the vectorisers still on) for a register-tiled kernel (`heavy`: `tensor.gemm`'s
    micro-kernels and packing loops, written out as they should run; jammed, they were at 2):
    q·kᵀ's three kernels compiled 0.14 s faster (0.61 -> 0.47 s of CPU for its first exec)
    and ran as fast, and so did matmul 1024 (first exec 0.63 -> 0.50 s, 28 ms a call)."""
    return 1 if heavy else 2 if meta.jammed else 3


# LLVM's diagnostics as it prints them: "remark: <unknown>:0:0: loop not vectorized: ..."
_DIAGNOSTIC = re.compile(rb"^(remark|warning|note): [^\s:]*:\d+:\d+: ")
_quiet_lock = threading.RLock()  # re-entrant: a nested use only redirects fd 2 again


@contextmanager
def _quiet_llvm() -> Iterator[None]:
    """Keep LLVM's remarks and warnings off the terminal: LLVM writes them straight to file
    descriptor 2, so while it works that goes to a temporary file; afterwards everything else
    written there (by another thread meanwhile) is passed on, LLVM's diagnostic lines dropped."""
    with _quiet_lock:
        try:
            sys.stderr.flush()
            saved = os.dup(2)
        except (OSError, ValueError, AttributeError):
            saved = -1
        if saved < 0:
            yield
            return
        import tempfile

        with tempfile.TemporaryFile() as tmp:
            os.dup2(tmp.fileno(), 2)
            try:
                yield
            finally:
                try:
                    sys.stderr.flush()
                except (OSError, ValueError, AttributeError):
                    pass
                os.dup2(saved, 2)
                os.close(saved)
                tmp.seek(0)
                kept = [ln for ln in tmp.read().splitlines(keepends=True)
                        if not _DIAGNOSTIC.match(ln)]  # fmt: skip
                if kept:
                    os.write(2, b"".join(kept))


def lower(fn: Function, wide: int = 1, block: tuple[int, int, int] | None = None) -> Function:
    """The CPU lowering of a copy of `fn` (the caller's is left as it was): its error sites
    numbered before anything copies a body (`passes.sites`), runs of `wide` adjacent blocks
    merged into one block (`passes.spmd.coarsen`), then the SPMD form (for blocks of one
    thread, the body as it is where it allows: `passes.spmd.one_thread`), whose thread loops
    with clamped indices are split by lanes (`passes.clamp_split`)."""
    fn = number_sites(copy_function(fn))
    if wide > 1:
        fn = coarsen(fn, wide)
    if block == (1, 1, 1):
        single = one_thread(fn)
        if single is not None:
            return single
    fn = spmd_lower(fn)
    split_clamps(fn)
    return fn


def lower_and_render(
    fn: Function,
    units: frozenset[str] = frozenset(),
    block: tuple[int, int, int] | None = None,
    wide: int = 1,
) -> tuple[str, Meta]:
    """The one CPU lowering, `lower` then the LLVM renderer: what `kernel.source("cpu")`
    shows (no block shape, `units` every array) and what a launch compiles (its block shape,
    the arrays contiguous in their last dimension, `wide` blocks a block)."""
    return render_lowered(lower(fn, wide, block), units, block=block, poll=_poll())


def _poll() -> bool:
    """Whether kernels' loops poll for Ctrl-C: always, unless `SIMT_CPU_POLL=0` (for measuring
    what the polls cost: `bench/interrupt_poll.py`; Ctrl-C then stops a launch between slices
    of blocks only)."""
    return os.environ.get("SIMT_CPU_POLL", "1") != "0"


def _cache_bytes() -> int:
    """The largest CPU cache Linux lists, in bytes (0 where unknown)."""
    sizes = []
    for path in Path("/sys/devices/system/cpu/cpu0/cache").glob("index*/size"):
        try:
            text = path.read_text().strip()
        except OSError:
            continue
        m = re.match(r"(\d+)([KMG]?)", text)
        if m:
            sizes.append(int(m.group(1)) << {"": 0, "K": 10, "M": 20, "G": 30}[m.group(2)])
    return max(sizes, default=0)


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
        "threads": _threads_text(),
    }


def _threads_text() -> str:
    """`num_threads()` as text for `simt info`; a bad SIMT_NUM_THREADS is said, not raised
    (the backend is there: the first launch raises the error)."""
    try:
        return str(num_threads())
    except LaunchError as e:
        return f"(bad setting: {e})"
