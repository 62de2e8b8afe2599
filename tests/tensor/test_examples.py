"""The peer's FlashAttention example (ilang-dev/i, ilang-python/examples/flash_attn.py: its
expressions and tolerances, q, k, v of 32 x 2048) on every backend, both its fused and its
naive schedules; and compiling once: in memory, and on disk for a new process."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np

from simt.tensor import I, i
from simt.tensor import run as R


def rand(shape: tuple[int, ...], seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape, dtype=np.float32)


def reference(q: np.ndarray, k: np.ndarray, v: np.ndarray) -> np.ndarray:
    s = q.astype(np.float64) @ k.T.astype(np.float64)
    w = np.exp(s - s.max(1, keepdims=True))
    return (w / w.sum(1, keepdims=True)) @ v.astype(np.float64)


def flash() -> object:
    mm_t = i("ik*jk~ijk | i:16,j:16 | jii'j'k") >> i("+ijk~ij | i:16,j:16 | jii'j'k0")
    row_max_shift = (I & i(">ij~i | i:16,j:16 | ji0i'j'")) >> i("ij-i~ij | i:16,j:16 | ji01i'j'")
    exp = i("^ij~ij | i:16,j:16 | ji0i'j'")
    row_normalize = (I & i("+ij~i | i:16,j:16 | ji0i'j'")) >> i("ij/i~ij | i:16,j:16 | ji01i'j'")
    mm = i("ij*jk~ikj | i:16,j:16 | ji0i'kj'") >> i("+ikj~ik | i:16,j:16 | jii'kj'0")
    return mm_t >> row_max_shift >> exp >> row_normalize >> mm


def naive() -> object:
    mm_t = i("ik*jk~ijk | i:16,j:16 | jii'j'k") >> i("+ijk~ij | i:16,j:16 | jii'j'k0")
    row_max_shift = (I & i(">ij~i | i:16,j:16 | jii'j'")) >> i("ij-i~ij | i:16,j:16 | 1jii'j'")
    exp = i("^ij~ij | i:16,j:16 | jii'j'")
    row_normalize = (I & i("+ij~i | i:16,j:16 | jii'j'")) >> i("ij/i~ij | i:16,j:16 | 1jii'j'")
    mm = i("ij*jk~ikj | i:16,j:16 | jii'kj'") >> i("+ikj~ik | i:16,j:16 | jii'kj'0")
    return mm_t >> row_max_shift >> exp >> row_normalize >> mm


def test_flash_attention_example(backend: str) -> None:
    q, k, v = rand((32, 2048), 1), rand((32, 2048), 2), rand((32, 2048), 3)
    want = reference(q, k, v)
    fused, plain = flash(), naive()
    for comp in (fused, plain):
        got = comp.exec(q, k, v)  # type: ignore[attr-defined]
        np.testing.assert_allclose(got, want, rtol=3e-4, atol=5e-5)
    # the fused schedule needs fewer kernels than the naive one (5: one per stage)
    n_fused = fused.ir(q, k, v).count("# kernel ")  # type: ignore[attr-defined]
    n_naive = plain.ir(q, k, v).count("# kernel ")  # type: ignore[attr-defined]
    assert n_fused < n_naive == 5


def test_compiled_once_per_signature(host_backend: str) -> None:
    comp = i("i*i~i")
    x = rand((10,), 1)
    comp.exec(x, x)
    n = len(R._programs)
    comp.exec(x * 2, x)  # same dtypes and ranks: no new program
    i("i*i~i").exec(rand((7,), 2), x[:7])  # an equal component, another shape: none either
    assert len(R._programs) == n
    comp.exec(x.astype(np.float64), x)  # another dtype: a new one
    assert len(R._programs) == n + 1


def test_a_new_process_reads_the_disk_cache(tmp_path: Path) -> None:
    script = (
        "import numpy as np, simt\n"
        "from simt.tensor import i, I\n"
        "simt.use('cpu')\n"
        "x = np.arange(12, dtype=np.float32).reshape(3, 4)\n"
        "sm = (I & i('>ij~i')) >> i('ij-i~ij') >> i('^ij~ij') >> (I & i('+ij~i')) >> i('ij/i~ij')\n"
        "print(repr(sm.exec(x).round(5).tolist()))\n"
    )
    env = {**os.environ, "SIMT_CACHE_DIR": str(tmp_path), "PYTHONPATH": os.pathsep.join(sys.path)}
    first = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True)
    assert first.returncode == 0, first.stderr
    entries = sorted(p.name for p in (tmp_path / "cpu").iterdir())
    assert entries  # the compiled kernel is on disk
    second = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True)
    assert second.returncode == 0, second.stderr
    assert second.stdout == first.stdout
    assert sorted(p.name for p in (tmp_path / "cpu").iterdir()) == entries  # read, not rebuilt
