"""Files in `@simt.kernel`: each thread opens a path made at run time (an f-string of its
index) for writing, writes text and values, closes it (or leaves `with open(...)`); the files
land after the launch through `simt.filewrites`, the code the REPL uses. Reading a file in a
kernel is reading it while compiling (`open(path, "rb").read()`: a constant table)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import simt
from simt.backends import cuda
from simt.runtime import nvrtc, registry
from simt.runtime.cuda import nvrtc_options

OUT: list[str] = [""]  # the directory the kernels write into (set per test)


@simt.kernel
def dump(a, n):
    i = simt.grid(1)
    if i < n:
        f = open(f"{OUT[0]}/part{i}.txt", "w")
        f.write(f"{i}: {a[i]:.2f}\n")
        f.write(a[i] * 2)
        f.close()
        print("thread", i, "wrote")
        with open(f"{OUT[0]}/with{i}.txt", "w") as g:
            g.write(f"w{i % 2}")
        h = open(f"{OUT[0]}/log.txt", "a")
        h.write(f"t{i} ")


@simt.kernel
def clash(n):
    i = simt.grid(1)
    if i < n:
        f = open(f"{OUT[0]}/same.txt", "w")
        f.write(i)


@pytest.mark.parametrize("backend", ["sim", "cpu", "webgpu"])
def test_threads_write_their_files(
    backend: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ok, why = registry.probe(backend)
    if not ok:
        pytest.skip(f"{backend} not present: {why}")
    OUT[0] = str(tmp_path)
    simt.use(backend)
    dump[1, 4](np.arange(4, dtype=np.float32) * 1.5, 3)
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["log.txt", *(f"part{i}.txt" for i in range(3)),
                     *(f"with{i}.txt" for i in range(3))]  # fmt: skip
    assert (tmp_path / "part2.txt").read_text() == "2: 3.00\n6.0"
    assert (tmp_path / "with1.txt").read_text() == "w1"
    assert (tmp_path / "log.txt").read_text() == "t0 t1 t2 "  # "a": thread order
    assert capsys.readouterr().out == "thread 0 wrote\nthread 1 wrote\nthread 2 wrote\n"


def test_two_threads_writing_one_file_is_an_error_and_nothing_lands(tmp_path: Path) -> None:
    OUT[0] = str(tmp_path)
    simt.use("cpu")
    with pytest.raises(simt.KernelError, match=r"threads 0 and 1 both open .*same.txt"):
        clash[1, 4](2)
    assert not (tmp_path / "same.txt").exists()


@pytest.mark.skipif(nvrtc.version() is None, reason="NVRTC is not installed")
def test_a_kernel_writing_files_compiles_with_nvrtc(tmp_path: Path) -> None:
    OUT[0] = str(tmp_path)

    class IrOnly:
        name = "cuda"

        def compile(self, fn):  # type: ignore[no-untyped-def]
            from simt.runtime.base import Compiled

            return Compiled(fn, "")

        def has_int64(self) -> bool:
            return True

    fn = dump.specialise([np.zeros(4, np.float32), 3], IrOnly()).fn
    kern = cuda.build(fn)
    nvrtc.compile_cubin(kern.source, "sm_80", nvrtc_options(kern))
