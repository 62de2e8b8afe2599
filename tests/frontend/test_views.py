"""Array views in kernels: no copy, right extents, checked against the view on sim, clear
errors for what views cannot do."""

from __future__ import annotations

import copy
from collections.abc import Iterator

import numpy as np
import pytest

import simt
from simt.errors import CompileError, KernelError
from simt.ir.nodes import walk
from simt.pipeline import prepare
from simt.runtime import registry

BACKENDS = [b for b in ("sim", "cpu", "webgpu") if b == "sim" or registry.probe(b)[0]]


@pytest.fixture(autouse=True)
def keep_backend(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    yield


@simt.kernel
def shapes(a, out, lo):
    v = a[1:-1, ::2]
    r = a[lo]
    c = a[:, 2]
    s = a[lo:, 3:1:-1]
    out[0], out[1] = v.shape
    out[2], out[3], out[4] = len(r), len(c), v.ndim
    out[5], out[6] = s.shape
    out[7] = s.size
    out[8] = a[5:2].shape[0]  # an empty slice


@pytest.mark.parametrize("backend", ["sim", "cpu"])
def test_len_and_shape_of_views(backend: str) -> None:
    simt.use(backend)
    a = np.zeros((6, 7), np.float32)
    out = np.zeros(9, np.int32)
    shapes[1, 1](a, out, 4)
    v, s = a[1:-1, ::2], a[4:, 3:1:-1]
    assert out.tolist() == [*v.shape, 7, 6, 2, *s.shape, s.size, 0]


@simt.kernel
def read_inner(a, out):
    i = simt.grid(1)
    inner = a[1:-1]
    out[i] = inner[i]


@pytest.mark.parametrize("backend", BACKENDS)
def test_out_of_bounds_of_the_view_is_a_kernel_error_on_every_backend(backend: str) -> None:
    """The view's extent, not the array's, bounds its index: `inner[8]` is `a[9]`, inside `a`,
    yet outside `inner`. Compiled backends dropped this check outside debug mode and read
    `a[9]` silently (cpu, webgpu); now it is a check like an array's."""
    simt.use(backend)
    with pytest.raises(KernelError, match="index out of bounds of a view of `a`") as e:
        read_inner[1, 9](np.arange(10, dtype=np.float32), np.zeros(9, np.float32))
    assert e.value.thread == (8, 0, 0)  # inner has 8 elements; a[9] exists but inner[8] does not
    assert "inner[i]" in (e.value.source_line or "")


def _view_checks(k: simt.Kernel, backend: str, *args: object) -> int:
    fn, _ = k.specialised_ir(*args)
    prepared = prepare(copy.deepcopy(fn), backend)  # prepare changes the IR in place
    ops = walk(prepared.body)
    return sum(op.opcode == "assert" and bool(op.attrs.get("view_check")) for op in ops)


def test_boundscheck_false_drops_the_view_checks_with_the_arrays() -> None:
    a, out = np.zeros(10, np.float32), np.zeros(9, np.float32)
    assert _view_checks(read_inner, "cpu", a, out) >= 1
    unchecked = simt.kernel(boundscheck=False)(read_inner.pyfunc)
    assert _view_checks(unchecked, "cpu", a, out) == 0
    simt.use("cpu")
    unchecked[1, 8](np.arange(10, dtype=np.float32), out)  # in bounds: the same answer
    assert out[:8].tolist() == list(range(1, 9))


def test_views_are_not_copies() -> None:
    @simt.kernel
    def write_through(a):
        row = a[2]
        col = a[:, 1]
        row[3] = 7.0
        col[0] += 5.0

    for backend in ("sim", "cpu"):
        simt.use(backend)
        a = np.zeros((4, 5), np.float32)
        write_through[1, 1](a)
        assert a[2, 3] == 7 and a[0, 1] == 5 and a.sum() == 12


@pytest.mark.parametrize(
    "body, message",
    [
        ("a[1:3] = 0.0", "assigning a .* to a slice or a whole row is not supported"),
        ("a[1:3] = a[4:6]", "assigning an array view to a slice"),
        ("a[::n] [0] = 1.0", "step of a slice must be a non-zero integer known"),
        ("a[::0][0] = 1.0", "step of a slice"),
        ("a[1:][0, 0] = 1.0", "has 1 dimension"),
        ("a[0.5:][0] = 1.0", "slice bounds must be integers"),
    ],
)
def test_errors_name_the_construct(tmp_path, body: str, message: str) -> None:  # type: ignore[no-untyped-def]
    import importlib.util

    src = tmp_path / "k_bad_view.py"
    src.write_text(f"import simt\n\n@simt.kernel\ndef k(a, n):\n    {body}\n")
    spec = importlib.util.spec_from_file_location("k_bad_view", src)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    simt.use("sim")
    with pytest.raises(CompileError, match=message) as e:
        mod.k[1, 1](np.zeros(8, np.float32), 2)
    assert e.value.line == 5


@simt.kernel
def fill_three(a, lo, hi):
    a[lo:hi] = [1.0, 2.0, 3.0]


@pytest.mark.parametrize("backend", ["sim", "cpu", "webgpu"])
def test_slice_assignment_checks_the_length(backend: str) -> None:
    from simt.runtime import registry

    if not registry.probe(backend)[0]:
        pytest.skip(f"{backend} is not available here")
    simt.use(backend)
    a = np.zeros(8, np.float32)
    fill_three[1, 1](a, 2, 5)
    assert a.tolist() == [0, 0, 1, 2, 3, 0, 0, 0]
    with pytest.raises(KernelError, match="the slice of `a` assigned to does not have 3 elem"):
        fill_three[1, 1](np.zeros(8, np.float32), 2, 6)  # four elements for three values
