"""One REPL session: per-thread state, host globals, and the compile-each-input loop.

An input that reads nothing per-thread (`import math`, `K = 30`, a `def`) runs once in
CPython and its names become globals that later kernels see as known values. Any other input
is compiled to a kernel over all threads: first translated once without stores (the "probe"),
to learn what each assigned name is (a typed per-thread value, a known value, or something
that cannot be kept), then compiled for real with a store for each per-thread name into a
fresh array. The fresh arrays replace the old ones only when the launch succeeds, so a failed
or interrupted input leaves the session as it was.
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import copy
import inspect
import io
import linecache
import os
import re
import time
import traceback
from typing import Any

import numpy as np

from .. import lang
from .. import types as T
from ..errors import CompileError, KernelError, LaunchError, SimtError
from ..frontend.checkpoint import Checkpoint, RaiseCode
from ..runtime import printing, registry
from . import analysis, codegen, files, phases
from .output import Echo, Sink, group

BLOCK = 256
_FIELDS = {"ByteStr": ("start", "length"), "File": ("pos", "size", "base")}
PER_THREAD_PATHS = 1 << 22  # threads whose read paths the host computes one by one
THREAD_NAMES = ("tid", "threadIdx")
# the launch's names in block mode too: like `tid`, each input binds them afresh, so that an
# input assigning one changes it for the rest of that input only
BLOCK_NAMES = ("blockIdx", "blockDim")
BID = "_simt_bid"  # the block's index, where its row of each shared array is
DONE = "_simt_done"  # each thread's flag: it finished the input (a raising thread did not)


class Session:
    """The state of one REPL: `run(text)` executes one input and writes to `out`."""

    def __init__(self, out: Sink, threads: int = 1 << 20, backend: str | None = None) -> None:
        self.out = out
        self.count = 0
        self._host_ran = False  # this input ran code on the host (see `_interrupted`)
        self._in_place: list[str] = []  # buffers the running kernel writes in place
        self.timing = False
        if backend is not None:
            registry.use(backend)
        self.backend = registry.current().name
        self._noted: set[str] = set()  # backends whose narrower numbers were announced
        self._note: str | None = None
        self._adopt_widest()
        self.threads = threads
        self.bound: dict[str, np.ndarray] = {}
        self.explain_tid: int | None = None  # %explain: the thread whose path the next input shows
        self.block: int | None = None  # %block: threads per block (None: one flat launch)
        self.heap: int | None = None  # %heap: bytes per thread for lists (None: the default)
        self.stdin: str | None = None  # %stdin FILE: input() gives each thread a line of it
        self._deferred = False  # a phase before a file barrier: its prints wait for the next
        self._carried: list[tuple[int, str]] = []  # what the threads printed in earlier phases
        self.reset()

    # ------------------------------------------------------------------ state
    def reset(self) -> None:
        """Forget every variable and shared buffer."""
        import simt

        self.state: dict[str, np.ndarray] = {}
        self.bound = {}
        self.objects: dict[str, tuple[str, int]] = {}  # files and byte strings: (class, file)
        self.shared: dict[str, np.ndarray] = {}  # %block: `name = shared(n)`, one row a block
        # files open for writing, left open by earlier inputs until `f.close()`: name ->
        # thread -> path (what they write lands when each input ends, appended)
        self.open_writes: files.Handles = {}
        # per-thread files (`open(f"in/{tid}.txt")`) laid end to end: key in `file_data` ->
        # each thread's first byte and end byte in them
        self.file_index: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        self.file_paths: list[str] = []
        self.file_data: dict[str, tuple[np.ndarray, int]] = {}
        self._extra: tuple[str, ...] = ()
        self._rewritten = False
        self._files_in = False
        self._checkpoint = Checkpoint({}, False)  # the `_simt_cp` of the kernel compiled next
        self.globals: dict[str, Any] = {
            "__name__": "__simt_repl__",
            "__builtins__": builtins,
            "simt": simt,
            "nthreads": self.threads,
            "numThreads": self.threads,
        }

    def set_threads(self, n: int) -> None:
        """Change the thread count; per-thread variables are dropped (their sizes change)."""
        if self.block is not None and n % self.block:
            raise ValueError(
                f"{n} threads do not make whole blocks of {self.block}; choose a multiple of "
                f"{self.block} (or %block off first)"
            )
        limit = registry.get(self.backend).max_threads
        if n > limit:
            raise ValueError(
                f"{n} threads are more than one launch runs on {self.backend} ({limit}); "
                f"choose at most {limit} (or another backend with %backend)"
            )
        need = n * 8 * 4  # an int64 variable, its next value, and room for the outputs
        if need > _free_memory():
            raise ValueError(
                f"{n} threads need {need / 2**30:.1f} GiB for each per-thread variable, more "
                f"than the {_free_memory() / 2**30:.1f} GiB of memory free; choose fewer"
            )
        self.threads = n
        self.state = {}
        self.objects = {}
        self.shared = {}
        self.open_writes = {}
        self.globals["nthreads"] = self.globals["numThreads"] = n

    def set_block(self, size: int | None) -> None:
        """`%block`: run inputs in blocks of `size` threads that can cooperate (`syncthreads()`,
        `shared(n)`), or as one flat launch again (None). Shared arrays are dropped."""
        if size is not None:
            if not 1 <= size <= 1024:
                raise ValueError("a block has 1 to 1024 threads")
            if self.threads % size:
                raise ValueError(
                    f"the {self.threads} threads do not make whole blocks of {size}; "
                    f"set %threads to a multiple of {size} first"
                )
        self.block = size
        self.shared = {}
        for name in ("blockIdx", "blockDim"):
            self.globals.pop(name, None)

    def set_backend(self, name: str) -> None:
        """Run later inputs on backend `name`."""
        registry.use(name)
        self.backend = registry.current().name
        self._adopt_widest()

    def _adopt_widest(self) -> None:
        """Numbers are Python's (int64, float64), or the widest the backend's device has (a
        WebGPU adapter without shader-int64 / shader-f64): int32 and float32 there, said once
        per backend (before the next input's output). Variables kept from a backend with
        wider numbers are converted."""
        rt = registry.current()
        i64, f64 = rt.has_int64(), rt.has_float64()
        self.int_dtype = np.dtype(np.int64 if i64 else np.int32)
        self.float_dtype = np.dtype(np.float64 if f64 else np.float32)
        self.fp64 = f64
        for k, a in getattr(self, "state", {}).items():
            if a.dtype.kind in "iu" and a.dtype.itemsize > self.int_dtype.itemsize:
                self.state[k] = a.astype(self.int_dtype)
            elif a.dtype.kind == "f" and a.dtype.itemsize > self.float_dtype.itemsize:
                self.state[k] = a.astype(self.float_dtype)
        missing = [t for t, ok in (("int64", i64), ("float64", f64)) if not ok]
        if missing and self.backend not in self._noted:
            self._noted.add(self.backend)
            device = rt.info().get("adapter", self.backend)
            self._note = (
                f"note: {self.backend}'s device ({device}) has no {' and no '.join(missing)}: "
                f"numbers here are {self.int_dtype} and {self.float_dtype} (integers wrap at "
                f"2**{8 * self.int_dtype.itemsize - 1})"
            )

    def bind(self, name: str, shape: tuple[int, ...], dtype: np.dtype) -> None:
        """A shared buffer of zeros, visible to every thread under `name`."""
        if not name.isidentifier():
            raise ValueError(f"{name!r} is not a valid name")
        self.state.pop(name, None)
        self.globals.pop(name, None)
        self.bound[name] = np.zeros(shape, dtype)

    def bind_array(self, name: str, array: np.ndarray) -> None:
        """Bind an existing NumPy array under `name`: every thread sees it, and what the
        threads write lands in `array` itself after each input (the library form of `%bind`,
        for data the program already has)."""
        if not name.isidentifier():
            raise ValueError(f"{name!r} is not a valid name")
        if not isinstance(array, np.ndarray):
            raise ValueError(f"bind_array takes a NumPy array, not a {type(array).__name__}")
        self.state.pop(name, None)
        self.globals.pop(name, None)
        self.bound[name] = array

    def values(self, name: str) -> np.ndarray:
        """Each thread's value of the per-thread variable `name` (one row a thread), or a
        bound array; KeyError when the session has no such variable."""
        if name in self.bound:
            return self.bound[name]
        return self.state[name]

    def thread_names(self) -> set[str]:
        """The names whose values depend on the thread."""
        names = set(THREAD_NAMES) | set(self.state) | set(self.bound) | set(self.objects)
        names |= set(self.open_writes)
        if self.block is not None:
            names |= {"blockIdx", "syncthreads", "shared"} | set(self.shared)
        return names

    # ------------------------------------------------------------------ running
    def run(self, text: str) -> bool:
        """Execute one input; False when it failed (the session is kept either way)."""
        if not text.strip():
            return True
        if self._note is not None:
            self.out.warning(self._note)
            self._note = None
        self.count += 1
        filename = f"<input {self.count}>"
        start = time.perf_counter()
        ok = False
        before = dict(self.globals)
        self._host_ran = False
        self._in_place = []
        try:
            ok = self._run(text, filename)
        except KeyboardInterrupt:
            self.out.error(self._interrupted(before))
        except MemoryError:
            self.out.error(
                f"out of memory: this input's per-thread values for {self.threads} threads do "
                "not fit (variables are unchanged); use fewer threads (%threads N), or drop "
                "variables with %reset"
            )
        except Exception as e:  # noqa: BLE001 - a bug of the REPL must not end the session
            if os.environ.get("SIMT_INTERNAL_ERRORS") == "1":
                raise
            self.out.error(
                f"internal error in simt's REPL: {type(e).__name__}: {e} (this is a bug in simt;"
                " SIMT_INTERNAL_ERRORS=1 shows the traceback)"
            )
        if self.timing:
            self.out.warning(f"({time.perf_counter() - start:.3f} s)")
        return ok

    def _interrupted(self, before: dict[str, Any]) -> str:
        """What Ctrl-C's message says changed: the host names an abandoned input had already
        bound (what ran on the host stays done) and the buffers a kernel was writing in place.
        A kernel's own results replace variables only when it finishes, so those never
        change."""
        gone = object()
        changed = sorted(
            n for n in set(before) | set(self.globals)
            if not n.startswith("__") and n != "_"
            and before.get(n, gone) is not self.globals.get(n, gone)
        )  # fmt: skip
        said = []
        if changed:
            said.append(f"the part that ran on the host had already changed {', '.join(changed)}")
        elif self._host_ran:
            said.append("the part that ran on the host bound no name, but what it changed "
                        "in place stays changed")  # fmt: skip
        if self._in_place:
            said.append(f"{', '.join(self._in_place)} may be partly written")
        if not said:
            return "KeyboardInterrupt (the input was abandoned; variables are unchanged)"
        return "KeyboardInterrupt (the input was abandoned; " + "; ".join(said) + ")"

    def _run(self, text: str, filename: str) -> bool:
        try:
            tree = ast.parse(text, filename, "exec")
            compile(tree, filename, "exec")  # Python's own checks (`return` outside a def, ...)
        except SyntaxError as e:
            self.out.error(_syntax_error(e))
            return False
        _register(filename, text)
        if not self._block_names(tree, filename):
            return False
        if self.block is not None:
            kept, ok = self._shared_arrays(tree, filename)
            if not ok:
                return False
            if not kept.body:
                return True
            if len(kept.body) != len(tree.body):  # the shared arrays' lines become `pass`
                lines = text.split("\n")
                gone = [x for x in tree.body if x not in kept.body]
                if all(x.col_offset == 0 for x in gone) and len(
                    {x.lineno for x in tree.body}
                ) == len(tree.body):
                    for x in gone:
                        for k in range(x.lineno - 1, x.end_lineno or x.lineno):
                            lines[k] = "pass" if k == x.lineno - 1 else ""
                    text = "\n".join(lines)
                else:
                    text = ast.unparse(kept)
                tree = ast.parse(text, filename, "exec")
            try:
                at = phases.cuts(tree, filename, set(self.objects) | set(self.open_writes))
            except phases.Refused as e:
                self.out.error(f"CompileError: {e}")
                return False
            if at:
                return self._phases(phases.pieces(text, tree, at), filename)
        return self._one(text, filename, tree)

    def _phases(self, texts: list[str], filename: str) -> bool:
        """Run an input cut at its file barriers (see `phases`), phase after phase; when one
        fails the session is put back as it was before the input (files already written by
        an earlier phase stay written)."""
        saved = self._save()
        self._carried = []
        ok = False
        try:
            for k, text in enumerate(texts):
                self._deferred = k < len(texts) - 1
                tree = ast.parse(text, filename, "exec")
                if not self._one(text, filename, tree):
                    return False
            ok = True
        finally:
            self._deferred = False
            if not ok:
                self._restore(saved)
                self._in_place = []  # the buffers are put back too
            elif self._carried:  # the last phase ran on the host: show what threads printed
                group(self.threads, self._carried, None, self.out)
            self._carried = []
        return True

    def _save(self) -> tuple[Any, ...]:
        """What an input may change, to put back when a later phase of it fails."""
        return (
            dict(self.state),
            {k: v.copy() for k, v in self.bound.items()},
            {k: v.copy() for k, v in self.shared.items()},
            dict(self.objects),
            dict(self.globals),
            list(self.file_paths),
            dict(self.file_data),
            {k: dict(v) for k, v in self.open_writes.items()},
        )

    def _restore(self, saved: tuple[Any, ...]) -> None:
        (self.state, self.bound, self.shared, self.objects, g, self.file_paths,
         self.file_data, self.open_writes) = saved  # fmt: skip
        self.globals.clear()
        self.globals.update(g)

    def _one(self, text: str, filename: str, tree: ast.Module) -> bool:
        """Run one input (or one phase of it) once its block-level statements are handled."""
        shape = analysis.shape(tree)
        if not analysis.depends_on_thread(shape, self.thread_names() | {"open", "input"}):
            return self._host(tree, filename)
        for stmt in shape.hoisted:
            if not self._host(ast.Module([stmt], []), filename, echo=False):
                return False
        return self._kernel(text, filename, shape)

    def _block_names(self, tree: ast.Module, filename: str) -> bool:
        """False (with the error said) when a flat session's input uses block cooperation."""
        if self.block is not None:
            return True
        for n in ast.walk(tree):
            if isinstance(n, ast.Name) and n.id in ("syncthreads", "shared", "blockIdx"):
                if n.id in self.globals:
                    continue
                self.out.error(
                    f"{filename}:{n.lineno}: `{n.id}` is for threads that cooperate in blocks; "
                    "say how many threads a block has first, e.g. %block 256"
                )
                return False
        return True

    def _shared_arrays(self, tree: ast.Module, filename: str) -> tuple[ast.Module, bool]:
        """Make each top-level `name = shared(n[, dtype])` (or `simt.shared.array(...)`) a
        shared array that stays from input to input: one row per block, which the block's
        threads see as `name`. The other statements are returned."""
        rest: list[ast.stmt] = []
        for stmt in tree.body:
            if not (
                isinstance(stmt, ast.Assign)
                and isinstance(stmt.value, ast.Call)
                and len(stmt.targets) == 1
                and isinstance(stmt.targets[0], ast.Name)
                and ast.unparse(stmt.value.func) in ("shared", "simt.shared.array")
            ):
                rest.append(stmt)
                continue
            call = stmt.value
            name = stmt.targets[0].id
            try:
                expr = ast.Expression(ast.Tuple([*call.args], ast.Load()))
                args = eval(  # noqa: S307 - the user's own input, on the host
                    compile(ast.fix_missing_locations(expr), filename, "eval"), self.globals
                )
                kwargs = {
                    str(k.arg): eval(  # noqa: S307
                        compile(ast.Expression(k.value), filename, "eval"), self.globals
                    )
                    for k in call.keywords
                }
                shape, dtype = _shared_spec(*args, **kwargs)
            except Exception as e:  # noqa: BLE001 - the user's arguments: say what is wrong
                self.out.error(
                    f"{filename}:{stmt.lineno}: shared(n, dtype) needs a size (or shape) known "
                    f"on the host and a dtype such as float64: {type(e).__name__}: {e}"
                )
                return tree, False
            assert self.block is not None
            self.shared[name] = np.zeros((self.threads // self.block, *shape), dtype)
            for d in (self.state, self.bound, self.objects, self.globals):
                d.pop(name, None)
            self.out.warning(
                f"{name}: shared {' x '.join(map(str, shape))} {np.dtype(dtype)}, zeros, one per "
                f"block of {self.block} threads, kept from input to input"
            )
        return ast.Module(rest, []), True

    def _host(self, tree: ast.Module, filename: str, echo: bool = True) -> bool:
        """Run `tree` once in CPython; a last bare expression is echoed as Python's REPL does."""
        self._host_ran = True
        body = list(tree.body)
        last = body[-1] if echo and body and isinstance(body[-1], ast.Expr) else None
        if last is not None:
            body.pop()
        printed = io.StringIO()  # what the host code prints, shown when it returns
        try:
            with contextlib.redirect_stdout(printed):
                if body:
                    code = compile(ast.Module(body, []), filename, "exec")
                    exec(code, self.globals)  # noqa: S102 - the user's own input
                if last is not None:
                    expr = compile(ast.Expression(last.value), filename, "eval")
                    value = eval(expr, self.globals)  # noqa: S307 - the user's own input
                    if value is not None:
                        self.globals["_"] = value
                        print(repr(value), file=printed)
        except SimtError as e:
            self.out.text(printed.getvalue())
            self.out.error(f"{type(e).__name__}: {e}")
            return False
        except Exception as e:  # noqa: BLE001 - the user's own code failed: show it as Python would
            self.out.text(printed.getvalue())
            tb = e.__traceback__.tb_next if e.__traceback__ is not None else None
            self.out.error("".join(traceback.format_exception(type(e), e, tb)).rstrip("\n"))
            return False
        self.out.text(printed.getvalue())
        for name in list(self.globals):
            self.state.pop(name, None)  # a host value replaces a per-thread one
        for name in list(self.bound):
            if name in self.globals:
                del self.bound[name]
        return True

    # ------------------------------------------------------------------ kernels
    def _kernel(self, text: str, filename: str, shape: analysis.Shape) -> bool:
        echo = shape.echo and not analysis.is_print_call(shape.tree.body[-1])
        fast = analysis.fast_prints(shape.tree) if "print" not in self.globals else ()
        if self._deferred or self._carried:  # phases: every print is a record, in order
            echo = echo and not self._deferred
            fast = ()
        tree = shape.tree
        rewritten = files.needs_rewrite(tree, set(self.objects) | set(self.open_writes))
        records = 0  # file-record prints in the input (writes to files)
        self._closed_readers: set[str] = set()  # files the kernel staged, closed by `with`
        if rewritten:
            fast = ()  # a byte string prints through a record the host completes
            opened = list(self.file_paths)
            rw = files.Rewriter(
                opened, self._host_value, set(self.open_writes), self._per_thread_file,
                self._stdin_lines,
            )
            try:
                tree = rw.visit(copy.deepcopy(tree))
            except OSError as e:  # a per-thread path whose file cannot be read
                self.out.error(f"{type(e).__name__}: {e.strerror or e}")
                return False
            records = rw.records
            self._closed_readers = rw.staged_names
            if rw.no_stdin:
                self.out.error(
                    f"CompileError: {filename}:{rw.no_stdin[0].lineno}: input() gives each "
                    "thread a line of a text file: name it first with %stdin FILE (thread t "
                    "reads line t)"
                )
                return False
            if rw.varying:
                call = rw.varying[0]
                self.out.error(
                    f"CompileError: {filename}:{call.lineno}: open({ast.unparse(call.args[0])}) "
                    "reads a file whose path depends on the thread's variables; a path to read "
                    "is a literal, made of host values, or of the thread's index and host "
                    'values (open(f"in/{tid}.txt")): read one file and give each thread its '
                    'part with f.seek(...), or open per-thread paths for writing ("w")'
                )
                return False
            if records:  # each thread counts its records, so that a dropped one is noticed
                zero = ast.Assign([ast.Name(files.COUNT, ast.Store())], ast.Constant(0))
                tree.body.insert(0, ast.copy_location(zero, tree.body[0]))
            tree = ast.fix_missing_locations(tree)
            for path in opened[len(self.file_paths) :]:
                if path in self.file_index:  # per-thread files, laid end to end already
                    self.file_paths.append(path)
                    continue
                try:
                    self.file_data[path] = files.load(path)
                except OSError as e:
                    self.out.error(f"OSError: cannot open {path!r}: {e.strerror or e}")
                    return False
                self.file_paths.append(path)
        if rewritten:  # `f.seek(n)` is now an assignment of `f`
            shape = analysis.shape(tree)
            echo = echo and isinstance(tree.body[-1], ast.Expr)
        body = codegen.checkpoints(codegen.body(text, tree, echo, fast, exact=not rewritten))
        shown = [codegen.print_name(j) for j in range(len(fast))]
        if echo:
            shown.append(codegen.ECHO)
        self._echo_bytes: list[tuple[BytesAt, int]] = []  # echoed byte strings, their files
        state = dict(self.state)
        for w in shape.writes:
            # A host number that this input reads and reassigns is each thread's own copy (as
            # in a REPL per thread): loaded from an array, so that a loop may change it.
            v = self.globals.get(w)
            if w in shape.reads and isinstance(v, (bool, int, float)) and w not in state:
                dt = self.int_dtype if isinstance(v, int) else self.float_dtype
                state[w] = np.full(self.threads, v, np.bool_ if isinstance(v, bool) else dt)
        loads = [n for n in state if n in shape.reads]
        extra: list[str] = []
        for obj, (cls, idx) in self.objects.items():
            if obj in shape.reads:
                fields = _FIELDS[cls]
                loads += [f"{obj}__{f}" for f in fields]
                if cls == "ByteStr":
                    extra.append(f"{obj} = _simt_ByteStr(_simt_file{idx}, {obj}__start, "
                                 f"{obj}__length, {idx})")  # fmt: skip
                else:
                    extra.append(f"{obj} = _simt_File(_simt_file{idx}, {obj}__size, "
                                 f"{obj}__pos, {idx}, {obj}__base)")  # fmt: skip
        # the files' helpers go into the kernel's namespace where it makes file objects (they
        # rebind `_simt_int`: not for the header's lines alone, which are the session's ints)
        self._files_in = bool(extra)
        if self.block is not None:
            # (the block's row of a shared array is indexed by a name of ours: an input may
            # assign `blockIdx`)
            extra = [
                f"blockIdx = {BID} = _simt_int(_simt_block_idx.x)",
                f"blockDim = {self.block}",
                "threadIdx = _simt_int(_simt_thread_idx.x)",
                *(f"{w} = _simt_sh_{w}[{BID}]" for w in self.shared if w in shape.reads),
                *extra,
            ]
        # where statement 0 begins: what a thread raising inside it changed is told from
        # what the names held here (`frontend.checkpoint`)
        extra.append(f"{codegen.CHECKPOINT}({codegen.TID}, -1)")
        self._extra = tuple(extra)
        self._rewritten = rewritten
        bound = list(self.bound) + [f"_simt_file{i}" for i in range(len(self.file_paths))]
        bound += [f"_simt_f{part}{i}" for i, p in enumerate(self.file_paths)
                  if p in self.file_index for part in ("base", "end")]  # fmt: skip
        bound += [f"_simt_sh_{w}" for w in self.shared if w in shape.reads]
        n = self.threads
        block = min(BLOCK, n) if self.block is None else self.block
        grid = -(-n // block)
        guard = n if grid * block != n else None
        name = f"_simt_in{self.count}"
        raised = False  # some threads raised an exception nobody caught (reported above)
        lost: list[str] = []  # variables whose raising threads cannot keep their old values
        try:
            probe = self._probe(name, body, loads, bound, state)
            if echo and _printed_echo(probe.get(codegen.ECHO)):
                # a list, dict, set, view or string (or a tuple holding one): shown by print
                # records, as Python's REPL shows its repr (a converted print would come after
                # it: none are converted)
                body = codegen.body(text, tree, echo, (), exact=not rewritten)
                from ..frontend import strings

                shown_as = "repr({})" if strings.is_str(probe.get(codegen.ECHO)) else "{}"
                body.lines.append(f"print({shown_as.format(codegen.ECHO)})")
                body = codegen.checkpoints(body)
                shown = []
                probe = self._probe(name, body, loads, bound, state)
            launch = THREAD_NAMES + (BLOCK_NAMES if self.block is not None else ())
            writes = [w for w in shape.writes if w not in launch]
            probe = self._at_end(probe, len(body.assigns) - 1)
            stores, outs, known, notes, objects = self._classify(probe, writes, tree)
            layout = self._layout(probe, shown, stores, outs, notes)
            # a number known at compile time gets an array too: a thread that raises before
            # its assignment keeps its own value (`_kept`); not where nothing before its last
            # assignment can raise (`K = 3` first: every thread has it)
            for w, v in known.items():
                kdt = _known_dtype(v, self.int_dtype, self.float_dtype)
                last = max((k for k, ws in enumerate(body.assigns) if w in ws), default=-1)
                if kdt is not None and _plain_name(w) and last >= body.plain:
                    stores.append((w, w))
                    outs[w] = np.empty(n, kdt)
            for w, arr in outs.items():  # a thread that raises keeps the values it had
                if not _keep(self._old(w), arr):
                    arr[...] = 0
                    lost.append(w)
            # after each statement a thread stores what it assigned and its progress; one
            # that raises stores nothing more (`frontend.checkpoint`)
            steps = len(body.assigns)
            plan, unkept = self._plan(body, outs)
            stores.append((DONE, str(steps)))
            outs[DONE] = np.zeros(n, np.int32)
            gen = codegen.kernel_source(name, body, loads, stores, bound, guard, self._extra)
            # a thread raising inside statement k stores what k changed so far where it
            # raises, with a progress code above `steps` saying so (`frontend.checkpoint`)
            changed = {k: [w for w in ws if w in outs and _plain_name(w)]
                       for k, ws in enumerate(body.assigns)}  # fmt: skip
            self._checkpoint = Checkpoint(
                plan, True, "_o_", DONE, changed,
                lambda w, v: _unkept(v, outs[w].dtype), steps + 1,
            )  # fmt: skip
            fn = self._define(name, gen.source, f"<kernel {self.count}>")
            import simt

            # bounds checks on every backend (as `sim` always does): a store past an array is a
            # KernelError naming the thread, not a write into the process memory
            k = simt.kernel(fn, fp64=self.fp64, debug=True, heap=self.heap)
            args = [state[x] for x in loads] + [outs[x] for x, _ in stores]
            args += [self._buffer(x) for x in bound]
            before = [a.copy() for a in args] if self.explain_tid is not None else None
            # buffers written in place: Ctrl-C during the launch leaves them partly written
            self._in_place = [w for w in (*self.bound, *self.shared)
                              if w in shape.reads and w in _stored_into(tree)]  # fmt: skip
            with printing.capture() as prints:
                try:
                    k[grid, block](*args)
                finally:
                    captured = list(prints)
            self._in_place = []
        except CompileError as e:
            where = {
                f"<probe {self.count}>": gen_header(body, loads, None, len(self._extra)),
                f"<kernel {self.count}>": gen_header(body, loads, guard, len(self._extra)),
            }
            self.out.error(_compile_error(e, filename, text, body, where))
            return False
        except KernelError as e:
            where = {f"<kernel {self.count}>": gen_header(body, loads, guard, len(self._extra))}
            if not e.failures:
                self.out.error(_kernel_error(e, filename, block, where, body))
                return False
            # exceptions some threads raised: the others finished and their results are kept
            # (a raising thread stores nothing, so its variables keep their values)
            self.out.error(_thread_errors(e, filename, text, where, n, body))
            self._in_place = []
            raised = True
        except (LaunchError, SimtError) as e:
            self.out.error(f"{type(e).__name__}: {e}")
            return False
        data = [self.file_data[p] for p in self.file_paths]
        captured = [(t, files.resolve_bytes(x, data)) for t, x in captured]
        if records or any(x.startswith(files.MARK) for _, x in captured):
            captured, recs = files.split_records(captured)
            sent = known.pop(files.COUNT, None)
            count = outs.pop(files.COUNT, None)
            expected = int(count.sum()) if count is not None else int(sent or 0) * n
            if len(recs) != expected:
                self.out.error(
                    f"the file writes of this input did not fit the {self.backend} backend's "
                    f"print buffer ({expected - len(recs)} of {expected} records were lost); "
                    "no file was written: write less per input"
                )
                return False
            try:
                written, still_open = files.land_open(recs, self.open_writes)
                self._land(written)
                self.open_writes = still_open
            except files.WriteError as e:
                self.out.error(f"{filename}: {e}; no file was written")
                return False
            except OSError as e:
                self.out.error(f"OSError: cannot write {e.filename!r}: {e.strerror or e}")
                return False
            stores = [(k, e) for k, e in stores if k != files.COUNT]
        done = outs.pop(DONE)
        stores = [(k, e) for k, e in stores if k != DONE]
        inside: list[tuple[np.ndarray, RaiseCode]] = []  # raised inside a statement
        for c in np.unique(done[done > steps]).tolist():
            what = self._checkpoint.decode(c)
            assert what is not None
            sel = done == c
            inside.append((sel, what))
            done[sel] = what[0]  # (its progress: the statements before it)
        failed = done < steps if raised else None  # the threads that raised
        if failed is not None:
            notes += self._kept(body, done, failed, outs, lost, unkept, filename, inside)
        for w, v in known.items():  # the same value in every thread: a host value again
            each = outs.get(w)
            if each is not None and (failed is None or _same_everywhere(v, each)):
                del outs[w]
        for w in [w for w in known if w in outs]:  # raising threads kept another value
            del known[w]
        # success: the new values replace the old ones
        for note in notes:
            self.out.warning(note)
        for w, v in known.items():
            self.state.pop(w, None)
            self.globals[w] = v
        for w in writes:
            if w not in objects and w in self.objects:  # no longer a file or byte string
                cls, _ = self.objects.pop(w)
                for f in _FIELDS[cls]:
                    self.state.pop(f"{w}__{f}", None)
        for w, arr in outs.items():
            if not w.startswith("_simt_"):
                self.globals.pop(w, None)
                self.state[w] = arr
        for w, spec in objects.items():
            self.objects[w] = spec
            self.state.pop(w, None)
            self.globals.pop(w, None)
        arrays = [outs[k] for k, _ in stores if k.startswith("_simt_")]
        for at, fid in self._echo_bytes:  # byte strings are grouped by their bytes
            words, size = self.file_data[self.file_paths[fid]]
            start, length = arrays[at.at], arrays[at.at + 1]
            arrays[at.at], at.table = files.byte_codes(start, length, words, size)
            arrays[at.at + 1] = np.zeros_like(length)
        shown_out: Echo | str | None = None
        if arrays:
            shown_out = Echo(arrays, lambda row: _show(row, layout))
        elif layout:
            shown_out = _show([], layout)
        if self._deferred:
            self._carried += captured
            return not raised
        if self._carried:  # earlier phases' prints first, each thread's in order
            captured = sorted(self._carried + captured, key=lambda p: p[0])
            self._carried = []
        group(n, captured, shown_out, self.out, echoed=done == steps if raised else None)
        if before is not None:
            self._explain(
                k,
                grid,
                block,
                before,
                text,
                filename,
                gen_header(body, loads, guard, len(self._extra)),
                body,
            )
        return not raised

    def _old(self, w: str) -> Any:
        """The value `w` had before this input: its per-thread array, a host value, or None."""
        if w in self.state:
            return self.state[w]
        return self.globals.get(w)

    def _at_end(self, env: dict[str, Any], last: int) -> dict[str, Any]:
        """The probe's names as the last checkpoint saw them (where the input's stores are,
        on the path of a thread that raised nowhere), else as the front end left them."""
        from ..frontend.values import UNDEF

        out = dict(env)
        for (k, w), v in self._checkpoint.seen.items():
            if k == last and v is not UNDEF:
                out[w] = v
        return out

    def _plan(
        self, body: codegen.Body, outs: dict[str, np.ndarray]
    ) -> tuple[dict[int, list[str]], dict[tuple[int, str], str]]:
        """Which names the checkpoint after each statement stores (those the probe saw hold a
        number their array holds unchanged), and what each other one was there (`_unkept`)."""
        seen = self._checkpoint.seen  # the probe's
        plan: dict[int, list[str]] = {}
        unkept: dict[tuple[int, str], str] = {}
        for k, names in enumerate(body.assigns[:-1]):
            for w in names:
                if w not in outs or not _plain_name(w):
                    continue
                why = _unkept(seen.get((k, w)), outs[w].dtype)
                if why is None:
                    plan.setdefault(k, []).append(w)
                else:
                    unkept[(k, w)] = why
        return plan, unkept

    def _kept(
        self, body: codegen.Body, done: np.ndarray, failed: np.ndarray,
        outs: dict[str, np.ndarray], lost: list[str], unkept: dict[tuple[int, str], str],
        filename: str, inside: list[tuple[np.ndarray, RaiseCode]],
    ) -> list[str]:  # fmt: skip
        """What the threads that raised keep: each variable as the statements before the one
        that raised left it (the checkpoints stored it) and as that one had changed it where
        the thread raised (`inside`: the threads of each raise code and what it says), else
        as it was before the input. Where that value cannot sit beside the others (another
        type; not defined), the thread holds 0 and a note says so."""
        notes = []
        for w, arr in outs.items():
            if not _plain_name(w):
                continue
            last = np.full(len(done), -1, np.int64)  # the last statement that assigned it
            for k, names in enumerate(body.assigns[:-1]):
                if w in names:
                    last[done > k] = k
            here = len(body.assigns)  # (`last` of a value stored where the thread raised)
            for sel, (k, stored, unfit) in inside:
                if w in stored:
                    last[sel] = here
                why = dict(unfit).get(w)
                if why is not None:
                    arr[sel] = 0
                    last[sel] = here
                    at = _input_line(body, body.starts[k])
                    notes.append(
                        f"`{w}` was {why} where the {_threads(int(sel.sum()))} raised inside "
                        f"the statement at {filename}:{at}, which cannot be kept beside its "
                        f"new {_kind(arr.dtype)} values: there it is 0"
                    )
            for k in sorted({k for k, v in unkept if v == w}):
                sel = failed & (last == k)
                if sel.any():
                    arr[sel] = 0
                    at = _input_line(body, body.starts[k])
                    notes.append(
                        f"`{w}` was {unkept[(k, w)]} after {filename}:{at}, which cannot be "
                        f"kept beside its new {_kind(arr.dtype)} values: in the "
                        f"{_threads(int(sel.sum()))} that raised later it is 0"
                    )
            never = failed & (last < 0)
            if w in lost and never.any():
                who = f"in the {_threads(int(never.sum()))} that raised before assigning it,"
                old = self._old(w)
                if old is None:
                    notes.append(f"`{w}` was not defined before this input: {who} it is 0")
                else:
                    kind = _kind(old.dtype) if isinstance(old, np.ndarray) else type(
                        old).__name__  # fmt: skip
                    notes.append(
                        f"`{w}` was a {kind} before this input, which cannot be kept beside "
                        f"its new {_kind(arr.dtype)} values: {who} it is 0"
                    )
        return notes

    def _explain(
        self, k: Any, grid: int, block: int, args: list[np.ndarray], text: str, filename: str,
        header: tuple[int, int], body: codegen.Body,
    ) -> None:  # fmt: skip
        """`%explain`: the path of thread `explain_tid` through the input just run (run again
        on sim, from the values it started with), in the input's own lines."""
        from ..ir import Loc

        tid, self.explain_tid = self.explain_tid, None
        assert tid is not None
        lines = text.split("\n")
        kernel_file = f"<kernel {self.count}>"

        def line_map(loc: Loc) -> Loc | None:
            at = body.position(loc.line - header[0], None)
            if loc.filename != kernel_file or at is None or not 1 <= at[0] <= len(lines):
                return None  # the generated loads and stores, simt's own helpers
            line = at[0]
            return Loc(filename, line, loc.col, lines[line - 1])

        from ..runtime.base import Dim3

        try:
            out = k.explain_text(
                Dim3(grid), Dim3(block), [tid], tuple(args), {}, line_map,
                f"thread tid={tid}, input {filename}:",
            )  # fmt: skip
        except SimtError as e:
            self.out.error(f"%explain: {e}")
            return
        # (a launch that raised names the kernel's line: the input's own instead)
        out = _input_lines(out, kernel_file, filename, body, header[0])
        self.out.text(out.replace(codegen.ECHO, "value") + "\n")

    def _layout(
        self,
        env: dict[str, Any],
        shown: list[str],
        stores: list[tuple[str, str]],
        outs: dict[str, np.ndarray],
        notes: list[str],
    ) -> list[tuple[str, str, list[tuple[bool, Any]]]]:
        """The lines each thread shows after its prints: converted `print`s and the echo,
        each as (kind, shape: '', 'tuple' or 'list', items); an item is (known, value) or
        (False, array index). Adds a store into a fresh array for each run-time item."""
        from ..frontend.values import Known, Obj, Tup
        from ..ir import Value

        layout: list[tuple[str, str, list[tuple[bool, Any]]]] = []
        count = 0
        for w in shown:
            v = env.get(w)
            kind = "echo" if w == codegen.ECHO else "print"
            if isinstance(v, Known):
                if kind == "echo" and v.value is None:
                    continue
                if kind == "print":
                    layout.append((kind, "tuple", [(True, x) for x in v.value]))
                else:
                    layout.append((kind, "", [(True, v.value)]))
                continue
            if isinstance(v, Tup) and v.mixed:
                notes.append(
                    "(this value cannot be shown: it is a tuple in some threads and a list in "
                    "others, which Python shows differently; make it one kind on every path)"
                )
                continue
            parts = v.items if isinstance(v, Tup) else (v,)
            items: list[tuple[bool, Any]] = []
            for i, x in enumerate(parts):
                expr = f"{w}[{i}]" if isinstance(v, Tup) else w
                fid = self._file_of(env, x) if isinstance(x, Obj) else None
                if isinstance(x, Known):
                    items.append((True, x.value))
                elif fid is not None and x.cls is files.File:  # shown as Python shows it
                    items.append((True, _FileRepr(self.file_paths[fid])))
                elif fid is not None:  # a byte string: its start and length, shown as bytes
                    for f in ("start", "length"):
                        key = f"_simt_o{len(outs)}"
                        stores.append((key, f"{expr}.{f}"))
                        outs[key] = np.empty(self.threads, np.int64)
                    at = BytesAt(count)
                    self._echo_bytes.append((at, fid))
                    items.append((False, at))
                    count += 2
                elif isinstance(x, Value) and isinstance(x.type, T.Scalar):
                    key = f"_simt_o{len(outs)}"
                    stores.append((key, expr))
                    outs[key] = np.empty(self.threads, _state_dtype(x.type, self.int_dtype))
                    items.append((False, count))
                    count += 1
                else:
                    notes.append(
                        "(this value cannot be shown: it is not a number or a tuple of numbers)"
                    )
                    items = []
                    break
            if items:
                shape = "" if not isinstance(v, Tup) else "list" if v.is_list else "tuple"
                layout.append((kind, shape, items))
        return layout

    def _host_value(self, expr: ast.expr) -> Any:
        """The value of `expr` when it reads only host globals (a file's path), else None."""
        names = {n.id for n in ast.walk(expr) if isinstance(n, ast.Name)}
        if names & self.thread_names() or not names <= set(self.globals) | set(dir(builtins)):
            return None
        try:
            code = compile(ast.Expression(copy.deepcopy(expr)), "<path>", "eval")
            return eval(code, self.globals)  # noqa: S307 - the user's own input, on the host
        except Exception:  # noqa: BLE001 - not a path: the kernel's compiler says why
            return None

    def _per_thread_file(self, expr: ast.expr) -> str | None:
        """For `open(expr)` with a path each thread computes from its index and host values
        (`open(f"in/{tid}.txt")`): every thread's file read on the host and laid end to end
        (a key for them in `file_data`, with each thread's first and end byte in
        `file_index`), else None (a path the host cannot compute: refused). A missing file is
        an OSError naming it and the first thread that opens it."""
        names = {n.id for n in ast.walk(expr) if isinstance(n, ast.Name)}
        index_names = {"tid", "threadIdx", "blockIdx"}
        host = set(self.globals) | set(dir(builtins))
        if not names & index_names or not names <= host | index_names:
            return None
        if names & (self.thread_names() - index_names - {"syncthreads", "shared"}):
            return None
        if self.threads > PER_THREAD_PATHS:
            return None
        code = compile(ast.Expression(copy.deepcopy(expr)), "<path>", "eval")
        paths: list[str] = []
        blk = self.block or self.threads
        scope = dict(self.globals)
        try:
            for t in range(self.threads):
                scope["tid"] = t
                scope["threadIdx"] = t % blk if self.block else t
                scope["blockIdx"] = t // blk
                paths.append(str(eval(code, scope)))  # noqa: S307 - the user's own input
        except Exception:  # noqa: BLE001 - not a path the host computes: refused as before
            return None
        loaded: dict[str, tuple[int, np.ndarray, int]] = {}  # path -> (base, words, size)
        offset = 0
        for t, p in enumerate(paths):
            if p not in loaded:
                try:
                    words, size = files.load(p)
                except OSError as e:
                    raise OSError(e.errno, f"thread {t} opens {p!r}: {e.strerror}", p) from None
                loaded[p] = (offset, words, size)
                offset += 4 * len(words)
        data = np.concatenate([w for _, w, _ in loaded.values()])
        base = np.array([loaded[p][0] for p in paths], np.int64)
        end = base + np.array([loaded[p][2] for p in paths], np.int64)
        key = f"<files {ast.unparse(expr)} of input {self.count}>"
        self.file_data[key] = (data, offset)
        self.file_index[key] = (base, end)
        return key

    def _stdin_lines(self) -> str | None:
        """For `input()`: the `%stdin` file read on the host, thread t's part its line t
        (without the line end; empty past the last line), laid out as per-thread files are
        (a key in `file_data` and `file_index`); None without `%stdin`. An OSError names a
        file that cannot be read."""
        if self.stdin is None:
            return None
        key = f"<stdin {self.stdin} of input {self.count}>"
        if key in self.file_index:
            return key
        words, size = files.load(self.stdin)
        raw = words.view(np.uint8)[:size].tobytes()
        base = np.full(self.threads, size, np.int64)
        end = np.full(self.threads, size, np.int64)
        at = 0
        for t, line in enumerate(raw.splitlines(keepends=True)[: self.threads]):
            text = line.rstrip(b"\r\n")
            base[t], end[t] = at, at + len(text)
            at += len(line)
        self.file_data[key] = (words, size)
        self.file_index[key] = (base, end)
        return key

    def _file_of(self, env: dict[str, Any], v: Any) -> int | None:
        """The session's number of the file a ByteStr or File object `v` reads, or None."""
        if v.cls not in (files.ByteStr, files.File):
            return None
        data = v.get("data")
        return next(
            (i for i in range(len(self.file_paths)) if env.get(f"_simt_file{i}") is data), None
        )

    def _land(self, written: dict[str, tuple[str, bytes]]) -> None:
        """Write what the threads wrote into the host's files (append for mode "a"); a file
        that inputs read is read again."""
        for path, (mode, data) in written.items():
            with open(path, "ab" if mode == "a" else "wb") as f:
                f.write(data)
            if path in self.file_data:
                self.file_data[path] = files.load(path)

    def _buffer(self, name: str) -> np.ndarray:
        """A bound buffer, a shared array or an open file's words, by parameter name."""
        if name.startswith("_simt_sh_"):
            return self.shared[name[len("_simt_sh_") :]]
        if name.startswith(("_simt_fbase", "_simt_fend")):
            first, last = self.file_index[self.file_paths[int(re.sub(r"\D", "", name))]]
            return first if name.startswith("_simt_fbase") else last
        if name.startswith("_simt_file"):
            return self.file_data[self.file_paths[int(name[len("_simt_file") :])]][0]
        return self.bound[name]

    def _define(self, name: str, source: str, filename: str) -> Any:
        """The generated function, compiled from `source` registered under `filename`."""
        _register(filename, source)
        ns = dict(self.globals)
        ns.update(_simt_int=self.int_dtype.type, _simt_grid=lang.grid, int=self.int_dtype.type)
        if self.block is not None:
            ns.update(
                _simt_block_idx=lang.block_idx,
                _simt_thread_idx=lang.thread_idx,
                syncthreads=lang.syncthreads,
                shared=lang.shared.array,  # type: ignore[attr-defined]
            )
        if self._rewritten or self._files_in:
            ns.update(files.NAMESPACE)
            for i, path in enumerate(self.file_paths):
                ns[f"_simt_size{i}"] = self.file_data[path][1]
        ns[codegen.CHECKPOINT] = self._checkpoint
        exec(compile(source, filename, "exec"), ns)  # noqa: S102 - our own generated text
        return ns[name]

    def _probe(
        self,
        name: str,
        body: codegen.Body,
        loads: list[str],
        bound: list[str],
        state: dict[str, np.ndarray],
    ) -> dict[str, Any]:
        """Translate the input without stores; the names it leaves behind, as the front end
        sees them (typed values, known values, tuples)."""
        from ..frontend.specialise import ArgSpec, ComplexArray, translate_with_names

        gen = codegen.kernel_source(name, body, loads, [], bound, None, self._extra)
        # what the names each statement assigns hold after it (`_plan`), and every name at
        # the end (`_at_end`)
        keep = {k: [w for w in ws if _plain_name(w)] for k, ws in enumerate(body.assigns)}
        if body.assigns:
            keep[len(body.assigns) - 1] = sorted({w for ws in body.assigns for w in ws})
        self._checkpoint = Checkpoint(keep, False)
        fn = self._define(name, gen.source, f"<probe {self.count}>")
        specs: dict[str, ArgSpec] = {}
        for p in inspect.signature(fn).parameters:
            arr = state[p[3:]] if p.startswith("_i_") else self._buffer(p)
            if arr.dtype.kind == "c":  # a complex buffer: its float parts, as kernels take it
                part = T.FLOAT32 if arr.dtype.itemsize == 8 else T.FLOAT64
                specs[p] = ComplexArray(T.ArrayType(part, arr.ndim + 1, index=T.INT32))
                continue
            st = T.scalar_of_dtype(arr.dtype)
            assert st is not None  # state and buffers only have the kernel language's dtypes
            specs[p] = T.ArrayType(st, arr.ndim, index=T.INT32)
        return translate_with_names(fn, specs, fp64=self.fp64)[1]

    def _classify(
        self, env: dict[str, Any], writes: list[str], tree: ast.Module | None = None
    ) -> tuple[
        list[tuple[str, str]],
        dict[str, np.ndarray],
        dict[str, Any],
        list[str],
        dict[str, tuple[str, int]],
    ]:
        """For each assigned name: a store into a fresh per-thread array, a known value for
        the host, a file or byte string (kept as its per-thread fields), or a note saying why
        it is not kept."""
        from ..frontend import dicts, lists, strings
        from ..frontend.files import is_reader
        from ..frontend.values import UNDEF, Known, Obj, Tup
        from ..ir import Value

        stores: list[tuple[str, str]] = []
        outs: dict[str, np.ndarray] = {}
        known: dict[str, Any] = {}
        notes: list[str] = []
        objects: dict[str, tuple[str, int]] = {}
        for w in writes:
            v = env.get(w)
            if v is None:
                continue
            if isinstance(v, Obj) and v.cls in (files.ByteStr, files.File):
                cls = v.cls.__name__
                idx = self._file_of(env, v)
                if idx is not None:
                    objects[w] = (cls, idx)
                    for f in _FIELDS[cls]:
                        stores.append((f"{w}__{f}", f"{w}.{f}"))
                        outs[f"{w}__{f}"] = np.empty(self.threads, np.int64)
                    continue
            if is_reader(v):
                if w not in self._closed_readers:
                    notes.append(
                        f"`{w}` is a file the launch staged as a @simt.kernel's (opened by a "
                        "path of the thread's variables, or read by line: docs/language.md, "
                        "\"Reading files\"); it is not kept after this input: read it in the "
                        "input that opens it"
                    )
            elif isinstance(v, Known):
                known[w] = _plain(v.value)
            elif isinstance(v, Value) and isinstance(v.type, T.Scalar):
                stores.append((w, w))
                outs[w] = np.empty(self.threads, _state_dtype(v.type, self.int_dtype))
            elif isinstance(v, Value):
                pass  # an array: another name for a buffer, nothing to keep
            elif v is UNDEF and w in _loop_targets(tree):
                notes.append(
                    f"`{w}` is the variable of a run-time `for` loop, which is not defined after "
                    "the loop; it is not kept after this input"
                )
            elif v is UNDEF and w in _loop_names(tree):
                notes.append(
                    f"`{w}` is assigned in a run-time loop, and a run-time loop's variables "
                    f"are not defined after it (it might run no times); it is not kept after "
                    f"this input: give it a value before the loop (`{w} = 0`) to keep it"
                )
            elif lists.is_list(v) or dicts.is_dict_like(v) or strings.is_str(v):
                kind = dicts.describe(v)
                notes.append(
                    f"`{w}` is {kind}, which lives in the input's per-thread heap; it is not "
                    f"kept after this input: print it in the input that makes it (print({w}))"
                )
            else:
                what = (
                    "assigned only in some threads"
                    if v is UNDEF
                    else "a list of run-time values"
                    if isinstance(v, Tup) and v.is_list
                    else "a tuple of run-time values"
                    if isinstance(v, Tup)
                    else f"a {type(v).__name__.lower()} of run-time values"
                )
                notes.append(f"`{w}` is {what}; it is not kept after this input")
        return stores, outs, known, notes, objects


def _loop_targets(tree: ast.Module | None) -> set[str]:
    """The names a top-level `for` of the input binds as its loop variable."""
    if tree is None:
        return set()
    return {
        n.id
        for stmt in tree.body
        if isinstance(stmt, ast.For)
        for n in ast.walk(stmt.target)
        if isinstance(n, ast.Name)
    }


def _loop_names(tree: ast.Module | None) -> set[str]:
    """The names a top-level `for` or `while` of the input assigns (its target included)
    that no other top-level statement assigns."""
    if tree is None:
        return set()
    inside: set[str] = set()
    outside: set[str] = set()
    for stmt in tree.body:
        names = {
            n.id for n in ast.walk(stmt) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
        }
        (inside if isinstance(stmt, (ast.For, ast.While)) else outside).update(names)
    return inside - outside


def gen_header(
    body: codegen.Body, loads: list[str], guard: int | None, extra: int = 0
) -> tuple[int, int]:
    """(lines before the input, indentation) of the kernel that `kernel_source` writes, with
    `extra` lines of its own after the loads."""
    header = 3 + len(loads) + extra + (1 if guard is not None else 0)
    return header, 8 if guard is not None else 4


def _shared_spec(shape: Any, dtype: Any = np.float64) -> tuple[tuple[int, ...], np.dtype]:
    """The shape and dtype of `shared(shape, dtype)` in the REPL."""
    dims = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    if not dims or not all(isinstance(d, (int, np.integer)) and d > 0 for d in dims):
        raise ValueError(f"the shape must be positive integers, not {shape!r}")
    t = getattr(dtype, "np", None)  # simt.float32 and friends
    dt = np.dtype(t if t is not None else dtype)
    if T.scalar_of_dtype(dt) is None:
        raise ValueError(f"{dt} is not a dtype kernels support")
    return tuple(int(d) for d in dims), dt


_RANK = {"b": 0, "u": 1, "i": 1, "f": 2}
_KINDS = {"b": "bool", "u": "int", "i": "int", "f": "float"}


def _kind(dt: np.dtype) -> str:
    return _KINDS.get(dt.kind, dt.name)


def _threads(k: int) -> str:
    return f"{k:,} thread{'s' if k != 1 else ''}"


def _plain_name(w: str) -> bool:
    """A variable of the user's (not one of ours, nor an object's field)."""
    return not w.startswith("_simt_") and "__" not in w and w not in THREAD_NAMES


def _known_dtype(v: Any, int_dtype: np.dtype, float_dtype: np.dtype) -> np.dtype | None:
    """The dtype of a per-thread array of the number `v` known at compile time (None: no
    number, or an int no int64 holds)."""
    if isinstance(v, (bool, np.bool_)):
        return np.dtype(np.bool_)
    if isinstance(v, (int, np.integer)):
        info = np.iinfo(int_dtype)
        return int_dtype if info.min <= int(v) <= info.max else None
    if isinstance(v, (float, np.floating)):
        return float_dtype
    return None


def _same_everywhere(v: Any, arr: np.ndarray) -> bool:
    """Whether every thread holds `v` in `arr` (the variable is a host value again)."""
    return bool(np.all(arr == v))


def _unkept(v: Any, dt: np.dtype) -> str | None:
    """None where the value `v` a checkpoint saw (a typed value or a known one) fits an array
    of `dt` unchanged (`_keep`'s rule); else what it is, for a note."""
    from ..frontend import dicts, lists, strings
    from ..frontend.values import UNDEF, Known, Tup
    from ..ir import Value

    if v is None or v is UNDEF:
        return "not assigned on every path"
    if isinstance(v, Known) and isinstance(v.value, (bool, int, float, np.number, np.bool_)):
        return None if _keep(v.value, np.zeros(1, dt)) else f"a {type(_plain(v.value)).__name__}"
    if isinstance(v, Value) and isinstance(v.type, T.Scalar):
        src = v.type
        kind = "b" if src.is_bool else "i" if src.is_int else "f"
        if _RANK[kind] > _RANK.get(dt.kind, -1):
            return f"a {_KINDS[kind]}"
        if kind == "f" and dt.kind == "f" and src.bits > dt.itemsize * 8:
            return f"a float{src.bits}"
        return None
    if lists.is_list(v) or dicts.is_dict_like(v) or strings.is_str(v):
        return str(dicts.describe(v))
    if isinstance(v, Tup):
        return "a tuple"
    if isinstance(v, Known):
        return f"a {type(v.value).__name__}"
    return "no number"


def _keep(old: Any, arr: np.ndarray) -> bool:
    """Put `old` (a per-thread array or a host number) in `arr` where it fits unchanged: the
    same kind of number or a wider one (a bool in an int, an int in a float) and the same
    value; False, leaving `arr` as it was, when it does not."""
    if isinstance(old, np.ndarray):
        if old.shape != arr.shape:
            return False
        src = old
    elif isinstance(old, (bool, int, float, np.number, np.bool_)):
        src = np.asarray(old)
    else:
        return False
    if _RANK.get(src.dtype.kind, 9) > _RANK.get(arr.dtype.kind, -1):
        return False
    with np.errstate(all="ignore"):
        conv = src.astype(arr.dtype)
        if not np.array_equal(conv, src, equal_nan=src.dtype.kind == "f"):
            return False
    arr[...] = conv
    return True


def _state_dtype(t: T.Scalar, int_dtype: np.dtype) -> np.dtype:
    """Per-thread variables are Python's numbers: int64 (`int_dtype`: int32 where the device
    has no int64), float64 (float32 kept), bool."""
    if t == T.BOOL:
        return np.dtype(np.bool_)
    if t.np.kind in "iu":
        return int_dtype
    return np.dtype(t.np)


class BytesAt:
    """A byte string in an echoed row: its code at index `at` (equal codes, equal bytes) and
    `table`, the bytes of each code (filled in after the launch)."""

    def __init__(self, at: int) -> None:
        self.at = at
        self.table: list[bytes] = []

    def bytes(self, row: Any) -> bytes:
        """The bytes this row's thread echoed."""
        return self.table[int(row[self.at])]


def _printed_echo(v: Any) -> bool:
    """Whether an input's last expression is a value its threads show by printing it (a
    run-time list, dict, set, dict view or string, or a tuple holding one: `print` writes
    them as Python's REPL shows them, a string through `repr`)."""
    from ..frontend import dicts, lists, strings
    from ..frontend.values import Tup

    if isinstance(v, Tup):
        return any(isinstance(x, Tup) or _printed_echo(x) for x in v.items)
    return lists.is_list(v) or dicts.is_dict_like(v) or strings.is_str(v)


def _plain(v: Any) -> Any:
    """NumPy scalars as the Python numbers they stand for."""
    return v.item() if isinstance(v, np.generic) else v


class _FileRepr:
    """How the echo shows a file object: as Python shows a file opened "rb" (the REPL's
    files read bytes), named by its path or, for per-thread paths, by the files' key."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        name = self.name if self.name.startswith("<files ") else repr(self.name)
        return f"<_io.BufferedReader name={name}>"


def _show(row: Any, layout: list[tuple[str, str, list[tuple[bool, Any]]]]) -> str:
    """What one thread shows after its prints: `print` lines as print writes them, the echo
    as Python's REPL (repr)."""
    lines = []
    for kind, shape, items in layout:
        vals = [
            _plain(x) if known else x.bytes(row) if isinstance(x, BytesAt) else _plain(row[x])
            for known, x in items
        ]
        if kind == "print":
            lines.append(" ".join(printing.format_value(v, "") for v in vals))
        elif shape == "list":
            lines.append("[" + ", ".join(map(repr, vals)) + "]")
        elif shape == "tuple":
            lines.append("(" + ", ".join(map(repr, vals)) + ("," if len(vals) == 1 else "") + ")")
        else:
            lines.append(repr(vals[0]))
    return "\n".join(lines)


def _register(filename: str, text: str) -> None:
    """Make `text` the source of `filename`, for tracebacks and `inspect.getsource`."""
    lines = [ln + "\n" for ln in text.split("\n")]
    linecache.cache[filename] = (len(text), None, lines, filename)


def _syntax_error(e: SyntaxError) -> str:
    out = [f'  File "{e.filename}", line {e.lineno}']
    if e.text:
        text = e.text.rstrip("\n")
        stripped = text.lstrip()
        out.append("    " + stripped)
        if e.offset:
            out.append("    " + " " * max(0, e.offset - 1 - (len(text) - len(stripped))) + "^")
    out.append(f"SyntaxError: {e.msg}")
    return "\n".join(out)


def _compile_error(
    e: CompileError, filename: str, text: str, body: codegen.Body, where: dict[str, tuple[int, int]]
) -> str:
    """The error with its position in the input, not in the generated kernel."""
    if e.filename in where and e.line is not None:
        header, indent = where[e.filename]
        at = body.position(e.line - header, None if e.col is None else e.col - indent)
        if at is not None:  # the input's own line and column (of a rewritten input too)
            line, col = at
            e = CompileError(e.message, filename, line, col, text.split("\n")[line - 1], e.hint)
        else:  # not a line of the input: its own text, not ours
            lines = text.strip("\n").split("\n")
            shown = lines[0] if len(lines) == 1 else e.source_line
            if shown is not None and "_simt_" in shown:
                shown = None
            e = CompileError(e.message, filename, None, None, shown, e.hint)
    return f"CompileError: {e}"


def _input_lines(text: str, kernel_file: str, filename: str, body: codegen.Body,
                 header: int) -> str:  # fmt: skip
    """`text` with each `kernel_file:N` that is a line of the input written `filename:line`
    (`header`: the kernel's lines before the input's first); a line of ours (a load, a
    checkpoint, a store) keeps the kernel's name and number, as no line of the input is it."""

    def one(m: re.Match[str]) -> str:
        at = body.position(int(m.group(1)) - header, None)
        return m.group(0) if at is None else f"{filename}:{at[0]}"

    return re.sub(rf"{re.escape(kernel_file)}:(\d+)", one, text)


def _input_line(body: codegen.Body, line: int) -> int:
    """The input's line of the `line`-th line of `body` (itself where it is not known: for a
    statement's first line, which always is the input's; a kernel's line goes through
    `_place`)."""
    at = body.position(line, None)
    return line if at is None else at[0]


def _place(
    file: str, line: int, filename: str, where: dict[str, tuple[int, int]], body: codegen.Body
) -> tuple[str, int]:
    """`file:line`, a place a kernel error names, as the input's `filename` and line where it
    is a line of the input (`where`: each generated file's header lines); a line of ours (a
    load, a checkpoint, a store) keeps the kernel's name and number, as `_input_lines`."""
    if file in where:
        at = body.position(line - where[file][0], None)
        if at is not None:
            return filename, at[0]
    return file, line


def _thread_errors(
    e: KernelError, filename: str, text: str, where: dict[str, tuple[int, int]], threads: int,
    body: codegen.Body,
) -> str:  # fmt: skip
    """The exceptions threads raised and did not catch, grouped by place and class, in the
    input's own lines (`KernelError.failures`); the other threads finished."""
    from dataclasses import replace

    from ..errors import ThreadFailure

    lines = text.split("\n")

    def mapped(f: ThreadFailure) -> ThreadFailure:
        # (a shared array is the kernel's argument `_simt_sh_<name>`: an IndexError's message)
        f = replace(f, message=re.sub(r"`_simt_sh_(\w+)`", r"`\1`", f.message))
        file, line = _place(f.filename, f.line, filename, where, body)
        return replace(f, filename=file, line=line)

    failures = [mapped(f) for f in e.failures if f.thread < threads]
    firsts: dict[tuple[str, str, int], ThreadFailure] = {}
    for f in failures:
        firsts.setdefault((f.exception, f.filename, f.line), f)
    groups = []
    for cls, file, line, count in e.counts:
        first = firsts.get((cls, *_place(file, line, filename, where, body)))
        if first is not None:
            groups.append((first, count))
    total = sum(c for _, c in groups)
    source = {(filename, k + 1): ln for k, ln in enumerate(lines)}
    grouped = KernelError.grouped(failures, groups, threads - total, source)
    return f"KernelError: {grouped}"


def _kernel_error(
    e: KernelError, filename: str, block: int, where: dict[str, tuple[int, int]],
    body: codegen.Body,
) -> str:  # fmt: skip
    """The error naming the thread index (`tid`) and the input's line."""
    # a shared array is the kernel's argument `_simt_sh_<name>`, one row per block
    msg = re.sub(r"`_simt_sh_(\w+)`", r"`\1`", e.message)
    if e.block is not None and e.thread is not None:
        msg += f" in thread {e.block[0] * block + e.thread[0]}"
    if e.filename is not None and e.line is not None:
        file, line = _place(e.filename, e.line, filename, where, body)
        msg = f"{file}:{line}: {msg}"
    if e.source_line:
        msg += "\n    " + e.source_line.strip()
    return f"KernelError: {msg}"


def _free_memory() -> int:
    """Bytes of memory free for a session's per-thread arrays (a large figure when the
    system does not say)."""
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return 2**62


def _stored_into(tree: ast.Module) -> set[str]:
    """Names an input may write into in place: `name[...] = ...` (also `+=`) or passed to a
    call (`atomic.add(name, ...)`)."""
    out: set[str] = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Store):
            if isinstance(n.value, ast.Name):
                out.add(n.value.id)
        elif isinstance(n, ast.Call):
            out |= {a.id for a in n.args if isinstance(a, ast.Name)}
    return out
