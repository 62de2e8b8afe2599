"""Index expressions against NumPy, simt's hand-written kernel and the peer (`ilang-python`).

    PYTHONPATH=src .venv/bin/python bench/tensor.py              # the table in bench/RESULTS.md
    PYTHONPATH=src .venv/bin/python bench/tensor.py --quick      # small sizes, a smoke test
    PYTHONPATH=src .venv/bin/python bench/tensor.py --only flash # some workloads
    SIMT_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 PYTHONPATH=src .venv/bin/python bench/tensor.py
                                        # one thread each: steadier on a loaded machine
    PYTHONPATH=src .venv/bin/python bench/tensor.py --only parts   # q·kᵀ and P·v alone
    PYTHONPATH=src .venv/bin/python bench/tensor.py --backend webgpu --only matmul --quick
                                        # matmul against a hand-written WGSL one

Workloads (issues #16 and #28): matmul 1024 and 2048 (the chain `ik*kj~ijk >> +ijk~ij` with
no schedule, and tuned: `tune` picks a register-tiled GEMM schedule), the peer's
FlashAttention example (q, k, v of 32 x 2048) with its schedules, without them, and tuned,
its two contractions alone (q·kᵀ and P·v, simt's default schedules, against NumPy's `@`),
the MLP `(I | (mvp >> relu)) >> mvp`, and a row softmax of 4096 x 4096. Baselines: NumPy
(OpenBLAS for matmul), simt's hand-written naive matmul kernel (W6; on `webgpu` instead a
tiled matmul hand-written in WGSL, `bench/webgpu/matmul_ref.py`, the operands then on the
device for both), and ilang-python when it
is installed (`pip install ilang-python==0.1.0`, a benchmark-only peer; the table says so when
it is absent). Every result is checked against a float64 NumPy reference before anything is
timed. The variants of a workload take turns (interleaved rounds, each call timed with
`simt.benchtool.timing.sample`); the table shows medians of wall time and, next to them, of
this process's CPU time per call (on a shared machine a process is descheduled for whole
time slices: its CPU time says what a call costs when it has the cores). The targets of issue
#28 are printed as ratios: tuned matmul <= 1.25x NumPy, FlashAttention <= 1.5x NumPy,
softmax <= 1.5x NumPy. The load average is printed before and after.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import simt
from simt.benchtool.suite_cli import busy_cpu_s
from simt.benchtool.timing import sample
from simt.benchtool.workloads import matmul as w6
from simt.tensor import I, i

sys.path.insert(0, str(Path(__file__).resolve().parent / "webgpu"))
from matmul_ref import HandMatmul  # noqa: E402 - bench/webgpu/matmul_ref.py

try:
    import ilang  # type: ignore[import-not-found]
except ImportError:  # a benchmark-only peer
    ilang = None


def rand(shape: tuple[int, ...], seed: int) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape, dtype=np.float32)


def rel_err(got: Any, want: np.ndarray) -> float:
    got = np.asarray(got, np.float64)
    return float(np.abs(got - want).max() / max(np.abs(want).max(), 1e-30))


# ------------------------------------------------------------------------------ components
MATMUL = i("ik*kj~ijk") >> i("+ijk~ij")
MVP = i("ij*j~ij") >> i("+ij~i")
MLP = (I | (MVP >> i(">i~i"))) >> MVP
SOFTMAX = (I & i(">ij~i")) >> i("ij-i~ij") >> i("^ij~ij") >> (I & i("+ij~i")) >> i("ij/i~ij")


def flash(mod: Any) -> Any:
    """The peer's FlashAttention example (its expressions and schedule), in `mod`'s language."""
    c, ident = mod
    mm_t = c("ik*jk~ijk | i:16,j:16 | jii'j'k") >> c("+ijk~ij | i:16,j:16 | jii'j'k0")
    row_max_shift = (ident & c(">ij~i | i:16,j:16 | ji0i'j'")) >> c(
        "ij-i~ij | i:16,j:16 | ji01i'j'"
    )
    exp = c("^ij~ij | i:16,j:16 | ji0i'j'")
    row_normalize = (ident & c("+ij~i | i:16,j:16 | ji0i'j'")) >> c(
        "ij/i~ij | i:16,j:16 | ji01i'j'"
    )
    mm = c("ij*jk~ikj | i:16,j:16 | ji0i'kj'") >> c("+ikj~ik | i:16,j:16 | jii'kj'0")
    return mm_t >> row_max_shift >> exp >> row_normalize >> mm


def peer_components() -> dict[str, Any]:
    """The same computations in ilang-python (its fastest schedules we know of)."""
    if ilang is None:
        return {}
    c, ident = ilang.Component, ilang.Component.I
    mvp = c("ij*j~ij") >> c("+ij~i")
    return {
        "matmul": c("ik*kj~ijk") >> c("+ijk~ij"),
        "matmul-sched": c("ik*kj~ijk|i:16,k:16|ii'jkk'") >> c("+ijk~ij|i:16,k:16|ii'j!kk'0"),
        "flash": flash((c, ident)),
        "mlp": (ident | (mvp >> c(">i~i"))) >> mvp,
        "softmax": (ident & c(">ij~i")) >> c("ij-i~ij") >> c("^ij~ij") >> (ident & c("+ij~i"))
        >> c("ij/i~ij"),
    }  # fmt: skip


# ------------------------------------------------------------------------------ measuring
CPU: dict[str, float] = {}  # variant -> median CPU seconds per call (of the last interleave)
FASTEST: dict[str, float] = {}  # variant -> its fastest call (of the last interleave)
# OpenBLAS's worker threads spin on after each call for 2^28 cycles (its THREAD_TIMEOUT):
# measured here, a 1024 sgemm left 105 ms of one core's CPU spent while the caller slept
# (none with OPENBLAS_THREAD_TIMEOUT=4). A simt call right after a NumPy one shared the cores
# with that spinner, which simt's second thread paid for: a call after another library's
# waits this long first (`settle`), so each is measured as it runs when called again and again.
SETTLE_S = 0.2


def settle() -> None:
    """Wait until the threads of the last call stopped spinning (`SETTLE_S`): OpenBLAS's after
    NumPy's, simt's pool after simt's."""
    time.sleep(SETTLE_S)


def interleave(
    variants: dict[str, Callable[[], Any]], rounds: int, slow: set[str]
) -> dict[str, float]:
    """Median wall seconds of each variant, the variants taking turns in an order shuffled
    every round (a call pays for what ran before it: OpenBLAS's threads spinning on after
    NumPy's call, the peer's 8 MB temporaries freed; with the same cyclic order every round
    FlashAttention's first variant, always after the peer's, measured 1.9x slower than the
    same kernels measured elsewhere); `slow` ones run fewer rounds. A simt variant that follows
    NumPy's or the peer's (names starting so) runs after `settle`, and so does NumPy's or the
    peer's that follows simt's: until 2026-11-28 only simt's side paused, so NumPy's call read
    the arrays simt's had just brought into cache while simt's paid for a pause (every Python
    step costs microseconds after one), which made P·v 1.58-1.84x NumPy where both sides
    after a pause measure 1.13-1.15x (one thread, under load). The median CPU seconds of
    this process per call go to `CPU`, each variant's fastest call to `FASTEST`."""
    samples: dict[str, list[float]] = {k: [] for k in variants}
    cpu: dict[str, list[float]] = {k: [] for k in variants}
    sync = simt.synchronize
    CPU.clear()
    names = list(variants)
    order = random.Random(0)
    blas = {k for k in names if k.startswith(("numpy", "ilang"))}  # their calls may spin on
    prev = ""
    for r in range(rounds):
        for name in order.sample(names, len(names)):
            run = variants[name]
            if name in slow and r >= 2:
                continue
            if prev and (prev in blas) != (name in blas):
                settle()  # both ways: each side starts as the other did (after a pause)
            prev = name
            c0 = time.process_time()
            samples[name] += sample(run, sync, 0, 1, 0.0)
            cpu[name].append(time.process_time() - c0)
    CPU.update({k: statistics.median(v) for k, v in cpu.items() if v})
    FASTEST.clear()
    FASTEST.update({k: min(v) for k, v in samples.items() if v})
    return {k: statistics.median(v) for k, v in samples.items() if v}


def fresh_process_ms(cache: str) -> tuple[float, float]:
    """(first exec in a process with an empty disk cache, first exec in a new process with it
    warm), in ms, for the matmul chain (128 x 128)."""
    script = (
        "import time, numpy as np, simt\n"
        "from simt.tensor import i\n"
        "simt.use('cpu')\n"
        "a = np.ones((128, 128), np.float32)\n"
        "m = i('ik*kj~ijk') >> i('+ijk~ij')\n"
        "t0 = time.perf_counter(); m.exec(a, a); print((time.perf_counter() - t0) * 1e3)\n"
    )
    env = {**os.environ, "SIMT_CACHE_DIR": cache}
    out = []
    for _ in range(2):
        p = subprocess.run(
            [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True
        )
        out.append(float(p.stdout.strip()))
    return out[0], out[1]


def ms(s: float | None) -> str:
    if s is None:
        return "—"
    v = s * 1e3
    return f"{v:.3g}" if v < 1000 else f"{v / 1e3:.3g} s"


def ratio(a: float | None, b: float | None) -> str:
    return f"{a / b:.2f}x" if a and b else "—"


def plain_flash() -> Any:
    """The peer's FlashAttention example without its schedules (simt's defaults)."""
    mm_t = i("ik*jk~ijk") >> i("+ijk~ij")
    row_max_shift = (I & i(">ij~i")) >> i("ij-i~ij")
    row_normalize = (I & i("+ij~i")) >> i("ij/i~ij")
    mm = i("ij*jk~ikj") >> i("+ikj~ik")
    return mm_t >> row_max_shift >> i("^ij~ij") >> row_normalize >> mm


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small sizes (a smoke test)")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--backend", default="cpu")
    ap.add_argument("--budget", type=float, default=20.0, help="tune's budget, seconds")
    ap.add_argument("--only", default="matmul,flash,parts,mlp,softmax",
                    help="the workloads to run, comma-separated (default: all): matmul, "
                    "flash, parts (FlashAttention's q·kᵀ and P·v alone), mlp, softmax")
    args = ap.parse_args()
    only = set(args.only.split(","))
    simt.use(args.backend)
    q = args.quick
    sizes = [64, 128] if q else [1024, 2048]
    att = (32, 256) if q else (32, 2048)
    mlp_n = 256 if q else 4096
    soft = (256, 256) if q else (4096, 4096)
    peers = peer_components()
    rows: list[dict[str, Any]] = []
    load0 = os.getloadavg()
    busy0, wall0 = busy_cpu_s(), time.perf_counter()
    own0 = os.times()

    def check(name: str, got: Any, want: np.ndarray, tol: float) -> None:
        err = rel_err(got, want)
        if not err <= tol:
            raise SystemExit(f"{name}: wrong answer (relative error {err:.2e} > {tol:.0e})")

    # matmul --------------------------------------------------------------------------------
    def matmul_row(n: int) -> dict[str, Any]:
        a, b = rand((n, n), 1), rand((n, n), 2)
        want = a.astype(np.float64) @ b.astype(np.float64)
        c = np.empty((n, n), np.float32)
        grid = ((n + 15) // 16, (n + 15) // 16)
        hand = None
        xa, xb = a, b  # simt's operands
        if args.backend == "webgpu":  # the reference: a matmul hand-written in WGSL
            hand = HandMatmul(a, b)
            hand.run()
            check("hand-written WGSL", hand.result(), want, 1e-4)
            xa, xb = simt.to_device(a), simt.to_device(b)  # compared without host copies
        t0 = time.perf_counter()
        check("simt chain", MATMUL.exec(xa, xb), want, 1e-4)
        first = time.perf_counter() - t0
        settle()  # the float64 reference's BLAS threads: `tune` times turns from the start
        t0 = time.perf_counter()
        tuned = MATMUL.tune(xa, xb, budget=args.budget)
        tune_s = time.perf_counter() - t0
        check("simt tuned", tuned.exec(xa, xb), want, 1e-4)
        check("numpy", a @ b, want, 1e-4)
        variants: dict[str, Callable[[], Any]] = {
            "simt": lambda: MATMUL.exec(xa, xb),
            "tuned": lambda: tuned.exec(xa, xb),
            "numpy": lambda: a @ b,
        }
        # (simt's default runs every round: with two calls, as when it was a thread kernel of
        # ~300 ms, its median was two samples of a spread of 14-27 ms at 1024)
        slow: set[str] = set()
        if hand is not None:
            variants["hand"] = hand.run
        if n <= 1024 and hand is None:
            w6[grid, (16, 16)](a, b, c)
            check("W6", c, want, 1e-4)
            variants["W6"] = lambda: w6[grid, (16, 16)](a, b, c)
            slow.add("W6")
            for key in ("matmul", "matmul-sched"):
                if key in peers:
                    check(f"ilang {key}", peers[key].exec(a, b), want, 1e-4)
                    variants[f"ilang {key}"] = lambda p=peers[key]: p.exec(a, b)
                    slow.add(f"ilang {key}")
        t = interleave(variants, args.rounds, slow)
        cpu = dict(CPU)
        peer = min((t[k] for k in t if k.startswith("ilang")), default=None)
        return {
            "name": f"matmul {n}", "simt": t["simt"], "tuned": t["tuned"], "W6": t.get("W6"),
            "numpy": t["numpy"], "peer": peer, "first": first, "tune": tune_s,
            "schedule": tuned.text(), "flops": 2.0 * n**3, "cpu": cpu,
            "target": ("tuned", 1.25), "hand": t.get("hand"),
        }  # fmt: skip

    if "matmul" in only:
        rows.extend(matmul_row(n) for n in sizes)

    # flash attention -----------------------------------------------------------------------
    def flash_row() -> None:
        qq, kk, vv = rand(att, 1), rand(att, 2), rand(att, 3)
        s = qq.astype(np.float64) @ kk.T.astype(np.float64)
        w = np.exp(s - s.max(1, keepdims=True))
        want = (w / w.sum(1, keepdims=True)) @ vv.astype(np.float64)
        fl, plain = flash((i, I)), plain_flash()
        t0 = time.perf_counter()
        check("simt flash", fl.exec(qq, kk, vv), want, 1e-4)
        first = time.perf_counter() - t0
        check("simt flash, no schedules", plain.exec(qq, kk, vv), want, 1e-4)
        settle()
        t0 = time.perf_counter()
        fl_tuned = fl.tune(qq, kk, vv, budget=args.budget)  # the peer's schedules as hints
        tune_s = time.perf_counter() - t0
        check("simt flash tuned", fl_tuned.exec(qq, kk, vv), want, 1e-4)

        def np_attn() -> Any:
            x = qq @ kk.T
            e = np.exp(x - x.max(1, keepdims=True))
            return (e / e.sum(1, keepdims=True)) @ vv

        check("numpy flash", np_attn(), want, 1e-4)
        variants = {
            "simt": lambda: fl.exec(qq, kk, vv), "plain": lambda: plain.exec(qq, kk, vv),
            "tuned": lambda: fl_tuned.exec(qq, kk, vv), "numpy": np_attn,
        }  # fmt: skip
        if "flash" in peers:
            check("ilang flash", peers["flash"].exec(qq, kk, vv), want, 3e-4)
            variants["ilang"] = lambda: peers["flash"].exec(qq, kk, vv)
        t = interleave(variants, args.rounds * 3, set())
        name = f"FlashAttention {att[0]} x {att[1]}"
        rows.append({"name": name + ", its schedules", "simt": t["simt"], "numpy": t["numpy"],
                     "peer": t.get("ilang"), "first": first, "tuned": t["tuned"], "cpu": dict(CPU),
                     "tune": tune_s, "schedule": fl_tuned.text(), "target": ("tuned", 1.5),
                     "plain": t["plain"], "fastest": dict(FASTEST)})  # fmt: skip

    if "flash" in only:
        flash_row()

    # FlashAttention's two contractions alone (simt's defaults) ------------------------------
    def parts_rows() -> None:
        qq, kk, vv = rand(att, 1), rand(att, 2), rand(att, 3)
        s = qq.astype(np.float64) @ kk.T.astype(np.float64)
        w = np.exp(s - s.max(1, keepdims=True))
        p = (w / w.sum(1, keepdims=True)).astype(np.float32)  # attention's P (mostly tiny)
        qkt = i("ik*jk~ijk") >> i("+ijk~ij")
        pv = i("ij*jk~ikj") >> i("+ikj~ik")
        cases = [
            ("q·kᵀ", qkt, (qq, kk), lambda: qq @ kk.T, s),
            ("P·v", pv, (p, vv), lambda: p @ vv, p.astype(np.float64) @ vv.astype(np.float64)),
        ]
        for label, comp, ins, np_fn, want in cases:
            check(f"simt {label}", comp.exec(*ins), want, 1e-4)
            check(f"numpy {label}", np_fn(), want, 1e-4)
            t0 = time.perf_counter()
            comp.exec(*ins)
            first = time.perf_counter() - t0
            t = interleave({"simt": lambda c=comp, a=ins: c.exec(*a), "numpy": np_fn},
                           args.rounds * 3, set())  # fmt: skip
            name = f"FlashAttention's {label}, {att[0]} x {att[1]}"
            rows.append({"name": name, "simt": t["simt"], "numpy": t["numpy"], "first": first,
                         "cpu": dict(CPU), "target": ("simt", 1.2),
                         "fastest": dict(FASTEST)})  # fmt: skip

    if "parts" in only:
        parts_rows()

    # MLP -----------------------------------------------------------------------------------
    def mlp_row() -> None:
        x, w1, w2 = rand((mlp_n,), 1), rand((mlp_n, mlp_n), 2), rand((mlp_n, mlp_n), 3)
        want = w2.astype(np.float64) @ np.maximum(w1.astype(np.float64) @ x, 0)
        t0 = time.perf_counter()
        check("simt mlp", MLP.exec(w2, w1, x), want, 1e-4)
        first = time.perf_counter() - t0
        variants = {
            "simt": lambda: MLP.exec(w2, w1, x),
            "numpy": lambda: w2 @ np.maximum(w1 @ x, 0),
        }
        if "mlp" in peers:
            check("ilang mlp", peers["mlp"].exec(w2, w1, x), want, 1e-4)
            variants["ilang"] = lambda: peers["mlp"].exec(w2, w1, x)
        t = interleave(variants, args.rounds * 3, set())
        rows.append({"name": f"MLP {mlp_n} x {mlp_n}", "simt": t["simt"], "numpy": t["numpy"],
                     "peer": t.get("ilang"), "first": first, "cpu": dict(CPU)})  # fmt: skip

    if "mlp" in only:
        mlp_row()

    # row softmax ---------------------------------------------------------------------------
    def softmax_row() -> None:
        xs = rand(soft, 4)
        e = np.exp(xs - xs.max(1, keepdims=True).astype(np.float64))
        want = e / e.sum(1, keepdims=True)
        t0 = time.perf_counter()
        check("simt softmax", SOFTMAX.exec(xs), want, 1e-5)
        first = time.perf_counter() - t0

        def np_softmax() -> Any:
            z = np.exp(xs - xs.max(1, keepdims=True))
            return z / z.sum(1, keepdims=True)

        variants = {"simt": lambda: SOFTMAX.exec(xs), "numpy": np_softmax}
        if "softmax" in peers:
            check("ilang softmax", peers["softmax"].exec(xs), want, 1e-5)
            variants["ilang"] = lambda: peers["softmax"].exec(xs)
        t = interleave(variants, args.rounds, {"ilang"})
        name = f"row softmax {soft[0]} x {soft[1]}"
        rows.append({"name": name, "simt": t["simt"], "numpy": t["numpy"], "peer": t.get("ilang"),
                     "first": first, "cpu": dict(CPU), "target": ("simt", 1.5)})  # fmt: skip

    if "softmax" in only:
        softmax_row()

    wall = time.perf_counter() - wall0
    own1 = os.times()
    own = (own1.user + own1.system) - (own0.user + own0.system)
    busy1 = busy_cpu_s()
    load1 = os.getloadavg()
    with tempfile.TemporaryDirectory() as cache:
        cold, warm = fresh_process_ms(cache)

    # the table -----------------------------------------------------------------------------
    print(f"backend {args.backend}; ilang-python {'present' if ilang is not None else 'absent'}; "
          f"load average {load0[0]:.1f} before, {load1[0]:.1f} after")  # fmt: skip
    print("wall-time medians in ms (this process's CPU ms per call in brackets)")
    print("| workload | simt | simt tuned | NumPy | W6 | ilang | tuned / NumPy | target "
          "| ilang / simt | first exec |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        cpu = r.get("cpu", {})

        def cell(key: str, cpu_key: str, r: dict[str, Any] = r, cpu: dict[str, float] = cpu) -> str:
            v = r.get(key)
            if v is None:
                return "—"
            c = cpu.get(cpu_key)
            return f"{ms(v)} ({ms(c)})" if c is not None else ms(v)

        best = min(r["simt"], r.get("tuned") or r["simt"])
        mine = r.get("tuned") or r["simt"]
        target = r.get("target")
        if target:
            key = target[0]
            got = (r.get(key) or r["simt"]) / r["numpy"]
            got_cpu = cpu.get(key, 0.0) / cpu["numpy"] if cpu.get("numpy") else None
            flag = "met" if got <= target[1] else "missed"
            tgt = f"<= {target[1]}x: {flag}" + (f" (CPU {got_cpu:.2f}x)" if got_cpu else "")
        else:
            tgt = "—"
        print(f"| {r['name']} | {cell('simt', 'simt')} | {cell('tuned', 'tuned')} | "
              f"{cell('numpy', 'numpy')} | {cell('W6', 'W6')} | {ms(r.get('peer'))} | "
              f"{ratio(mine, r['numpy'])} | {tgt} | {ratio(r.get('peer'), best)} | "
              f"{ms(r['first'])} |")  # fmt: skip
    for r in rows:
        if "flops" in r:
            g = [f"{k} {r['flops'] / r[k] / 1e9:.0f}" for k in ("simt", "tuned", "numpy")]
            print(f"{r['name']} GFLOP/s (wall): " + ", ".join(g))
        if r.get("hand"):
            got = r["tuned"] / r["hand"]
            print(f"{r['name']} against the hand-written WGSL matmul (bench/webgpu/matmul_ref.py)"
                  f": tuned {ms(r['tuned'])} ms, hand {ms(r['hand'])} ms, {got:.2f}x (target "
                  f"<= 1.25x on a GPU: {'met' if got <= 1.25 else 'missed'})")  # fmt: skip
        if "plain" in r:
            print(f"{r['name']} without its schedules: {ms(r['plain'])} ms "
                  f"({ratio(r['plain'], r['numpy'])} NumPy; the peer's schedules "
                  f"{ratio(r['simt'], r['plain'])} of that)")  # fmt: skip
        if "tune" in r:
            print(f"tune {r['name']}: {r['tune']:.1f} s -> {r['schedule']}")
        fast = r.get("fastest")
        if fast and fast.get("numpy"):  # on a loaded machine medians of two threads say little
            mine = "tuned" if "tuned" in fast else "simt"
            print(f"{r['name']} fastest calls: {mine} {ms(fast[mine])} ms, NumPy "
                  f"{ms(fast['numpy'])} ms: {fast[mine] / fast['numpy']:.2f}x")  # fmt: skip
    print(f"first exec in a fresh process: {cold:.0f} ms with an empty disk cache, "
          f"{warm:.0f} ms with it warm")  # fmt: skip
    if busy0 is not None and busy1 is not None:
        others = max(0.0, (busy1 - busy0) - own)
        print(f"other processes used {others:.1f} CPU-seconds during the {wall:.1f} s run "
              f"({os.cpu_count()} CPUs)")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
