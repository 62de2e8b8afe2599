"""Which WGSL constructs a WebGPU driver fails to compile: one small shader per construct,
each created (shader module, compute pipeline) and run in its own process, since a driver
whose compiler fails may lose the device (NVIDIA's Vulkan driver, H100, 2026-11-26: "NVVM
compilation failed: 1", then wgpu's "Parent device is lost").

    python bench/gpu/wgsl_probe.py            # every probe, ~1-2 s each; prints a table
    python bench/gpu/wgsl_probe.py NAME ...   # only these

The float64 probes bisect the failure of fuzz seeds 1, 89 and 100 on that card: their
shaders were the only ones with a float64 `%` (simt_fmod_f64: WGSL's frexp and ldexp of
f64, since replaced by bit arithmetic); `fmod_f64_frexp` is that first form, `fmod_f64` the
current one (simt's own helper text). The int64 probes bisect the corpus case big_constants
(x * 2**31 came out as x * -2**31 there) and `div_f64` the one-ulp float64 quotient of
test_print_matches_sim. Each line: the probe, ok (with the values
the shader computed, to compare with the expected ones) or FAIL with what the driver and wgpu
said.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"

# name -> (WGSL body computing `out[i]` from `x = xs[i]`, element type, inputs, expected)
PROBES: dict[str, tuple[str, str, list[float], list[float]]] = {
    "control_f32": ("out[i] = x * 2.0f;", "f32", [1.5, -3.0], [3.0, -6.0]),
    "frexp_f32": ("out[i] = f32(frexp(x).exp);", "f32", [1.5, 8.0], [1.0, 4.0]),
    "control_f64": ("out[i] = x * 2.0lf;", "f64", [1.5, -3.0], [3.0, -6.0]),
    "bitcast_f64": ("out[i] = bitcast<f64>(bitcast<u64>(x) ^ 1lu);", "f64", [1.0],
                    [1.0000000000000002]),
    "frexp_f64_exp": ("out[i] = f64(frexp(x).exp);", "f64", [1.5, 8.0], [1.0, 4.0]),
    "frexp_f64_fract": ("out[i] = frexp(x).fract;", "f64", [1.5, 8.0], [0.75, 0.5]),
    "ldexp_f64": ("out[i] = ldexp(x, i32(i) + 1i);", "f64", [1.5, 8.0], [3.0, 32.0]),
    "fmod_f64_frexp": ("out[i] = simt_fmod_old(x, 0.3lf);", "f64", [1.0, 1e10],
                       [math.fmod(1.0, 0.3), math.fmod(1e10, 0.3)]),
    "fmod_f64": ("out[i] = simt_fmod_f64(x, 0.3lf);", "f64", [1.0, 1e10],
                 [math.fmod(1.0, 0.3), math.fmod(1e10, 0.3)]),
    # int64: NVIDIA gave x * 2147483648 as x * -2147483648 (corpus case big_constants);
    # simt now hides such constants behind a run-time zero (`mul_2p31_hidden`, `zero` = 0)
    "mul_2p31": ("out[i] = x * 2147483648li;", "i64", [-262, 5], [-262 * 2**31, 5 * 2**31]),
    "mul_2p31_hidden": ("out[i] = x * (2147483648li ^ i64(zero[0]));", "i64", [-262, 5],
                        [-262 * 2**31, 5 * 2**31]),
    "mul_2p36": ("out[i] = x * 68719476736li;", "i64", [-262, 5], [-262 * 2**36, 5 * 2**36]),
    "mul_3e9": ("out[i] = x * 3000000000li;", "i64", [-262, 5],
                [-262 * 3000000000, 5 * 3000000000]),
    "add_2p31": ("out[i] = x + 2147483648li;", "i64", [-262, 5], [-262 + 2**31, 5 + 2**31]),
    "shl_31": ("out[i] = x << 31u;", "i64", [-262, 5], [-262 * 2**31, 5 * 2**31]),
    # float64 division: NVIDIA gave 0.625 / 3.0 one ulp low (WGSL allows 2.5 ulp)
    "div_f64": ("out[i] = x / 3.0lf;", "f64", [0.625, 1.0], [0.625 / 3.0, 1.0 / 3.0]),
}

OLD_FMOD = """
fn simt_fmod_old(a: f64, b: f64) -> f64 {
    let m = abs(b);
    var r = abs(a);
    loop {
        if (r < m) { break; }
        var t = ldexp(m, i32(frexp(r).exp) - i32(frexp(m).exp));
        if (t > r) { t = t * 0.5lf; }
        r = r - t;
    }
    return select(r, -r, a < 0.0lf);
}
"""


def shader(name: str) -> str:
    body, t, _, _ = PROBES[name]
    sys.path.insert(0, str(SRC))
    from simt.backends.wgsl_helpers import helper

    extra = OLD_FMOD if "simt_fmod_old" in body else ""
    if "simt_fmod_f64" in body:
        extra = helper("simt_fmod_f64")
    zero = "@group(0) @binding(2) var<storage, read> zero: array<u32>;\n" if "zero[" in body else ""
    return f"""
@group(0) @binding(0) var<storage, read> xs: array<{t}>;
@group(0) @binding(1) var<storage, read_write> out: array<{t}>;
{zero}{extra}
@compute @workgroup_size(1)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {{
    let i = gid.x;
    let x = xs[i];
    {body}
}}
"""


def run_one(name: str) -> dict[str, object]:
    """Create and run probe `name` on the process's adapter (simt's choice)."""
    import numpy as np

    sys.path.insert(0, str(SRC))
    import wgpu

    from simt.runtime.webgpu_device import driver_output, open_device

    _, t, xs, want = PROBES[name]
    dev = open_device()
    d = dev.device
    dt = {"f32": np.float32, "f64": np.float64, "i64": np.int64}[t]
    data = np.array(xs, dt)
    stage = "shader module"
    with driver_output() as said:
        try:
            module = d.create_shader_module(code=shader(name))
            stage = "pipeline"
            pipe = d.create_compute_pipeline(
                layout="auto", compute={"module": module, "entry_point": "main"}
            )
            stage = "run"
            u = wgpu.BufferUsage
            a = d.create_buffer_with_data(data=data.tobytes(), usage=u.STORAGE)
            o = d.create_buffer(size=data.nbytes, usage=u.STORAGE | u.COPY_SRC)
            z = d.create_buffer_with_data(data=np.zeros(4, np.uint32).tobytes(), usage=u.STORAGE)
            entries = [
                {"binding": 0, "resource": {"buffer": a}},
                {"binding": 1, "resource": {"buffer": o}},
                {"binding": 2, "resource": {"buffer": z}},
            ]
            if "zero[" not in PROBES[name][0]:
                entries.pop()
            group = d.create_bind_group(layout=pipe.get_bind_group_layout(0), entries=entries)
            enc = d.create_command_encoder()
            cp = enc.begin_compute_pass()
            cp.set_pipeline(pipe)
            cp.set_bind_group(0, group)
            cp.dispatch_workgroups(len(xs))
            cp.end()
            d.queue.submit([enc.finish()])
            got = np.frombuffer(d.queue.read_buffer(o), dt).tolist()
        except Exception as e:  # noqa: BLE001 - the probe's finding
            err = " / ".join(ln.strip() for ln in str(e).splitlines() if ln.strip())
            result = {"ok": False, "stage": stage, "wgpu": err}
        else:
            result = {"ok": True, "got": got, "want": want, "right": got == want}
    result["driver"] = said
    result["adapter"] = dev.describe()
    return result


def _child(name: str) -> dict[str, object]:
    env = dict(os.environ, PYTHONPATH=str(SRC))
    try:
        p = subprocess.run([sys.executable, __file__, "--one", name], capture_output=True,
                           text=True, timeout=30, env=env)  # fmt: skip
    except subprocess.TimeoutExpired:
        return {"ok": False, "error": "no answer in 30 s"}
    line = p.stdout.strip().splitlines()[-1] if p.stdout.strip() else ""
    return json.loads(line) if line.startswith("{") else {"ok": False, "error": p.stderr[-300:]}


def main(argv: list[str]) -> int:
    if len(argv) == 2 and argv[0] == "--one":
        print(json.dumps(run_one(argv[1])))
        return 0
    names = argv or list(PROBES)
    # 4 processes at a time: a driver that loses its device loses only its own process's
    with ThreadPoolExecutor(4) as pool:
        for name, r in zip(names, pool.map(_child, names)):
            if r.get("ok"):
                right = r.get("right")
                verdict = "ok" if right else f"ok, WRONG: got {r['got']} want {r['want']}"
            else:
                verdict = f"FAIL at {r.get('stage', '?')}: {r.get('wgpu') or r.get('error')}"
            printed = r.get("driver")
            said = ""
            if isinstance(printed, list) and printed:
                said = f" (driver printed: {' / '.join(printed)})"
            print(f"{name:18} {verdict}{said}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
