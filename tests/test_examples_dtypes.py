"""The element-type examples and benchmark run and check themselves (small sizes, cpu)."""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_uint8_sobel_example_on_a_pillow_png(tmp_path: Path, monkeypatch, capsys) -> None:  # type: ignore[no-untyped-def]
    pytest.importorskip("PIL")
    import numpy as np
    from PIL import Image

    photo = tmp_path / "in.png"
    y, x = np.mgrid[0:40, 0:56]
    Image.fromarray(np.stack([x * 4, y * 6, (x + y) * 3], -1).astype(np.uint8)).save(photo)
    out = tmp_path / "edges.png"
    argv = ["uint8_sobel.py", str(photo), "--backend", "cpu", "--out", str(out)]
    monkeypatch.setattr(sys, "argv", argv)
    runpy.run_path(str(ROOT / "examples" / "uint8_sobel.py"), run_name="__main__")
    assert "56 x 40 uint8 RGB -> uint8 edges" in capsys.readouterr().out
    assert np.asarray(Image.open(out)).dtype == np.uint8


def test_dtype_benchmark_checks_its_results(monkeypatch, capsys) -> None:  # type: ignore[no-untyped-def]
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        import dtypes
    finally:
        sys.path.pop(0)
    dtypes.main(["--backend", "cpu", "--size", "64", "--iters", "20", "--rounds", "1"])
    text = capsys.readouterr().out
    assert "uint8 vs float32" in text and "complex vs real" in text
