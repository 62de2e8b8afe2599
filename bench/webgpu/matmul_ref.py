"""A float32 matmul written by hand in WGSL: the reference `bench/tensor.py --backend webgpu`
compares simt's GEMM schedules against (issue #28 item 4: within 1.25x of it on a GPU).

    PYTHONPATH=src python bench/webgpu/matmul_ref.py [--n 256]   # check it, time it

The kernel has the form WebGPU matmul write-ups reach (shared tiles and register blocks, as in
the usual "tiled matmul" walk-throughs of WebGPU compute): a workgroup of 16 x 16 invocations
computes a 64 x 64 tile of C; for each slice of 16 values of k it stages A's 64 x 16 and B's
16 x 64 panels in workgroup memory (each invocation copies 4 values of each, A read along its
rows, B along its columns: neighbouring invocations read neighbouring words), meets the
others at a barrier, and multiplies-adds its 4 x 4 register block from there, loading 4 values
of each panel per k. Edges: staging writes zeros past the matrices' ends and the stores are
guarded, so any M x K by K x N works. Written for this benchmark, not taken from one.

On lavapipe (Mesa's CPU Vulkan, what CI and the dev machine have) it runs for correctness
only: its times say nothing about a GPU.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from typing import Any

import numpy as np

TILE, BK, THREADS, REG = 64, 16, 16, 4  # C tile, k slice, invocations a side, register block

WGSL = f"""
struct Dims {{ m: u32, n: u32, k: u32, pad: u32 }}

@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read_write> c: array<f32>;
@group(0) @binding(3) var<uniform> dims: Dims;

var<workgroup> sa: array<f32, {BK * TILE}>;  // [k][row]
var<workgroup> sb: array<f32, {BK * TILE}>;  // [k][col]

@compute @workgroup_size({THREADS}, {THREADS})
fn main(@builtin(local_invocation_id) lid: vec3<u32>,
        @builtin(workgroup_id) wid: vec3<u32>) {{
    let tid = lid.y * {THREADS}u + lid.x;
    let row0 = wid.y * {TILE}u;
    let col0 = wid.x * {TILE}u;
    var acc: array<f32, {REG * REG}>;
    var av: array<f32, {REG}>;
    var bv: array<f32, {REG}>;
    for (var k0 = 0u; k0 < dims.k; k0 += {BK}u) {{
        for (var e = 0u; e < {BK * TILE // (THREADS * THREADS)}u; e++) {{
            let i = tid + e * {THREADS * THREADS}u;
            // A along its rows (k fastest), B along its columns
            let ak = i % {BK}u;
            let ar = i / {BK}u;
            var x = 0.0;
            if (row0 + ar < dims.m && k0 + ak < dims.k) {{
                x = a[(row0 + ar) * dims.k + k0 + ak];
            }}
            sa[ak * {TILE}u + ar] = x;
            let bc = i % {TILE}u;
            let bk = i / {TILE}u;
            var y = 0.0;
            if (k0 + bk < dims.k && col0 + bc < dims.n) {{
                y = b[(k0 + bk) * dims.n + col0 + bc];
            }}
            sb[bk * {TILE}u + bc] = y;
        }}
        workgroupBarrier();
        for (var kk = 0u; kk < {BK}u; kk++) {{
            for (var r = 0u; r < {REG}u; r++) {{
                av[r] = sa[kk * {TILE}u + lid.y * {REG}u + r];
                bv[r] = sb[kk * {TILE}u + lid.x * {REG}u + r];
            }}
            for (var r = 0u; r < {REG}u; r++) {{
                for (var q = 0u; q < {REG}u; q++) {{
                    acc[r * {REG}u + q] = acc[r * {REG}u + q] + av[r] * bv[q];
                }}
            }}
        }}
        workgroupBarrier();
    }}
    for (var r = 0u; r < {REG}u; r++) {{
        for (var q = 0u; q < {REG}u; q++) {{
            let row = row0 + lid.y * {REG}u + r;
            let col = col0 + lid.x * {REG}u + q;
            if (row < dims.m && col < dims.n) {{
                c[row * dims.n + col] = acc[r * {REG}u + q];
            }}
        }}
    }}
}}
"""


class HandMatmul:
    """The hand-written WGSL matmul of `a` (M x K) and `b` (K x N), float32, on simt's WebGPU
    device: the operands uploaded once, `run()` dispatches (and waits for) one product,
    `result()` reads C back."""

    def __init__(self, a: np.ndarray, b: np.ndarray) -> None:
        import wgpu

        from simt.runtime.webgpu_device import open_device

        a = np.ascontiguousarray(a, np.float32)
        b = np.ascontiguousarray(b, np.float32)
        (m, k), (k2, n) = a.shape, b.shape
        if k != k2:
            raise ValueError(f"inner dimensions differ: {a.shape} @ {b.shape}")
        self.shape = (m, n)
        dev = self.dev = open_device().device
        usage = wgpu.BufferUsage
        self.a = dev.create_buffer_with_data(data=a.tobytes() or b"\0" * 4, usage=usage.STORAGE)
        self.b = dev.create_buffer_with_data(data=b.tobytes() or b"\0" * 4, usage=usage.STORAGE)
        self.c = dev.create_buffer(size=max(m * n * 4, 4), usage=usage.STORAGE | usage.COPY_SRC)
        dims = np.array([m, n, k, 0], np.uint32).tobytes()
        self.dims = dev.create_buffer_with_data(data=dims, usage=usage.UNIFORM)
        module = dev.create_shader_module(code=WGSL)
        stage = {"module": module, "entry_point": "main"}
        self.pipe = dev.create_compute_pipeline(layout="auto", compute=stage)
        bufs = (self.a, self.b, self.c, self.dims)
        self.group = dev.create_bind_group(
            layout=self.pipe.get_bind_group_layout(0),
            entries=[{"binding": j, "resource": {"buffer": x}} for j, x in enumerate(bufs)],
        )
        self.grid = (-(-n // TILE), -(-m // TILE), 1)

    def run(self) -> None:
        """One product, waited for (a read of one word of C after the dispatch)."""
        enc = self.dev.create_command_encoder()
        cpass = enc.begin_compute_pass()
        cpass.set_pipeline(self.pipe)
        cpass.set_bind_group(0, self.group)
        cpass.dispatch_workgroups(*self.grid)
        cpass.end()
        self.dev.queue.submit([enc.finish()])
        self.dev.queue.read_buffer(self.c, 0, 4)

    def result(self) -> np.ndarray:
        m, n = self.shape
        raw = self.dev.queue.read_buffer(self.c, 0, max(m * n * 4, 4))
        return np.frombuffer(raw, np.float32)[: m * n].reshape(m, n).copy()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=256)
    ap.add_argument("--reps", type=int, default=5)
    args = ap.parse_args(argv)
    rng = np.random.default_rng(0)
    a = rng.standard_normal((args.n, args.n), dtype=np.float32)
    b = rng.standard_normal((args.n, args.n), dtype=np.float32)
    ref = HandMatmul(a, b)
    ref.run()
    want = a.astype(np.float64) @ b.astype(np.float64)
    got: Any = ref.result()
    err = float(np.abs(got - want).max() / np.abs(want).max())
    if not err <= 1e-5:
        print(f"hand WGSL matmul: WRONG RESULT (relative error {err:.2e})")
        return 1
    times = []
    for _ in range(args.reps):
        t0 = time.perf_counter()
        ref.run()
        times.append(time.perf_counter() - t0)
    from simt.runtime.webgpu_device import open_device

    print(f"hand WGSL matmul {args.n}: correct (relative error {err:.1e}); "
          f"{statistics.median(times) * 1e3:.3g} ms on {open_device().name}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
