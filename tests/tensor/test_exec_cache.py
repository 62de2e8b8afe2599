"""`Component.exec`'s cached launches (`run.Launches` per input signature), `into=` a device
array, and `tune` given device arrays (issue 28)."""

from __future__ import annotations

import numpy as np
import pytest

import simt
from simt.array import DeviceArray
from simt.tensor import Component, I, i
from simt.tensor import run as R


def rand(shape: tuple[int, ...], seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape, dtype=np.float32)


@pytest.fixture
def planned(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many calls planned their launches (`run.launches`)."""
    calls: list[int] = []
    real = R.launches

    def counted(*a: object) -> object:
        calls.append(1)
        return real(*a)  # type: ignore[arg-type]

    monkeypatch.setattr(R, "launches", counted)
    return calls


def test_repeated_calls_reuse_their_launches(backend: str, planned: list[int]) -> None:
    add = i("i+i~i")
    for seed in range(4):
        x, y = rand((16,), seed), rand((16,), seed + 10)
        np.testing.assert_allclose(add.exec(x, y), x.astype(np.float64) + y, rtol=1e-6)
    assert len(planned) == 1
    x, y = rand((40,), 1), rand((40,), 2)  # another shape: planned once more
    np.testing.assert_allclose(add.exec(x, y), x.astype(np.float64) + y, rtol=1e-6)
    np.testing.assert_allclose(add.exec(y, x), x.astype(np.float64) + y, rtol=1e-6)
    assert len(planned) == 2


def test_a_chain_with_a_reduction_and_two_outputs(backend: str, planned: list[int]) -> None:
    both = i("ij~ij") & (i("^ij~ij") >> i("+ij~i"))
    for seed in range(3):
        x = rand((6, 9), seed)
        same, sq = both.exec(x)
        np.testing.assert_array_equal(same, x)
        assert same is not x  # an input given back is a copy
        np.testing.assert_allclose(sq, np.exp(x.astype(np.float64)).sum(1), rtol=1e-5)
    assert len(planned) == 1


def test_errors_of_a_cached_component_are_the_ordinary_ones(backend: str) -> None:
    add = i("i+i~i")
    x = rand((8,), 1)
    add.exec(x, x)
    with pytest.raises(simt.LaunchError, match="takes 2 input"):
        add.exec(x)
    with pytest.raises(simt.LaunchError, match="axis 'i' is 8"):
        add.exec(x, rand((9,), 2))
    with pytest.raises(simt.LaunchError, match="dtype"):
        add.exec(x, np.zeros(8, np.complex64))
    np.testing.assert_allclose(add.exec(x, x), 2 * x)
    with pytest.raises(simt.LaunchError, match=r"test_exec_cache.py:\d+: component made here: "
                       r"into= output 0 has shape \(4,\)") as e:
        add.exec(x, x, into=np.zeros(4, np.float32))  # the launches are cached: then refused
    assert e.traceback[-1].path.name == "test_exec_cache.py"  # no simt frame at the end
    bound = i("i*i~i")(x)  # a bound input: the call's inputs merge with it
    np.testing.assert_allclose(bound.exec(x), x * x)
    np.testing.assert_allclose(bound.exec(2 * x), 2 * x * x)


def test_into_a_device_array(backend: str) -> None:
    x = rand((5,), 1)
    out = simt.zeros(5, np.float32)
    got = i("-i~i").exec(x, into=out)
    assert got is out and isinstance(out, DeviceArray)
    np.testing.assert_allclose(out.numpy(), -x)
    with pytest.raises(simt.LaunchError, match="has shape"):
        i("-i~i").exec(x, into=simt.zeros(4, np.float32))
    with pytest.raises(simt.LaunchError, match="lose its kind"):
        i("-i~i").exec(x, into=simt.zeros(5, np.int32))


def test_tune_given_device_arrays(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("SIMT_CACHE_DIR", str(tmp_path))
    with simt.using("cpu"):
        a, b = rand((24, 16), 4), rand((16, 20), 5)
        da, db = simt.to_device(a), simt.to_device(b)
        matmul = i("ik*kj~ijk") >> i("+ijk~ij")
        tuned = matmul.tune(da, db, budget=1.0)
        got = tuned.exec(da, db)
        assert isinstance(got, DeviceArray)
        np.testing.assert_allclose(got.numpy(), a @ b, rtol=1e-4, atol=1e-4)


def test_a_gemm_packs_into_the_buffers_of_the_last_call() -> None:
    """On `cpu` a GEMM's packed operands are kept for the next call (fresh ones cost their
    pages' first touch: ~10 ms of matmul 2048's ~190); each call packs its own operands into
    them, and its output is its own; two calls at once from two Python threads each pack
    into their own."""
    import threading

    simt.use("cpu")
    mm = i("ik*kj~ijk") >> i("+ijk~ij | tile(i:4,j:16) block(k:8) pack(ik,kj)")
    a, b = rand((40, 24), 1), rand((24, 36), 2)
    first = mm.exec(a, b)
    (lp,) = mm._launches.values()  # type: ignore[attr-defined]
    (kept,) = lp.scratch
    c, d = rand((40, 24), 3), rand((24, 36), 4)
    second = mm.exec(c, d)
    assert lp.scratch == [kept] and all(x is y for x, y in zip(lp.scratch[0], kept))
    np.testing.assert_allclose(first, a.astype(np.float64) @ b, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(second, c.astype(np.float64) @ d, rtol=1e-5, atol=1e-5)
    got: dict[int, np.ndarray] = {}

    def call(k: int) -> None:
        for _ in range(20):
            got[k] = mm.exec(*((a, b) if k else (c, d)))

    threads = [threading.Thread(target=call, args=(k,)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    np.testing.assert_allclose(got[1], a.astype(np.float64) @ b, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got[0], c.astype(np.float64) @ d, rtol=1e-5, atol=1e-5)
    assert 1 <= len(lp.scratch) <= 2


def test_the_quick_path_gives_each_call_its_own_output(planned: list[int]) -> None:
    """On `cpu` a cached call is looked up by `run.key` (the dtypes and shapes `signature`
    let in), runs each launch by its fast path (`run._launch`) and gives back its output
    buffer as it is (`Launches.direct`): a new array each call, never an input, and a call
    with other inputs (a subclass of ndarray, another shape) takes the ordinary path."""
    simt.use("cpu")
    add = i("ij+ij~ij")
    x, y = rand((6, 9), 1), rand((6, 9), 2)
    first = add.exec(x, y)
    second = add.exec(y, y)
    (lp,) = add._launches.values()  # type: ignore[attr-defined]
    assert lp.direct == 2 and len(planned) == 1
    assert first is not second and not np.shares_memory(first, second)
    np.testing.assert_allclose(first, x.astype(np.float64) + y, rtol=1e-6)
    np.testing.assert_allclose(second, 2 * y.astype(np.float64), rtol=1e-6)
    assert R.key((x, y)) == R.signature((x, y))
    assert R.key((x.view(np.matrix), y)) is None  # (np.matrix: not an ndarray's own type)
    np.testing.assert_allclose(add.exec(x[:3], y[:3]), x[:3].astype(np.float64) + y[:3],
                               rtol=1e-6)  # fmt: skip
    assert len(planned) == 2
    both = I & i("+ij~i")  # two outputs, one of them an input: a copy, by `_output`
    same, sums = both.exec(x)
    assert next(iter(both._launches.values())).direct == -1  # type: ignore[attr-defined]
    assert same is not x and not np.shares_memory(same, x)
    np.testing.assert_array_equal(same, x)
    np.testing.assert_allclose(sums, x.astype(np.float64).sum(1), rtol=1e-5)


def test_a_fast_launch_that_does_not_run_goes_the_ordinary_way() -> None:
    """`run._launch` calls a launcher's fast path itself; where that path takes other
    argument types (OTHER_ARGUMENTS) the launch goes the ordinary way (and the launcher's fast
    path is then for the new types), and a FAILED status raises the launch's error."""
    from simt.runtime import cpu_fast, registry

    @simt.kernel(boundscheck=False)  # (no failure buffer: `words` is None)
    def twice(out, a):  # type: ignore[no-untyped-def]
        j = simt.grid(1)
        if j < len(out):
            out[j] = a[j] * 2

    simt.use("cpu")
    rt = registry.current()
    go = twice.config(1, 32)
    a32 = np.arange(32, dtype=np.float32)
    out32 = np.zeros(32, np.float32)
    go(out32, a32)
    go(out32, a32)
    fast = go.fast
    assert fast is not None and fast.words is None
    a64, out64 = a32.astype(np.float64), np.zeros(32)
    R._launch(go, rt, (out64, a64))  # float64: the fast path's table says other types
    np.testing.assert_array_equal(out64, a64 * 2)
    assert go.fast is not fast and go.fast is not None
    R._launch(go, rt, (out32, a32 + 1))
    np.testing.assert_array_equal(out32, (a32 + 1) * 2)

    class Stopped(simt.KernelError):
        pass

    def failure() -> None:
        raise Stopped("stopped")

    class Failing:
        runtime, words = rt, None

        def fn(self, args: tuple[object, ...]) -> int:
            return cpu_fast.FAILED

    stub = Failing()
    stub.failure = failure  # type: ignore[attr-defined]
    go._fast = stub  # type: ignore[attr-defined]
    with pytest.raises(Stopped):
        R._launch(go, rt, (out32, a32))


def test_repeated_calls_run_by_exact_shape_launches(planned: list[int]) -> None:
    """On `cpu`, after a call, the next with NumPy arrays of the same dtypes and shapes runs
    the last call's launches by fast launches that check their arrays' shapes in native code
    (`run.quick`, no key made); anything else (other shapes, an input reshaped in place,
    another number of inputs, `into=`) takes the ordinary path, with its results and errors.
    A chain of kernels (FlashAttention's) goes the same way."""
    from simt.runtime import cpu_fast

    simt.use("cpu")
    mm = i("ik*jk~ijk") >> i("+ijk~ij")
    a, b = rand((6, 9), 1), rand((5, 9), 2)
    mm.exec(a, b)
    lp = mm._quick  # type: ignore[attr-defined]
    assert lp is not None and len(lp.quick) == 1 and lp.quick[0] is not None
    got = [mm.exec(rand((6, 9), s), b) for s in range(3)]
    assert len(planned) == 1 and not np.shares_memory(got[0], got[1])
    for s, g in enumerate(got):
        np.testing.assert_allclose(g, rand((6, 9), s).astype(np.float64) @ b.T, rtol=1e-5,
                                   atol=1e-5)  # fmt: skip
    c = rand((7, 9), 3)  # another shape: planned, then quick for it
    np.testing.assert_allclose(mm.exec(c, b), c.astype(np.float64) @ b.T, rtol=1e-5, atol=1e-5)
    assert len(planned) == 2 and mm._quick is not lp  # type: ignore[attr-defined]
    np.testing.assert_allclose(mm.exec(a, b), a.astype(np.float64) @ b.T, rtol=1e-5, atol=1e-5)
    d = rand((2, 27), 4)
    d.shape = (6, 9)  # (reshaped in place: the same array object)
    np.testing.assert_allclose(mm.exec(d, b), d.astype(np.float64) @ b.T, rtol=1e-5, atol=1e-5)
    d.shape = (3, 18)
    with pytest.raises(simt.LaunchError):
        mm.exec(d, b)
    with pytest.raises(simt.LaunchError, match="takes 2 input"):
        mm.exec(a, b, b)
    into = np.zeros((6, 5), np.float32)
    mm.exec(a, b, into=into)
    np.testing.assert_allclose(into, a.astype(np.float64) @ b.T, rtol=1e-5, atol=1e-5)
    # the fast launches ran, not the ordinary ones: a call with them stubbed out fails over
    lp = mm._quick  # type: ignore[attr-defined]
    ran = []

    class Counting:
        def __init__(self, real: object) -> None:
            self.real = real

        def fn(self, args: tuple[object, ...]) -> int:
            ran.append(1)
            return self.real.fn(args)  # type: ignore[attr-defined,no-any-return]

    lp.quick = [Counting(f) for f in lp.quick]
    mm.exec(a, b)
    assert ran == [1]
    lp.quick = [type("Other", (), {"fn": lambda self, args: cpu_fast.OTHER_ARGUMENTS})()]
    np.testing.assert_allclose(mm.exec(a, b), a.astype(np.float64) @ b.T, rtol=1e-5, atol=1e-5)
    q, k, v = rand((32, 300), 5), rand((32, 300), 6), rand((32, 300), 7)
    flash = (mm >> ((I & i(">ij~i")) >> i("ij-i~ij")) >> i("^ij~ij")
             >> ((I & i("+ij~i")) >> i("ij/i~ij")) >> (i("ij*jk~ikj") >> i("+ikj~ik")))  # fmt: skip
    s = q.astype(np.float64) @ k.T
    w = np.exp(s - s.max(1, keepdims=True))
    want = (w / w.sum(1, keepdims=True)) @ v
    for _ in range(3):
        np.testing.assert_allclose(flash.exec(q, k, v), want, rtol=1e-4, atol=1e-5)
    lp = flash._quick  # type: ignore[attr-defined]
    assert lp is not None and len(lp.quick) == len(lp.steps) >= 3  # (the kernels it fuses into)
    v2 = rand((32, 200), 8)  # v is read by the last kernel only: the first ones ran for nothing
    np.testing.assert_allclose(flash.exec(q, k, v2), (w / w.sum(1, keepdims=True)) @ v2,
                               rtol=1e-4, atol=1e-5)  # fmt: skip
    assert lp.quick == []  # so these launches are not tried again
    np.testing.assert_allclose(flash.exec(q, k, v), want, rtol=1e-4, atol=1e-5)


def _flash() -> Component:
    mm = i("ik*jk~ijk") >> i("+ijk~ij")
    return (mm >> ((I & i(">ij~i")) >> i("ij-i~ij")) >> i("^ij~ij")
            >> ((I & i("+ij~i")) >> i("ij/i~ij")) >> (i("ij*jk~ikj") >> i("+ikj~ik")))  # fmt: skip


@pytest.mark.parametrize("other", ["shape", "dtype", "list", "float64", "into"])
def test_a_call_after_one_that_dropped_the_quick_launches(other: str) -> None:
    """A call whose late-read input differs drops `lp.quick` (its first launches ran for
    nothing); where that call then fails (another shape or dtype: a LaunchError) or goes
    another way (a list: `_exec`; float64: launches of its own; `into=`), the next call
    with the first inputs runs as the first did (no launch of the dropped ones, no output
    that was never written: it raised IndexError there, #28), and so does the one after."""
    simt.use("cpu")
    flash = _flash()
    q, k, v = rand((32, 300), 5), rand((32, 300), 6), rand((32, 300), 7)
    s = q.astype(np.float64) @ k.T
    w = np.exp(s - s.max(1, keepdims=True))
    w /= w.sum(1, keepdims=True)
    for _ in range(2):
        np.testing.assert_allclose(flash.exec(q, k, v), w @ v, rtol=1e-4, atol=1e-5)
    lp = flash._quick  # type: ignore[attr-defined]
    assert lp is not None and len(lp.quick) == len(lp.steps) >= 3
    if other == "shape":
        with pytest.raises(simt.LaunchError, match="axis 'j' is 32"):
            flash.exec(q, k, rand((31, 300), 8))
    elif other == "dtype":
        with pytest.raises(simt.LaunchError, match="dtype"):
            flash.exec(q, k, v.astype(np.complex64))
    elif other == "list":
        np.testing.assert_allclose(flash.exec(q, k, v.tolist()), w @ v, rtol=1e-4, atol=1e-5)
    elif other == "float64":
        np.testing.assert_allclose(flash.exec(q, k, v.astype(np.float64)), w @ v, rtol=1e-4,
                                   atol=1e-5)  # fmt: skip
    else:
        into = np.zeros((32, 300), np.float32)
        flash.exec(q, k, v[:, :200].copy(), into=into[:, :200])  # (a late input that differs)
        np.testing.assert_allclose(into[:, :200], w @ v[:, :200], rtol=1e-4, atol=1e-5)
        flash.exec(q, k, v[:, :200].copy())  # drops the quick launches, then runs
    kept = flash._quick  # type: ignore[attr-defined]
    assert kept is None or len(kept.quick) == len(kept.steps)  # none dropped is kept
    for _ in range(2):
        np.testing.assert_allclose(flash.exec(q, k, v), w @ v, rtol=1e-4, atol=1e-5)


def test_quick_runs_nothing_without_a_launch_for_every_step() -> None:
    """`run.quick` gives an output only where a fast launch of its own ran for every step:
    with none (`lp.quick` dropped to [], or not made yet) it runs nothing and says None."""
    simt.use("cpu")
    add = i("ij+ij~ij")
    x = rand((6, 9), 1)
    add.exec(x, x)
    lp = add._quick  # type: ignore[attr-defined]
    assert lp is not None and R.quick(lp, (x, x)) is not None
    for dropped in ([], None):
        lp.quick = dropped
        assert R.quick(lp, (x, x)) is None
