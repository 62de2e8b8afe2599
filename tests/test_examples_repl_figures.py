"""examples/repl_figures.py: the REPL idea's Figures 3-6, run through `simt.repl.Session` as
a library, give the right answers on sim and cpu (and the script runs as a program)."""

from __future__ import annotations

import importlib.util
import io
import runpy
from pathlib import Path

import numpy as np
import pytest

from simt.repl import PlainSink, Session

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "repl_figures.py"


def _load():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("repl_figures", EXAMPLE)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


figures = _load()


@pytest.mark.parametrize("backend", ["sim", "cpu"])
def test_figures(backend: str, tmp_path: Path) -> None:
    assert figures.figure3(backend, 256) == (np.arange(256) * 0.5 + 1).mean()
    assert "b'hello from thread 0'" in figures.figure4(tmp_path, backend, 32)
    assert figures.figure5(tmp_path, backend, 8) == [f"thread {t}: {t * t}\n" for t in range(8)]
    w, h = 16, 8
    img = figures.figure6(w, h, backend)
    t = np.arange(w * h)
    cx, cy = -2.0 + 2.6 * (t % w) / w, -1.2 + 2.4 * (t // w) / h
    zx, zy, k = np.zeros(w * h), np.zeros(w * h), np.zeros(w * h)
    for _ in range(40):
        go = zx * zx + zy * zy < 4.0
        zx, zy = np.where(go, zx * zx - zy * zy + cx, zx), np.where(go, 2 * zx * zy + cy, zy)
        k += go
    v = k / 40
    np.testing.assert_allclose(img.reshape(-1, 3), np.stack([v, v * v, 1 - v], 1))


def test_the_script_runs(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sys.argv", [str(EXAMPLE), "sim"])
    runpy.run_path(str(EXAMPLE), run_name="__main__")
    out = capsys.readouterr().out
    assert "Figure 3: the average, by a block through a shared cache: 64.75" in out
    assert "Figure 6: a 32 x 24 RGB image" in out


def test_bind_array_writes_land_in_the_callers_array() -> None:
    s = Session(PlainSink(io.StringIO()), threads=8, backend="sim")
    a = np.zeros(8, np.int64)
    s.bind_array("a", a)
    assert s.run("a[tid] = tid * 3\ny = tid + 1")
    assert (a == np.arange(8) * 3).all() and s.values("a") is a
    assert (s.values("y") == np.arange(8) + 1).all()
    with pytest.raises(ValueError, match="NumPy array"):
        s.bind_array("b", [1, 2])  # type: ignore[arg-type]


def test_with_open_reads_and_writes_in_the_repl(tmp_path: Path) -> None:
    out = io.StringIO()
    s = Session(PlainSink(out), threads=4, backend="sim")
    assert s.run(f'with open(f"{tmp_path}/{{tid}}.txt", "w") as f:\n    f.write(f"n={{tid}}")\n')
    assert (tmp_path / "2.txt").read_text() == "n=2"
    assert s.run(f'with open("{tmp_path}/3.txt") as g:\n    s3 = g.read()\n')
    out.truncate(0)
    assert s.run("s3") and "b'n=3'" in out.getvalue()
