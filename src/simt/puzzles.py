"""GPU puzzles: twelve small kernels to write, from a map over eight threads to a tiled matrix
product, in the order GPU programming is usually learnt (one thread per element, guards, two
dimensions, broadcasting, several blocks, shared memory, pooling, a dot product, a
convolution, a prefix sum, matmul).

    import simt
    from simt import puzzles

    puzzles.show(1)                 # what to write, and the launch it gets

    @simt.kernel
    def map_add(a, out):
        i = simt.thread_idx.x
        out[i] = a[i] + 10

    puzzles.check(1, map_add)       # True, or: the first wrong element and that thread's path

Each puzzle is checked on `sim`, the backend that checks every access and can say what each
thread did: a wrong answer prints the first wrong element, which thread should have written it,
and that thread's path through the kernel (`kernel.explain`); an index outside an array is the
`KernelError` naming the array, the index and the thread. The exercises follow the classic
progression of GPU-puzzle collections for teaching; the wording, inputs and checks are
simt's own.
"""

from __future__ import annotations

import io
import sys
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .api import using
from .errors import KernelError, LaunchError, SimtError

Owner = Callable[[tuple[int, ...]], tuple[tuple[int, ...], tuple[int, ...]]]


@dataclass(frozen=True)
class Puzzle:
    """One exercise: what to write (`text`, `signature`), the launch it gets, its inputs (the
    kernel's arguments in order, the output last) and the answer NumPy gives."""

    number: int
    name: str
    text: str
    signature: str
    grid: tuple[int, ...]
    block: tuple[int, ...]
    make: Callable[[], dict[str, Any]]
    answer: Callable[[dict[str, Any]], np.ndarray]
    owner: Owner  # the (block, thread) that writes an element of the output

    def args(self) -> dict[str, Any]:
        """Fresh arguments: NumPy arrays (the output filled with zeros) and scalars."""
        return self.make()


def _ints(n: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 10, n).astype(np.float32)


def _one_d(block: int) -> Owner:
    """Element i of a 1-D output belongs to thread i % block of block i // block."""
    return lambda ix: ((ix[0] // block,), (ix[0] % block,))


def _two_d(bx: int, by: int) -> Owner:
    """Element [i, j] of a 2-D output belongs to the thread at x = j, y = i of the grid."""
    return lambda ix: ((ix[1] // bx, ix[0] // by), (ix[1] % bx, ix[0] % by))


def _first(_: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    return (0,), (0,)


PUZZLES: list[Puzzle] = [
    Puzzle(
        1, "map",
        "Add 10 to every element of `a` into `out`: one thread per element, as many threads as "
        "elements.",
        "def map_add(a, out):", (1,), (8,),
        lambda: {"a": _ints(8, 1), "out": np.zeros(8, np.float32)},
        lambda v: v["a"] + 10, _one_d(8),
    ),
    Puzzle(
        2, "zip",
        "Add `a` and `b` element by element into `out`.",
        "def zip_add(a, b, out):", (1,), (8,),
        lambda: {"a": _ints(8, 2), "b": _ints(8, 3), "out": np.zeros(8, np.float32)},
        lambda v: v["a"] + v["b"], _one_d(8),
    ),
    Puzzle(
        3, "guard",
        "Add 10 to every element of `a` into `out`, with more threads (8) than elements (6): "
        "the threads past the end must touch nothing.",
        "def guarded_add(a, out):", (1,), (8,),
        lambda: {"a": _ints(6, 4), "out": np.zeros(6, np.float32)},
        lambda v: v["a"] + 10, _one_d(8),
    ),
    Puzzle(
        4, "map 2-D",
        "Add 10 to every element of the 3 x 3 array `a` into `out`, with a 4 x 4 block: "
        "thread_idx.x picks the column, thread_idx.y the row, and both need a guard.",
        "def map_2d(a, out):", (1, 1), (4, 4),
        lambda: {"a": _ints(9, 5).reshape(3, 3), "out": np.zeros((3, 3), np.float32)},
        lambda v: v["a"] + 10, _two_d(4, 4),
    ),
    Puzzle(
        5, "broadcast",
        "`out[i, j] = col[i] + row[j]` for a column `col` and a row `row` of 3 elements each, "
        "with a 4 x 4 block (x: j, y: i).",
        "def broadcast_add(col, row, out):", (1, 1), (4, 4),
        lambda: {"col": _ints(3, 6), "row": _ints(3, 7), "out": np.zeros((3, 3), np.float32)},
        lambda v: v["col"][:, None] + v["row"][None, :], _two_d(4, 4),
    ),
    Puzzle(
        6, "blocks",
        "Add 10 to each of the 9 elements of `a`, with blocks of 4 threads (3 blocks): a "
        "thread's element is block_idx.x * block_dim.x + thread_idx.x.",
        "def blocks_add(a, out):", (3,), (4,),
        lambda: {"a": _ints(9, 8), "out": np.zeros(9, np.float32)},
        lambda v: v["a"] + 10, _one_d(4),
    ),
    Puzzle(
        7, "shared memory",
        "As puzzle 6 (8 elements, blocks of 4), but each block first copies its 4 elements into "
        "`simt.shared.array(4, simt.float32)`, waits with `simt.syncthreads()`, and each thread "
        "then writes 10 plus the shared element to `out`.",
        "def shared_add(a, out):", (2,), (4,),
        lambda: {"a": _ints(8, 9), "out": np.zeros(8, np.float32)},
        lambda v: v["a"] + 10, _one_d(4),
    ),
    Puzzle(
        8, "pooling",
        "`out[i]` is the sum of `a[i - 2]`, `a[i - 1]` and `a[i]`, leaving out the ones before "
        "the start (so out[0] = a[0], out[1] = a[0] + a[1]); 8 elements, one block of 8.",
        "def pool3(a, out):", (1,), (8,),
        lambda: {"a": _ints(8, 10), "out": np.zeros(8, np.float32)},
        lambda v: np.convolve(v["a"], np.ones(3, np.float32))[:8], _one_d(8),
    ),
    Puzzle(
        9, "dot product",
        "`out[0]` is the dot product of `a` and `b` (8 elements, one block of 8 threads): each "
        "thread multiplies its pair into a shared array, then, after a barrier, one thread sums "
        "the shared array.",
        "def dot(a, b, out):", (1,), (8,),
        lambda: {"a": _ints(8, 11), "b": _ints(8, 12), "out": np.zeros(1, np.float32)},
        lambda v: np.array([v["a"] @ v["b"]], np.float32), _first,
    ),
    Puzzle(
        10, "convolution",
        "`out[i]` is the sum over k of `a[i + k] * w[k]` for the k where `i + k` is inside `a` "
        "(`a` has 6 elements, `w` 3; blocks of 4 threads, 2 blocks).",
        "def conv1d(a, w, out):", (2,), (4,),
        lambda: {"a": _ints(6, 13), "w": _ints(3, 14), "out": np.zeros(6, np.float32)},
        lambda v: np.array(
            [sum(v["a"][i + k] * v["w"][k] for k in range(3) if i + k < 6) for i in range(6)],
            np.float32,
        ),
        _one_d(4),
    ),
    Puzzle(
        11, "prefix sum",
        "`out[i]` is `a[0] + ... + a[i]` (8 elements, one block of 8): load `a` into shared "
        "memory and, for d = 1, 2, 4, add the element d places to the left, with a barrier "
        "before each read and each write (the Hillis-Steele scan).",
        "def scan(a, out):", (1,), (8,),
        lambda: {"a": _ints(8, 15), "out": np.zeros(8, np.float32)},
        lambda v: np.cumsum(v["a"]).astype(np.float32), _one_d(8),
    ),
    Puzzle(
        12, "matmul",
        "`out = a @ b` for 4 x 4 matrices, with 2 x 2 blocks of 2 x 2 threads (x: column, "
        "y: row): each block walks k in tiles of 2, copying a tile of `a` and of `b` into "
        "shared memory between two barriers.",
        "def matmul(a, b, out):", (2, 2), (2, 2),
        lambda: {
            "a": _ints(16, 16).reshape(4, 4), "b": _ints(16, 17).reshape(4, 4),
            "out": np.zeros((4, 4), np.float32),
        },
        lambda v: v["a"] @ v["b"], _two_d(2, 2),
    ),
]  # fmt: skip


def puzzle(which: int | str) -> Puzzle:
    """A puzzle by number (1-12) or name ("map", "shared memory", ...)."""
    for p in PUZZLES:
        if which == p.number or (isinstance(which, str) and which.lower() == p.name):
            return p
    names = ", ".join(f"{p.number} {p.name!r}" for p in PUZZLES)
    raise LaunchError(f"there is no puzzle {which!r}; the puzzles are {names}")


def describe(which: int | str) -> str:
    """The text `show` prints: the task, the kernel's first line, the launch and the inputs."""
    p = puzzle(which)
    args = p.args()
    shapes = ", ".join(
        f"{k}: {v.dtype}{list(v.shape)}" if isinstance(v, np.ndarray) else f"{k} = {v!r}"
        for k, v in args.items()
    )
    return (
        textwrap.fill(f"puzzle {p.number} ({p.name}): {p.text}", 88) + "\n"
        f"    @simt.kernel\n    {p.signature}\n        ...\n"
        f"launched as kernel[{_dims(p.grid)}, {_dims(p.block)}]({', '.join(args)}) with {shapes}"
    )


def show(which: int | str, file: Any = None) -> None:
    """Print what puzzle `which` asks for."""
    print(describe(which), file=file if file is not None else sys.stdout)


def check(which: int | str, kernel: Any, file: Any = None) -> bool:
    """Run `kernel` on puzzle `which` on `sim`; print whether it is solved and, when not, why:
    the launch's `KernelError`, or the first wrong element of the output, the thread that
    should have written it and that thread's path (`kernel.explain`). Returns True if solved."""
    p = puzzle(which)
    out = file if file is not None else sys.stdout
    args = p.args()
    want = p.answer(args)
    name = list(args)[-1]
    head = f"puzzle {p.number} ({p.name})"
    try:
        with using("sim"):
            kernel[p.grid, p.block](*args.values())
    except KernelError as e:
        print(f"{head}: the launch failed: {e}", file=out)
        return False
    except SimtError as e:
        print(f"{head}: {type(e).__name__}: {e}", file=out)
        return False
    got = args[name]
    wrong = np.argwhere(~np.isclose(got, want, rtol=1e-5, atol=1e-5))
    if len(wrong) == 0:
        print(f"{head}: solved", file=out)
        return True
    ix = tuple(int(x) for x in wrong[0])
    where = f"{name}[{', '.join(map(str, ix))}]"
    blk, thr = p.owner(ix)
    print(
        f"{head}: {len(wrong)} of {want.size} elements of `{name}` are wrong; the first is "
        f"{where} = {got[ix]:g}, expected {want[ix]:g}.\n"
        f"It belongs to block {_dims(blk)}, thread {_dims(thr)}; what that thread did:",
        file=out,
    )
    text = io.StringIO()
    kernel.explain(p.grid, p.block, *p.args().values(), thread=(blk, thr), file=text)
    print(text.getvalue().rstrip(), file=out)
    return False


def _dims(t: tuple[int, ...]) -> str:
    return str(t[0]) if len(t) == 1 else str(t)
