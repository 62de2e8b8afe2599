#!/usr/bin/env bash
# GPU truth: the whole prepared pass on a machine with an NVIDIA GPU, in one command (issue 29).
#
#   bash bench/gpu_pass.sh            # on the GPU machine, from the repository root
#   bash bench/gpu_pass.sh --dry      # here, without a GPU: every step up to where it needs one
#   bash bench/gpu_pass.sh --only tests,fuzz     # a subset of the steps (names below)
#
# On an H100 the whole pass is two device calls, one right after the other (the machine stays
# warm between them): `--only device,tests` (up to 7 minutes: each 50 seeds of the fuzz slice
# took 250-313 s there, WGSL compiled by NVIDIA's Vulkan compiler) and then
# `--only device,fuzz,suite,matmul,users,bounds,webgpu` (3 minutes on 2026-11-27, before the
# matmul step's schedule sweep and the webgpu step's matmul were added: about 4 now).
# Steps, each with its own time limit (the device tool allows 10 minutes per command):
#   device   versions, the GPU (name, driver, memory, compute capability), `simt info`
#   tests    every test named for cuda or gpu, and the fuzz slice, with the CUDA runtime
#            required (SIMT_REQUIRE_BACKENDS has cuda), so the CUDA runtime tests that skip in
#            CI run: corpus, bounds checks and their read-back, 8/16-bit and complex arrays,
#            views, tensor, CuPy/PyTorch arrays (the rest of the suite is CI's); the fuzz
#            slice's chunks in a pytest run of their own beside it, one chunk per worker
#            (`tests-slice`: xdist hands a worker consecutive tests, so the slow chunks
#            queued behind each other in the one run of 2026-11-27 and two never started)
#   fuzz     the differential fuzzer EXECUTING kernels on the GPU against sim (dtypes,
#            complex numbers and views on)
#   suite    bench/cuda/run.py: W1 against nvcc-built CUDA C, W1-W6 against CuPy and PyTorch,
#            the launch-overhead table, the compile-time table
#   matmul   bench/cuda/matmul.py: W6 naive, the tiled kernel and the index-expression matmul
#            (default, tuned, and a sweep of GPU schedules: which should be the default)
#            against cuBLAS
#   users    bench/user_kernels/table.py on cuda (the teaching-kernel corpus)
#   bounds   bench/bounds.py on cuda (bounds checks on/off), when the file exists
#   webgpu   bench/gpu/wgsl_probe.py (which WGSL constructs the driver cannot compile), then
#            the corpus and W1-W6 through WGSL on the same card, and the tuned matmul against
#            the hand-tiled WGSL matmul (bench/webgpu/matmul_ref.py, #28 item 4), where the
#            machine has NVIDIA's Vulkan driver (wgpu picks it); says so when it does not
#
# Output under $OUT (default /tmp/gpu-pass), at most 8 files (the device tool returns no more):
#   pass.log (every step's output), summary.txt, results.json (every step's JSON merged),
#   tests.xml and slice.xml (JUnit of the two test runs), webgpu.xml (JUnit of the webgpu
#   corpus run).
#
# Python packages the GPU image lacks (wgpu, dask, distributed, prompt_toolkit) travel as
# wheels in .whl/ (bench/gpu_prepare.sh fetches both here); Vulkan/EGL loaders as .deb files in
# .gl/ (see the device tool's README). Both are installed at the start when present.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" || exit 1
DRY=0
ONLY=""
while [ $# -gt 0 ]; do
  case "$1" in
    --dry) DRY=1 ;;
    --only) shift; ONLY=",${1:-},"; ;;
    -h|--help) sed -n '2,30p' "$0"; exit 0 ;;
    *) echo "gpu_pass.sh: unknown argument $1 (try --help)" >&2; exit 2 ;;
  esac
  shift
done
OUT=${OUT:-/tmp/gpu-pass}
mkdir -p "$OUT"
WORK=$(mktemp -d)            # per-step JSON, merged into $OUT/results.json at the end
PY=${PYTHON:-python3}           # the GPU image's python3 holds CuPy and PyTorch
if [ -z "${PYTHON:-}" ] && [ -x .venv/bin/python ]; then PY=.venv/bin/python; fi  # the README's venv
export PYTHONUNBUFFERED=1
export SIMT_CACHE_DIR=${SIMT_CACHE_DIR:-$(mktemp -d)}
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-$(mktemp -d)}
LOG="$OUT/pass.log"
SUMMARY="$OUT/summary.txt"
: >"$LOG"
: >"$SUMMARY"

if [ $DRY = 0 ] && [ -d .whl ] && ls .whl/*.whl >/dev/null 2>&1; then
  $PY -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site .whl/*.whl >>"$LOG" 2>&1 && export PYTHONPATH=/tmp/site
  # a .pth file too: tests that start Python in a subprocess set PYTHONPATH to src/ alone
  echo /tmp/site >"$($PY -c 'import site; print(site.getsitepackages()[0])')/simt_gpu_pass.pth"
fi
export PYTHONPATH="$ROOT/src${PYTHONPATH:+:$PYTHONPATH}"
if [ $DRY = 0 ] && [ -d .gl ] && ls .gl/*.deb >/dev/null 2>&1; then
  for f in .gl/*.deb; do dpkg -x "$f" /; done
  ldconfig
  if [ -f /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ]; then
    export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
  fi
fi

wanted() { [ -z "$ONLY" ] || [[ "$ONLY" == *",$1,"* ]]; }

# step NAME LIMIT_S COMMAND...: run one step (in dry mode, the dry command the caller gives),
# its output into pass.log, a line "NAME rc=.. Ns" into summary.txt
step() {
  local name=$1 limit=$2
  shift 2
  wanted "${name%%-*}" || return 0  # (tests-slice runs with tests)
  local t0 rc
  t0=$(date +%s)
  {
    echo
    echo "=== $name ($(date -u +%H:%M:%S), limit ${limit}s$([ $DRY = 1 ] && echo ', dry'))"
  } >>"$LOG"
  # SIGINT first: pytest then still prints its summary and writes its JUnit file
  timeout -s INT -k 15 "$limit" "$@" >>"$LOG" 2>&1
  rc=$?
  local what="rc=$rc"
  [ $rc = 124 ] && what="TIMED OUT after ${limit}s"
  echo "$name $what $(($(date +%s) - t0))s$([ $DRY = 1 ] && echo ' (dry)')" | tee -a "$SUMMARY"
}

vulkan_gpu() {  # does wgpu see a real (non-CPU) adapter?
  $PY - <<'EOF'
import sys
try:
    import wgpu
    a = wgpu.gpu.request_adapter_sync(power_preference="high-performance")
    info = a.info
    print("webgpu adapter:", info.get("device"), info.get("adapter_type"), info.get("backend_type"))
    sys.exit(0 if str(info.get("adapter_type", "")).lower() not in ("cpu", "") else 1)
except Exception as e:  # no wgpu, no Vulkan loader, no adapter
    print("webgpu: no adapter:", e)
    sys.exit(1)
EOF
}

# fuzz_parallel BACKENDS COUNT: the fuzzer in 8 processes side by side (one process took over
# 70 s for 100 kernels on the H100's host), COUNT kernels each with dtypes, complex numbers and
# views forced on, each under its own limit so every log is complete; fails on any finding
fuzz_parallel() {
  local k r=0
  for k in 0 1 2 3 4 5 6 7; do
    timeout -s INT 85 $PY -m simt fuzz --seed $((40000 + 15 * k)) --count "$2" --backends "$1" \
      --no-nvrtc --with dtypes,complexes,views >"$WORK/fuzz$k.log" 2>&1 &
  done
  wait
  cat "$WORK"/fuzz*.log
  grep -qE '^FAIL|interrupted' "$WORK"/fuzz*.log && r=1
  rm -f "$WORK"/fuzz*.log
  return $r
}

REQUIRE=sim,cpu,cuda,nvrtc
XDIST=""
if $PY -c "import xdist" 2>/dev/null; then XDIST="-n auto --dist load"; fi
# The tests that differ on a GPU machine: every test whose name or file says cuda or gpu (the
# runtime tests that skip in CI, the corpus and tensor cases on cuda) and the fuzz slice, which
# executes its kernels on cuda when the runtime is present. The rest of the suite is what CI runs.
SELECT="cuda or gpu"
SLICE=tests/testing/test_fuzz_slice.py

if [ $DRY = 1 ]; then
  step device 30 bash -c "echo 'dry: nvidia-smi not queried'; $PY -m simt info"
  step tests 120 $PY -m pytest -q -p no:cacheprovider --collect-only -k "$SELECT or fuzz_slice" tests
  step fuzz 60 bash -c "$(declare -f fuzz_parallel); PY=$PY WORK=$WORK fuzz_parallel sim 1"
  step suite 30 $PY bench/cuda/run.py --help
  step matmul 60 $PY bench/cuda/matmul.py --backend cpu --n 48 --json "$WORK/matmul.json" \
    --schedules "tile(i:8,j:8) block(k:16)"
  step users 120 $PY bench/user_kernels/table.py --backend cpu --size test --rounds 1 \
    --calls 2 --jobs matmul_tiled --json "$WORK/users.json"
  if [ -f bench/bounds.py ]; then step bounds 30 $PY bench/bounds.py --help; fi
  step webgpu 60 bash -c "$(declare -f vulkan_gpu); PY=$PY; vulkan_gpu; echo 'dry: webgpu corpus not run'"
else
  step device 20 bash -c "nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap \
    --format=csv; $PY -c 'import sys, numpy; print(sys.version); print(\"numpy\", numpy.__version__)'; \
    $PY -m pip list 2>/dev/null | grep -iE 'cuda|cupy|torch|llvmlite|wgpu|dask|numba'; \
    nvcc --version | tail -2; $PY -m simt info"
  if vulkan_gpu >>"$LOG" 2>&1; then REQUIRE=$REQUIRE,webgpu; fi
  # SIMT_PASS_TESTS_LIMIT: the limit of both test runs (330 s and 400 s were not enough on
  # 2026-11-27, when the slice ran in the one run). The slice's chunks run side by side in a
  # run of their own, fewer tests than twice its workers, so that xdist deals them out one
  # by one (its output goes to pass.log after the other run's); in the other run a test
  # still running after 120 s has its stack printed (faulthandler), the slowest are listed.
  limit=${SIMT_PASS_TESTS_LIMIT:-420}
  XSLICE=""
  if [ -n "$XDIST" ]; then XSLICE="-n 12"; fi
  LOG="$WORK/slice.log" step tests-slice "$limit" env SIMT_REQUIRE_BACKENDS=$REQUIRE $PY \
    -m pytest -q -rf --tb=short $XSLICE --junitxml "$OUT/slice.xml" $SLICE &
  step tests "$limit" env SIMT_REQUIRE_BACKENDS=$REQUIRE $PY -m pytest \
    -q -rf --tb=short -o faulthandler_timeout=120 --durations=25 \
    $XDIST -k "($SELECT) and not fuzz_slice" --junitxml "$OUT/tests.xml" tests
  wait
  [ -f "$WORK/slice.log" ] && { echo; echo "=== tests-slice (its output)"; cat "$WORK/slice.log"; } >>"$LOG"
  step fuzz 100 bash -c "$(declare -f fuzz_parallel); PY=$PY WORK=$WORK fuzz_parallel sim,cuda 15"
  step suite 60 $PY bench/cuda/run.py --json "$WORK/suite.json"
  step matmul 70 $PY bench/cuda/matmul.py --n 2048 --json "$WORK/matmul.json"
  step users 35 $PY bench/user_kernels/table.py --backend cuda --rounds 3 --json "$WORK/users.json"
  if [ -f bench/bounds.py ]; then
    step bounds 35 $PY bench/bounds.py --backend cuda --json "$WORK/bounds.json"
  fi
  if vulkan_gpu >>"$LOG" 2>&1; then
    step webgpu 120 bash -c "$PY bench/gpu/wgsl_probe.py; \
      SIMT_BACKEND=webgpu $PY -m pytest -q -p no:cacheprovider \
      tests/corpus -k webgpu --junitxml $OUT/webgpu.xml; \
      $PY bench/suite.py --backend webgpu --reps 5 --json $WORK/webgpu_suite.json; \
      $PY bench/tensor.py --backend webgpu --only matmul"
  elif wanted webgpu; then
    echo "webgpu skipped: no Vulkan GPU adapter on this machine (wgpu found none; see pass.log)" \
      | tee -a "$SUMMARY"
  fi
fi

# every step's JSON in one file, keyed by step
$PY - "$WORK" "$OUT/results.json" <<'EOF'
import json, pathlib, sys
work, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
merged = {}
for f in sorted(work.glob("*.json")):
    try:
        merged[f.stem] = json.loads(f.read_text())
    except ValueError as e:
        merged[f.stem] = {"error": f"unreadable: {e}"}
out.write_text(json.dumps(merged, indent=2, default=str))
print(f"results.json: {', '.join(merged) or 'no step wrote JSON'}")
EOF
echo
echo "summary ($OUT/summary.txt):"
cat "$SUMMARY"
# the tail of the test run says which backends ran and what failed
grep -E "passed|failed|simt backends" "$LOG" | tail -4
! grep -qE "rc=[1-9]|TIMED OUT" "$SUMMARY"
