"""The IR fingerprint that keys the disk caches which skip rendering (`runtime/fingerprint.py`,
`webgpu_cache`): the same kernel gives the same text in every process. A kernel whose threads
may raise carries the host's failure decoder (a function) among its attributes, whose repr
holds its address in the process: with it in the text, a new process never found the WGSL
the last one stored (W1 on webgpu: 759 ms ready in a new process on the H100, 484 ms its
first compile, 2026-11-27)."""

from __future__ import annotations

import copy
import hashlib
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
from tests.spawn_env import pythonpath

import simt
from simt.pipeline import for_runtime
from simt.runtime.fingerprint import fingerprint

ROOT = Path(__file__).resolve().parents[2]

CHILD = """
import copy
import hashlib
import numpy as np
from tests.runtime.test_fingerprint import raising_ir
from simt.runtime.fingerprint import fingerprint
print(hashlib.sha256(fingerprint(raising_ir()).encode()).hexdigest())
"""


def _colsum(a, out):  # noqa: ANN001, ANN202 - a kernel (W1's): out[j] raises IndexError
    j = simt.block_idx.x * simt.block_dim.x + simt.thread_idx.x
    if j < a.shape[1]:
        s = 0.0
        for i in range(a.shape[0]):
            s += a[i, j]
        out[j] = s


def raising_ir() -> object:
    k = simt.kernel(_colsum)
    specs = k.arg_specs(np.ones((4, 8), np.float32), np.zeros(8))
    return for_runtime(k.build_ir(specs), "webgpu")  # as a launch on webgpu compiles it


def test_a_raising_kernel_has_the_same_fingerprint_in_a_new_process() -> None:
    fn = raising_ir()
    assert "decode_failures" in fn.attrs  # type: ignore[attr-defined]
    text = fingerprint(fn)  # type: ignore[arg-type]
    assert " at 0x" not in text, text[:500]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([pythonpath(), str(ROOT)]))
    res = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True,
                         text=True, timeout=120, cwd=ROOT)  # fmt: skip
    assert res.returncode == 0, res.stderr[-2000:]
    assert res.stdout.strip() == hashlib.sha256(text.encode()).hexdigest()


def test_two_closures_of_one_name_do_not_share_a_fingerprint() -> None:
    """A closure or a lambda among the attributes keeps its repr (its address): two of them
    under one qualified name may differ, and a cache miss is safe where a shared key is not."""

    def make(k: int) -> object:
        return lambda x: x + k

    fn = raising_ir()
    a, b = copy.copy(fn), copy.copy(fn)  # type: ignore[arg-type]
    a.attrs = dict(fn.attrs, hook=make(1))  # type: ignore[attr-defined]
    b.attrs = dict(fn.attrs, hook=make(2))  # type: ignore[attr-defined]
    assert fingerprint(a) != fingerprint(b)  # type: ignore[arg-type]


def test_the_webgpu_cache_key_follows_every_source_file() -> None:
    """The WGSL cache's renderer digest is the whole source tree's (the WGSL renderer is a
    subclass of clike's, which its old list of files left out)."""
    from simt.runtime import cpu_cache, webgpu_cache
    from simt.runtime.fingerprint import source_digest

    assert webgpu_cache.renderer_digest() == source_digest() == cpu_cache.lowering_digest()
