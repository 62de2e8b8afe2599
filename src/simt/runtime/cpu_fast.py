"""The cpu runtime's fast launch: a cached launch checked, packed and run by one native call.

A launch through `CpuRuntime.launch` costs tens of microseconds of Python (binding, the
specialisation key, argument slots built with NumPy, the context array, `sigaction` through
ctypes). Once a launcher has run with some argument types, `CpuRuntime.fast_launch` makes a
`FastLaunch` for them: a table of int64 words saying, per kernel parameter, what the argument
must be (its exact Python type; for an array its dtype object, number of dimensions, whether it
must be writable and contiguous in its last dimension) and where it goes in the argument slots.
`simt_fast` (LLVM IR below, compiled once per process, called as a builtin function made of
`simt_fast_o`: a call costs what any builtin's does, not a ctypes conversion) reads the launch's
argument tuple against that table with the GIL held; if everything matches it writes the slots
(data pointer, shape, strides in elements; a scalar's value), resets the launch's context from
a template, arms Ctrl-C (`cpu_interrupt`'s `simt_arm`), releases the GIL, runs every block
(on the calling thread, or shared with the pool's workers: `cpu_pool.simt_pool_run`) and
returns 0. If anything differs it runs nothing and returns 1, and the
caller takes the ordinary path, whose checks and error messages are the user's. So the fast
path only skips what its table guarantees: the types the specialisation was compiled for (and
so the checks `Kernel` makes of them), the launch shape's limits (fixed per launcher) and the
variant (contiguity, block shape).

It reads CPython's and NumPy's object layouts directly (an object's type at 8, a tuple's items
from 24; an ndarray's data, number of dimensions, shape, strides, dtype and flags at 16, 24, 32,
40, 56 and 64 bytes; a NumPy scalar's value at 16). `driver()` checks every one of these
against the running interpreter and NumPy once; where one differs there is no fast path and
every launch takes the ordinary one. A device array of this runtime (`simt.to_device`) is
passed as its host buffer (`FastLaunch.unwrapped`, in Python before the native call).

The table's words: 0 busy (a launch of this entry is running: another thread's launch takes the
ordinary path), 1 the kernel's entry, 2 the argument slots, 3 the context, 4 the context's
template, 5 the number of blocks, 6 the number of arguments, 7 the number of records, 8 the
pool's state (0: the calling thread alone), 9 blocks per chunk, 10 `simt_pool_run`'s address,
11 where the table's exact shapes start (0: none); then 8 words a parameter: kind, argument
position, first slot, type object, the dtype object (arrays) or `True` (bools), number of
dimensions, item size, flags (arrays: 1 must be writable, 2 contiguous; ints: 4 the value
fits int32, as the specialisation's key says, else it must not). A table of exact shapes
(`table(exact=True)`: index expressions' launches, whose grids and buffers are made for
their inputs' shapes) ends with MAX_DIMS words a parameter, the extents each array must have.
"""

from __future__ import annotations

import ctypes
import sys
import threading
from collections.abc import Callable
from typing import Any

import numpy as np

from ..array import DeviceArray
from ..backends.llvm_abi import CONTEXT_WORDS, INTERRUPT_WORD
from ..ir import Function, Hidden
from ..types import BOOL, FLOAT32, FLOAT64, INT32, INT64, ArrayType, scalar_of_dtype

HEADER = 12
RECORD = 8
MAX_DIMS = 8  # extents a record of a table of exact shapes holds (`table(exact=True)`)
ARRAY, INT32_KIND, INT64_KIND, FLOAT32_KIND, FLOAT64_KIND, BOOL_KIND = 1, 2, 3, 4, 5, 6
# a NumPy scalar (`np.float32(0.5)`, `np.int64(3)`, `np.bool_(True)`) whose parameter has its
# own type: its value's bytes (`PyArrayScalar_VAL`: right after the object's header, at 16)
# are the slot's, copied as they are
SCALAR_BYTES = 7
MUST_WRITE, CONTIGUOUS = 1, 2  # an array's flags
INT32_RANGE = 4  # an int's flag: the value must fit int32 (else: must not)
# what `simt_fast` returns
RAN, OTHER_ARGUMENTS, BUSY, FAILED = 0, 1, 2, 3
_NO_ERROR = np.iinfo(np.int64).max
_WRITEABLE = 0x0400  # NPY_ARRAY_WRITEABLE

DRIVER = """
declare i64 @PyLong_AsLongLongAndOverflow(ptr, ptr)
declare double @PyFloat_AsDouble(ptr)
declare ptr @PyEval_SaveThread()
declare void @PyEval_RestoreThread(ptr)
declare i64 @simt_arm()
declare ptr @PyLong_FromLongLong(i64)
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
@PyTuple_Type = external global i8

; a builtin function's C body (METH_O): `self` is the table (a NumPy array: its data at 16), the
; argument the launch's argument tuple
define ptr @simt_fast_o(ptr %self, ptr %args) {
entry:
  %tp = getelementptr i8, ptr %self, i64 16
  %tab = load ptr, ptr %tp, align 8
  %atp = getelementptr i8, ptr %args, i64 8
  %at = load ptr, ptr %atp, align 8
  %tuple = icmp eq ptr %at, @PyTuple_Type
  br i1 %tuple, label %go, label %other
go:
  %r = call i64 @simt_fast(ptr %args, ptr %tab)
  %o = call ptr @PyLong_FromLongLong(i64 %r)
  ret ptr %o
other:
  %o1 = call ptr @PyLong_FromLongLong(i64 1)
  ret ptr %o1
}

define i64 @simt_fast(ptr %args, ptr %tab) {
entry:
  %ovp = alloca i32, align 4
  %cx = cmpxchg ptr %tab, i64 0, i64 1 acquire monotonic
  %got = extractvalue { i64, i1 } %cx, 1
  br i1 %got, label %start, label %busy
busy:
  ret i64 2
start:
  %np = getelementptr i8, ptr %args, i64 16
  %n = load i64, ptr %np, align 8
  %nexpp = getelementptr i64, ptr %tab, i64 6
  %nexp = load i64, ptr %nexpp, align 8
  %neq = icmp eq i64 %n, %nexp
  br i1 %neq, label %pre, label %miss
miss:
  store atomic i64 0, ptr %tab release, align 8
  ret i64 1
pre:
  %slotsp = getelementptr i64, ptr %tab, i64 2
  %slots = load ptr, ptr %slotsp, align 8
  %nrecp = getelementptr i64, ptr %tab, i64 7
  %nrec = load i64, ptr %nrecp, align 8
  %items = getelementptr i8, ptr %args, i64 24
  %xoffp = getelementptr i64, ptr %tab, i64 11
  %xoff = load i64, ptr %xoffp, align 8
  %exactshapes = icmp ne i64 %xoff, 0
  br label %loop
loop:
  %i = phi i64 [0, %pre], [%i1, %next]
  %more = icmp slt i64 %i, %nrec
  br i1 %more, label %body, label %run
body:
  %roff = mul i64 %i, 8
  %ridx = add i64 %roff, @HEADER@
  %r = getelementptr i64, ptr %tab, i64 %ridx
  %kind = load i64, ptr %r, align 8
  %aip = getelementptr i64, ptr %r, i64 1
  %ai = load i64, ptr %aip, align 8
  %fp = getelementptr i64, ptr %r, i64 2
  %first = load i64, ptr %fp, align 8
  %etp = getelementptr i64, ptr %r, i64 3
  %etype = load i64, ptr %etp, align 8
  %x4p = getelementptr i64, ptr %r, i64 4
  %x4 = load i64, ptr %x4p, align 8
  %objp = getelementptr ptr, ptr %items, i64 %ai
  %obj = load ptr, ptr %objp, align 8
  %otp = getelementptr i8, ptr %obj, i64 8
  %otype = load i64, ptr %otp, align 8
  %teq = icmp eq i64 %otype, %etype
  %slot = getelementptr i64, ptr %slots, i64 %first
  br i1 %teq, label %dispatch, label %miss
dispatch:
  switch i64 %kind, label %miss [ i64 1, label %arr
                                  i64 2, label %int
                                  i64 3, label %int
                                  i64 4, label %flt
                                  i64 5, label %flt
                                  i64 6, label %bool
                                  i64 7, label %raw ]
arr:
  %dp = getelementptr i8, ptr %obj, i64 56
  %descr = load i64, ptr %dp, align 8
  %deq = icmp eq i64 %descr, %x4
  %ndp = getelementptr i8, ptr %obj, i64 24
  %nd32 = load i32, ptr %ndp, align 4
  %nd = sext i32 %nd32 to i64
  %endp = getelementptr i64, ptr %r, i64 5
  %end = load i64, ptr %endp, align 8
  %ndeq = icmp eq i64 %nd, %end
  %okd = and i1 %deq, %ndeq
  %flp = getelementptr i8, ptr %obj, i64 64
  %fl32 = load i32, ptr %flp, align 4
  %wantp = getelementptr i64, ptr %r, i64 7
  %want = load i64, ptr %wantp, align 8
  %needw = and i64 %want, 1
  %isw32 = and i32 %fl32, @WRITEABLE@
  %isw = icmp ne i32 %isw32, 0
  %nowrite = icmp eq i64 %needw, 0
  %wok = or i1 %isw, %nowrite
  %ok1 = and i1 %okd, %wok
  br i1 %ok1, label %arr_pack, label %miss
arr_pack:
  %datap = getelementptr i8, ptr %obj, i64 16
  %data = load i64, ptr %datap, align 8
  store i64 %data, ptr %slot, align 8
  %dimsp = getelementptr i8, ptr %obj, i64 32
  %dims = load ptr, ptr %dimsp, align 8
  %stp = getelementptr i8, ptr %obj, i64 40
  %strides = load ptr, ptr %stp, align 8
  %isp = getelementptr i64, ptr %r, i64 6
  %isz = load i64, ptr %isp, align 8
  br label %dimloop
dimloop:
  %d = phi i64 [0, %arr_pack], [%d1, %dimbody]
  %size = phi i64 [1, %arr_pack], [%size1, %dimbody]
  %q = phi i64 [1, %arr_pack], [%qd, %dimbody]
  %ext = phi i64 [1, %arr_pack], [%dim, %dimbody]
  %dmore = icmp slt i64 %d, %nd
  br i1 %dmore, label %dimcheck, label %arr_done
dimcheck:
  %dimp = getelementptr i64, ptr %dims, i64 %d
  %dim = load i64, ptr %dimp, align 8
  %sp = getelementptr i64, ptr %strides, i64 %d
  %sb = load i64, ptr %sp, align 8
  %rem = srem i64 %sb, %isz
  %exact = icmp eq i64 %rem, 0
  ; a table of exact shapes (word 11: where its extents start): the extent it requires
  %xrec = mul i64 %i, @MAX_DIMS@
  %xat = add i64 %xrec, %d
  %xidx = add i64 %xoff, %xat
  %xp = getelementptr i64, ptr %tab, i64 %xidx
  %wantdimp = select i1 %exactshapes, ptr %xp, ptr %dimp
  %wantdim = load i64, ptr %wantdimp, align 8
  %sameext = icmp eq i64 %dim, %wantdim
  %dimok = and i1 %exact, %sameext
  br i1 %dimok, label %dimbody, label %miss
dimbody:
  %qd = sdiv i64 %sb, %isz
  %o1 = add i64 %d, 1
  %shp = getelementptr i64, ptr %slot, i64 %o1
  store i64 %dim, ptr %shp, align 8
  %o2 = add i64 %o1, %nd
  %stq = getelementptr i64, ptr %slot, i64 %o2
  store i64 %qd, ptr %stq, align 8
  %size1 = mul i64 %size, %dim
  %d1 = add i64 %d, 1
  br label %dimloop
arr_done:
  %qone = icmp eq i64 %q, 1
  %short = icmp sle i64 %ext, 1
  %unit = or i1 %qone, %short
  %wantu = and i64 %want, 2
  %wu = icmp ne i64 %wantu, 0
  %ueq = icmp eq i1 %unit, %wu
  %small = icmp slt i64 %size, 2147483648
  %ok2 = and i1 %ueq, %small
  br i1 %ok2, label %next, label %miss
int:
  %v = call i64 @PyLong_AsLongLongAndOverflow(ptr %obj, ptr %ovp)
  %ov = load i32, ptr %ovp, align 4
  %noov = icmp eq i32 %ov, 0
  %lo = icmp sge i64 %v, -2147483648
  %hi = icmp slt i64 %v, 2147483648
  %in32 = and i1 %lo, %hi
  %is32k = icmp eq i64 %kind, 2
  %rangep = getelementptr i64, ptr %r, i64 7
  %range = load i64, ptr %rangep, align 8
  %want32 = icmp ne i64 %range, 0
  %fits = icmp eq i1 %in32, %want32
  %iok = and i1 %noov, %fits
  br i1 %iok, label %int_store, label %miss
int_store:
  br i1 %is32k, label %st32, label %st64
st32:
  %t = trunc i64 %v to i32
  store i32 %t, ptr %slot, align 4
  br label %next
st64:
  store i64 %v, ptr %slot, align 8
  br label %next
flt:
  %f = call double @PyFloat_AsDouble(ptr %obj)
  %is32f = icmp eq i64 %kind, 4
  br i1 %is32f, label %stf, label %std
stf:
  %ff = fptrunc double %f to float
  store float %ff, ptr %slot, align 4
  br label %next
std:
  store double %f, ptr %slot, align 8
  br label %next
raw:
  %payp = getelementptr i8, ptr %obj, i64 16
  %rszp = getelementptr i64, ptr %r, i64 6
  %rsz = load i64, ptr %rszp, align 8
  call void @llvm.memcpy.p0.p0.i64(ptr %slot, ptr %payp, i64 %rsz, i1 false)
  br label %next
bool:
  %objint = ptrtoint ptr %obj to i64
  %bt = icmp eq i64 %objint, %x4
  %b8 = zext i1 %bt to i8
  store i8 %b8, ptr %slot, align 1
  br label %next
next:
  %i1 = add i64 %i, 1
  br label %loop
run:
  %ctxp = getelementptr i64, ptr %tab, i64 3
  %ctx = load ptr, ptr %ctxp, align 8
  %tmplp = getelementptr i64, ptr %tab, i64 4
  %tmpl = load ptr, ptr %tmplp, align 8
  call void @llvm.memcpy.p0.p0.i64(ptr %ctx, ptr %tmpl, i64 @CONTEXT_BYTES@, i1 false)
  %count = call i64 @simt_arm()
  %iw = getelementptr i64, ptr %ctx, i64 @INTERRUPT_WORD@
  store i64 %count, ptr %iw, align 8
  %entp = getelementptr i64, ptr %tab, i64 1
  %ent = load ptr, ptr %entp, align 8
  %nbp = getelementptr i64, ptr %tab, i64 5
  %nb = load i64, ptr %nbp, align 8
  %poolp = getelementptr i64, ptr %tab, i64 8
  %pool = load ptr, ptr %poolp, align 8
  %pooled = icmp ne ptr %pool, null
  %ts = call ptr @PyEval_SaveThread()
  br i1 %pooled, label %shared, label %alone
shared:
  %perp = getelementptr i64, ptr %tab, i64 9
  %per = load i64, ptr %perp, align 8
  %fnp = getelementptr i64, ptr %tab, i64 10
  %fn = load ptr, ptr %fnp, align 8
  %took = call i32 %fn(ptr %pool, ptr %ent, ptr %slots, ptr %ctx, i64 %nb, i64 %per)
  %tookit = icmp ne i32 %took, 0
  br i1 %tookit, label %ran, label %alone
alone:
  call void %ent(ptr %slots, ptr %ctx, i64 0, i64 %nb)
  br label %ran
ran:
  call void @PyEval_RestoreThread(ptr %ts)
  %err = load atomic i64, ptr %ctx monotonic, align 8
  %clean = icmp eq i64 %err, @NO_ERROR@
  br i1 %clean, label %done, label %failed
done:
  store atomic i64 0, ptr %tab release, align 8
  ret i64 0
failed:
  ret i64 3
}
""".replace("@WRITEABLE@", str(_WRITEABLE)).replace(
    "@CONTEXT_BYTES@", str(8 * CONTEXT_WORDS)
).replace("@INTERRUPT_WORD@", str(INTERRUPT_WORD)).replace("@NO_ERROR@", str(_NO_ERROR)).replace(
    "@HEADER@", str(HEADER)
).replace("@MAX_DIMS@", str(MAX_DIMS))

_API = ("PyLong_AsLongLongAndOverflow", "PyFloat_AsDouble", "PyEval_SaveThread",
        "PyEval_RestoreThread", "PyLong_FromLongLong", "PyTuple_Type")  # fmt: skip
METH_O = 0x0008
_lock = threading.Lock()
_driver: Any = None  # the method definition of `simt_fast_o`, or False: none here
_keep: Any = None


class _MethodDef(ctypes.Structure):
    """CPython's `PyMethodDef`: how a builtin function's C body is called."""

    _fields_ = [("ml_name", ctypes.c_char_p), ("ml_meth", ctypes.c_void_p),
                ("ml_flags", ctypes.c_int), ("ml_doc", ctypes.c_char_p)]  # fmt: skip


_new_function = ctypes.pythonapi.PyCFunction_NewEx
_new_function.argtypes = [ctypes.c_void_p, ctypes.py_object, ctypes.py_object]
_new_function.restype = ctypes.py_object


def _layouts_match() -> bool:
    """Whether this interpreter and NumPy lay their objects out as `simt_fast` reads them."""
    if sys.maxsize != 2**63 - 1 or getattr(sys, "_is_gil_enabled", lambda: True)() is False:
        return False
    word = ctypes.c_int64.from_address
    a = np.zeros((3, 5), np.float32)[:, ::2]
    t = (a, 7)
    try:
        return (
            word(id(t) + 8).value == id(tuple)
            and word(id(t) + 16).value == 2
            and word(id(t) + 24).value == id(a)
            and word(id(t) + 32).value == id(t[1])
            and word(id(a) + 8).value == id(np.ndarray)
            and word(id(a) + 16).value == a.ctypes.data
            and ctypes.c_int32.from_address(id(a) + 24).value == a.ndim
            and list((ctypes.c_int64 * 2).from_address(word(id(a) + 32).value)) == [3, 3]
            and list((ctypes.c_int64 * 2).from_address(word(id(a) + 40).value)) == [20, 8]
            and word(id(a) + 56).value == id(a.dtype)
            and ctypes.c_int32.from_address(id(a) + 64).value == a.flags.num
            and bool(a.flags.num & _WRITEABLE)
            and word(id(1.5) + 8).value == id(float)
            and all(ctypes.string_at(id(v) + 16, v.itemsize) == v.tobytes()
                    for v in (np.float32(1.5), np.int64(-(2**40)), np.bool_(True)))
        )
    except (ValueError, OSError):
        return False


def driver(jit: Callable[[str], Callable[[str], int]], arm: int) -> Any:
    """The compiled `simt_fast_o`'s method definition (a builtin function is made of it per
    table: `function(table)`), or None where there is no fast path: the object layouts differ
    (`_layouts_match`) or Ctrl-C has no native arming (`arm` is 0)."""
    global _driver, _keep
    with _lock:
        if _driver is None:
            _driver = False
            if arm and _layouts_match():
                import llvmlite.binding as llvm

                for name in _API:
                    obj = getattr(ctypes.pythonapi, name)
                    if name == "PyTuple_Type":  # a data symbol: its address
                        addr = ctypes.addressof(ctypes.c_char.in_dll(ctypes.pythonapi, name))
                    else:
                        addr = ctypes.cast(obj, ctypes.c_void_p).value or 0
                    llvm.add_symbol(name, addr)
                llvm.add_symbol("simt_arm", arm)
                _keep = jit(DRIVER)
                _driver = _MethodDef(b"simt_fast", _keep("simt_fast_o"), METH_O, None)
                if id(tuple) != ctypes.addressof(ctypes.c_char.in_dll(ctypes.pythonapi,
                                                                      "PyTuple_Type")):
                    _driver = False  # fmt: skip
    return _driver or None


def function(method: Any, table: np.ndarray) -> Callable[[tuple[Any, ...]], int]:
    """A builtin function running `simt_fast` on `table` (kept alive by the function):
    `f(args)` with the launch's argument tuple returns what `simt_fast` returns."""
    return _new_function(ctypes.addressof(method), table, None)  # type: ignore[no-any-return]


class FastLaunch:
    """One launcher's launches with one set of argument types: `fn(args)` runs a launch with
    the argument tuple `args` and returns `RAN`, `OTHER_ARGUMENTS` (nothing ran: take the
    ordinary path), `BUSY` (this entry is running on another thread: take the ordinary path) or
    `FAILED` (the kernel stopped: `failure()` raises why)."""

    # a kernel whose threads may raise: its failure buffer, this entry's own (its slots are
    # bound once), and `check(words)`, which raises its threads' errors and zeroes it (both
    # set by `Kernel`); launched by `run_raising`
    words: np.ndarray | None = None
    check: Callable[[np.ndarray], None] | None = None
    # the argument positions that held this runtime's device arrays (`simt.to_device`,
    # `cuda.device_array`), whose host buffers the table was made for: `unwrapped(args)`
    unwrap: tuple[int, ...] = ()

    def __init__(
        self,
        runtime: Any,
        method: Any,
        table: np.ndarray,
        keep: tuple[Any, ...],
        failure: Callable[[], None],
    ) -> None:
        self.runtime = runtime
        self.fn = function(method, table)
        self._table = table
        self._keep = keep
        self._failure = failure
        self._own = threading.Lock()  # `run_raising`

    def unwrapped(self, args: tuple[Any, ...]) -> tuple[Any, ...] | None:
        """`args` with the device arrays at `unwrap` as their host buffers (a device array of a
        runtime whose memory is the host's holds an ndarray of its own shape and strides), or
        None where one of them is not a device array of this runtime: the ordinary path then
        says what it is."""
        out = list(args)
        try:
            for k in self.unwrap:
                a = out[k]
                if type(a) is not DeviceArray or a.runtime is not self.runtime:
                    return None
                out[k] = a.buf
        except IndexError:  # too few arguments
            return None
        return tuple(out)

    def run_raising(self, args: tuple[Any, ...]) -> int:
        """`fn(args)` for a kernel with a failure buffer (`words`), the errors of its threads
        that raised then raised (`check`). The buffer is read after the native entry is free
        again, so the launch holds `_own` until then: a launch on another Python thread
        meanwhile gets `BUSY` (the ordinary path, with a buffer of its own)."""
        assert self.words is not None and self.check is not None
        if not self._own.acquire(blocking=False):
            return BUSY
        try:
            status = int(self.fn(args))
            if status == FAILED:
                self.words[:] = 0  # the launch stopped: `failure()` says why, as it would
            elif status == RAN and self.words[0]:
                self.check(self.words)
            return status
        finally:
            self._own.release()

    def failure(self) -> None:
        """Raise the error of the launch that returned `FAILED`, and free the entry."""
        try:
            self._failure()
        finally:
            self._table[0] = 0


def _own_type(v: Any, t: Any) -> bool:
    """Whether `v` is a real NumPy scalar whose parameter has its own type (its bytes are the
    slot's): `np.float32` for a float32, not an `np.uint8` that the kernel computes in int32."""
    return (isinstance(v, np.generic) and v.dtype.kind in "biuf" and v.dtype.isnative
            and scalar_of_dtype(v.dtype) == t)  # fmt: skip


def table(
    fn: Function,
    layout: list[int],
    values: list[Any],
    written: set[str],
    units: frozenset[str],
    exact: bool = False,
) -> np.ndarray | None:
    """The table of a fast launch with these argument values (see the module's doc; the
    caller fills in words 1-5 and 8-10), or None where a parameter's argument is of a kind
    `simt_fast` does not read (a complex number, a NumPy scalar its parameter converts, such
    as an `np.uint8` to int32, a device array, ...).
    `exact`: each array must also have the shape it has in `values` (at most MAX_DIMS
    dimensions, else None)."""
    words = [0, 0, 0, 0, 0, 0, len(values), 0] + [0] * (HEADER - 8)
    extents: list[int] = []
    for p, first in zip(fn.params, layout):
        if p.hidden is Hidden.FAILURES:
            continue  # the launch's failure buffer: its slots are the same at every launch
        if p.part or p.index < 0:  # a complex number's part; a hidden array (the arena)
            return None
        words[7] += 1
        t = p.value.type
        v = values[p.index]
        if isinstance(t, ArrayType):
            if type(v) is not np.ndarray or v.dtype.kind == "c" or not v.dtype.isnative:
                return None
            if v.ndim != t.ndim or v.size >= 2**31:
                return None
            flags = (MUST_WRITE if p.name in written else 0) | (
                CONTIGUOUS if p.name in units else 0
            )
            words += [ARRAY, p.index, first, id(np.ndarray), id(v.dtype), v.ndim,
                      v.dtype.itemsize, flags]  # fmt: skip
            if exact and v.ndim > MAX_DIMS:
                return None
            extents += [*v.shape, *[0] * (MAX_DIMS - v.ndim)]
            continue
        kind = {
            (int, INT32): INT32_KIND, (int, INT64): INT64_KIND, (float, FLOAT32): FLOAT32_KIND,
            (float, FLOAT64): FLOAT64_KIND, (bool, BOOL): BOOL_KIND,
        }.get((type(v), t))  # fmt: skip
        if kind is None and _own_type(v, t):
            words += [SCALAR_BYTES, p.index, first, id(type(v)), 0, 0, v.itemsize, 0]
            extents += [0] * MAX_DIMS
            continue
        if kind is None:
            return None
        # an int argument's specialisation depends on whether it fits int32 (`Kernel._key`),
        # whatever width its parameter has (Numba's typing makes every int an int64)
        in32 = INT32_RANGE if type(v) is int and -(2**31) <= v < 2**31 else 0
        words += [kind, p.index, first, id(type(v)), id(True), 0, 0, in32]
        extents += [0] * MAX_DIMS
    if exact:
        words[11] = len(words)
        words += extents
    return np.array(words, np.int64)
