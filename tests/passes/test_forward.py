"""Store-to-load forwarding in the per-thread arena (`passes.forward`): what it forwards, what a
store in between makes it forget, and kernels whose lists and sets then fold."""

from __future__ import annotations

import numpy as np

import simt
from simt import thread_idx
from simt.ir import Function, Param, Value, walk
from simt.ir.nodes import Hidden
from simt.passes import optimize
from simt.passes.forward import forward
from simt.types import INT32, UINT8, ArrayType

from .ir_eval import count, for_, function, if_, store

HEAP = 64  # bytes per thread: 16 int32 words


def arena_function(dtype=INT32):  # type: ignore[no-untyped-def]
    """A kernel `k(out, k)` with an arena of `dtype`: (fn, builder, out, k, arena, base)."""
    fn, b, (out, k) = function(ArrayType(INT32, 1), INT32)
    heap = Value(ArrayType(dtype, 1), "__simt_heap_x")
    fn.params.append(Param.made(Hidden.ARENA, heap))
    fn.attrs["heap"] = HEAP
    words = HEAP // (dtype.bits // 8)
    base = b.bin("mul", b.special("thread_idx", 0), b.const(words, INT32))
    fn.attrs["arena_bases"] = ((heap.id, base.id),)
    return fn, b, out, k, heap, base


def at(b, base: Value, off: int | Value) -> Value:  # type: ignore[no-untyped-def]
    return b.bin("add", base, off if isinstance(off, Value) else b.const(off, INT32))


def arena_store(b, heap: Value, i: Value, v: Value, count_word: bool = False) -> None:  # type: ignore[no-untyped-def]
    b.op("store", [heap, i, v], arena="count" if count_word else True)


def arena_load(b, heap: Value, i: Value, count_word: bool = False) -> Value:  # type: ignore[no-untyped-def]
    return b.op("load", [heap, i], [heap.array.dtype], arena="count" if count_word else True).result


def loads(fn: Function) -> list[str]:
    return [op.opcode for op in walk(fn.body) if op.opcode == "load"]


def test_a_stored_word_is_read_back_without_a_load() -> None:
    fn, b, out, k, heap, base = arena_function()
    arena_store(b, heap, at(b, base, 5), k)
    store(b, out, 0, arena_load(b, heap, at(b, base, 5)))
    forward(fn)
    assert count(fn, "load") == 0
    (st,) = [op for op in fn.body.ops if op.opcode == "store" and op.operands[0] is out]
    assert st.operands[2] is k


def test_an_untouched_word_of_the_region_reads_zero() -> None:
    fn, b, out, k, heap, base = arena_function()
    store(b, out, 0, arena_load(b, heap, at(b, base, 3)))
    forward(fn)
    assert count(fn, "load") == 0 and any(
        op.opcode == "const" and op.attrs["value"] == 0 for op in fn.body.ops
    )


def test_a_word_at_another_product_by_the_regions_length_is_not_the_regions() -> None:
    """(threads x words) - base + base is the staged files' block (`frontend.files`), not a
    word of the thread's region, though its form is one product by the region's length."""
    fn, b, out, k, heap, base = arena_function()
    total = b.bin("mul", k, b.const(HEAP // 4, INT32))
    files = b.bin("sub", total, base)
    store(b, out, 0, arena_load(b, heap, at(b, base, at(b, files, 1))))
    forward(fn)
    assert count(fn, "load") == 1


def test_a_word_past_the_region_is_another_threads() -> None:
    fn, b, out, k, heap, base = arena_function()
    store(b, out, 0, arena_load(b, heap, at(b, base, HEAP // 4)))  # the next thread's word 0
    forward(fn)
    assert count(fn, "load") == 1


def test_a_store_at_an_unknown_word_is_forgotten_but_not_by_the_bump_pointers() -> None:
    fn, b, out, k, heap, base = arena_function()
    arena_store(b, heap, at(b, base, 0), k, count_word=True)  # a bump pointer
    arena_store(b, heap, at(b, base, 5), k)
    arena_store(b, heap, at(b, base, k), b.const(7, INT32))  # an item at a run-time offset
    store(b, out, 0, arena_load(b, heap, at(b, base, 5)))  # may be 7 now: stays
    store(b, out, 1, arena_load(b, heap, at(b, base, 0), count_word=True))  # still k
    store(b, out, 2, arena_load(b, heap, at(b, base, 9)))  # may be 7: not known zero
    forward(fn)
    assert count(fn, "load") == 2


def test_a_bump_pointer_read_as_an_item_is_not_taken_for_untouched() -> None:
    """A word stored as a bump pointer and read outside `top`/`alloc` (or the other way
    round) is the same word: no zero, no stale value."""
    fn, b, out, k, heap, base = arena_function()
    arena_store(b, heap, at(b, base, 0), k, count_word=True)
    store(b, out, 0, arena_load(b, heap, at(b, base, 0)))  # the word is k, not 0
    arena_store(b, heap, at(b, base, 1), k)  # an item's store at a constant offset ...
    store(b, out, 1, arena_load(b, heap, at(b, base, 1), count_word=True))  # ... is read
    forward(fn)
    assert count(fn, "load") == 2  # both read the word: neither became 0


def test_words_at_different_constant_offsets_from_one_value_are_apart() -> None:
    fn, b, out, k, heap, base = arena_function()
    p = at(b, base, k)
    arena_store(b, heap, at(b, p, 1), k)
    arena_store(b, heap, at(b, p, 2), b.const(9, INT32))  # another word: k survives
    store(b, out, 0, arena_load(b, heap, at(b, p, 1)))
    forward(fn)
    assert count(fn, "load") == 0


def test_a_store_in_a_branch_or_a_loop_is_forgotten_after_it() -> None:
    fn, b, out, k, heap, base = arena_function()
    w = at(b, base, 4)
    arena_store(b, heap, w, k)

    def then() -> list[Value]:
        arena_store(b, heap, w, b.const(1, INT32))
        return []

    if_(b, b.cmp("lt", k, b.const(3, INT32)), then, lambda: [], [])
    store(b, out, 0, arena_load(b, heap, w))

    def body(i: Value) -> list[Value]:
        store(b, out, 1, arena_load(b, heap, w))  # the second iteration reads the first's
        arena_store(b, heap, w, i)
        return []

    for_(b, b.const(0, INT32), k, b.const(1, INT32), [], body)
    forward(fn)
    assert count(fn, "load") == 2


def test_an_eight_bit_word_is_not_read_back_from_the_stored_value() -> None:
    fn, b, out, k, heap, base = arena_function(UINT8)
    arena_store(b, heap, at(b, base, 5), k)  # stored cut to 8 bits
    store(b, out, 0, arena_load(b, heap, at(b, base, 5)))
    forward(fn)
    assert count(fn, "load") == 1


@simt.kernel
def _set_size(out):  # type: ignore[no-untyped-def]
    t = thread_idx.x
    s = {t % 7, 1}
    s.add(t % 3)
    xs = [t, 2 * t]
    xs.append(5)
    out[t] = len(s) * 100 + xs[2] + xs[1]


def test_a_kernels_first_set_and_list_fold_and_keep_their_results(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    out = np.zeros(32, np.int32)
    fn, _ = _set_size.specialised_ir(out)
    monkeypatch.setattr(optimize, "PASSES", tuple(p for p in optimize.PASSES if p is not forward))
    without, _ = simt.kernel(_set_size.pyfunc).specialised_ir(out)
    # headers and bump pointers are read back from what the thread stored: the first set's
    # probe of its empty table goes (no loop over it); measured 20 loads, 3 loops, 371 ops
    # against 42, 7 and 531 without the pass
    assert count(fn, "load") * 2 <= count(without, "load")
    assert count(fn, "for") < count(without, "for")
    assert len(list(walk(fn.body))) * 4 <= len(list(walk(without.body))) * 3
    simt.use("sim")
    _set_size[1, 32](out)
    want = [len({t % 7, 1, t % 3}) * 100 + 5 + 2 * t for t in range(32)]
    assert out.tolist() == want
