#!/bin/bash
# One device call: versions, the CUDA tests (corpus vs its references, runtime), benchmarks.
# Usage on the GPU machine, from the repository root: bash bench/cuda/gpu_session.sh [bench args]
export PYTHONPATH=src PYTHONUNBUFFERED=1 SIMT_CACHE_DIR=/tmp/simt-cache
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
python3 -c "import cuda.core, cuda.bindings, numpy; print('cuda-core', cuda.core.__version__, 'cuda-bindings', cuda.bindings.__version__, 'numpy', numpy.__version__)"
nvcc --version | tail -2
python3 -m simt info 2>&1 | head -20
echo "with the GPU hidden (driver present, no device):"; CUDA_VISIBLE_DEVICES= python3 -m simt info 2>&1 | grep cuda
timeout 300 python3 -m pytest -q -p no:cacheprovider tests/runtime/test_cuda.py "tests/corpus/test_corpus.py" -k "cuda" 2>&1 | tee "$OUT/tests.log" | tail -80
SIMT_DEBUG=1 timeout 200 python3 -m pytest -q -p no:cacheprovider tests/corpus/test_corpus.py -k "cuda" 2>&1 | tee "$OUT/tests_debug.log" | tail -30
if [ "${SKIP_BENCH:-0}" != 1 ]; then
  timeout 330 python3 bench/cuda/run.py --json "$OUT/bench.json" "$@" 2>&1 | tee "$OUT/bench.log"
  timeout 200 python3 bench/cuda/variants.py 2>&1 | tee "$OUT/variants.log"
fi
