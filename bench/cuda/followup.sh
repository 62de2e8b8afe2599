#!/usr/bin/env bash
# The second call of the 2026-11-26 GPU session (H100), after bench/gpu_pass.sh found: the fuzz
# step interrupted before its summary, the fuzz slice not executing on cuda (campaign left cuda
# out even with a GPU), every webgpu kernel after some point failing with "Parent device is
# lost" on NVIDIA's Vulkan driver, an illegal instruction in one corpus kernel, and Numba's own
# run of the DLI stream case asserting on an event time. Run from the repository root:
#   bash bench/cuda/followup.sh      (OUT=folder for the logs; default /tmp/gpu-followup)
set -u
OUT=${OUT:-/tmp/gpu-followup}
mkdir -p "$OUT"
PY=${PYTHON:-python3}
export PYTHONUNBUFFERED=1 SIMT_CACHE_DIR=$(mktemp -d) XDG_RUNTIME_DIR=$(mktemp -d)
if ls .whl/*.whl >/dev/null 2>&1; then
  $PY -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site .whl/*.whl && \
  echo /tmp/site >"$($PY -c 'import site; print(site.getsitepackages()[0])')/simt_gpu_pass.pth"
fi
if ls .gl/*.deb >/dev/null 2>&1; then
  for f in .gl/*.deb; do dpkg -x "$f" /; done
  ldconfig
  f=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
  [ -f $f ] && export VK_DRIVER_FILES=$f
fi
export PYTHONPATH=$PWD/src
T=$(mktemp -d)
# A. the fuzzer executing on cuda: 8 processes with dtypes, complex numbers and views forced
#    on, 4 with the slice's own seeds and features (0-199), in the background
for k in 0 1 2 3 4 5 6 7; do
  timeout -s INT 170 $PY -m simt fuzz --seed $((40000 + 25 * k)) --count 25 --backends sim,cuda \
    --no-nvrtc --with dtypes,complexes,views >"$T/fz$k.log" 2>&1 &
done
for k in 0 1 2 3; do
  timeout -s INT 170 $PY -m simt fuzz --seed $((50 * k)) --count 50 --backends sim,cuda \
    --no-nvrtc >"$T/fs$k.log" 2>&1 &
done
{
# B. which kernel loses the webgpu device: each seed alone in a fresh process
for s in 0 1 2 88 89 90 99 100 150 250 1000; do
  opt=""; [ $s = 1000 ] && opt="--with bigconst"
  echo "--- webgpu seed $s"
  timeout 40 $PY -m simt fuzz --seed $s --count 1 --backends sim,webgpu --no-nvrtc $opt 2>&1 \
    | grep -vE "^simt fuzz: seeds|^mutants" | cut -c1-400
done
# C. Numba's event time in the DLI streams case, printed rather than asserted
$PY - <<'PYEOF'
import numpy as np
from numba import cuda
s, e = cuda.event(), cuda.event()
s.record(); x = cuda.to_device(np.ones(1 << 20, np.float32)); e.record(); e.synchronize()
print("numba event elapsed_time:", repr(s.elapsed_time(e)))
PYEOF
# D. the corpus kernels that failed, each alone; the webgpu tests that start a subprocess
SIMT_REQUIRE_BACKENDS=cuda $PY -m pytest -q -p no:cacheprovider -rf --tb=short tests/corpus \
  -k "cuda and (warp_votes or with_managers)"
$PY -m pytest -q -p no:cacheprovider -rf --tb=short tests/runtime/test_webgpu_lost.py \
  tests/runtime/test_webgpu_budget.py tests/repl/test_console.py -k "lost or budget or million"
} >"$OUT/probe.log" 2>&1
wait
for f in "$T"/fz*.log "$T"/fs*.log; do echo "=== $f"; cat "$f"; done >"$OUT/fuzz.log"
grep -hE "^(FAIL|kernels|kernel findings|time|simt fuzz)" "$T"/f*.log | cut -c1-300
tail -40 "$OUT/probe.log"
