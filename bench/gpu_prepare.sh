#!/usr/bin/env bash
# Fetch, on this machine, what the GPU machine's image lacks, for bench/gpu_pass.sh to install
# there: Python wheels into .whl/ and the Vulkan/EGL loaders (Debian packages) into .gl/, both
# git-ignored through .git/info/exclude. The GPU image's python3
# is CPython 3.12 on x86-64 Linux and has NumPy, llvmlite, cuda-core/bindings, NVRTC, CuPy,
# PyTorch, pytest(-xdist), rich, click, cloudpickle, toolz, msgpack, psutil, pyyaml, jinja2,
# sortedcontainers, fsspec and packaging; these are the rest of simt's extras and their needs.
#
#   bash bench/gpu_prepare.sh        # then name .whl and .gl in the device call's carry list
set -euo pipefail
cd "$(dirname "$0")/.."
EXCLUDE="$(git rev-parse --git-common-dir)/info/exclude"
for d in /.whl/ /.gl/; do grep -qx "$d" "$EXCLUDE" 2>/dev/null || echo "$d" >>"$EXCLUDE"; done
PKGS=(
  wgpu==0.32.0 cffi==2.1.1 pycparser==3.0 rendercanvas
  dask==2026.8.0 distributed==2026.8.0 partd==1.4.2 locket==1.0.0 tornado==6.5.2 tblib zict
  importlib_metadata zipp
  prompt_toolkit==3.0.53 wcwidth
)
PY=${PYTHON:-python3}
PLAT=()
for n in 17 24 27 28 31 34; do PLAT+=(--platform "manylinux_2_${n}_x86_64"); done
PLAT+=(--platform manylinux2014_x86_64 --platform manylinux1_x86_64 --platform any)
for p in "${PKGS[@]}"; do
  $PY -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 \
    --implementation cp "${PLAT[@]}" -d .whl "$p"
done
# the loaders wgpu needs to reach NVIDIA's Vulkan driver there (the image has the driver only)
mkdir -p .gl /tmp/amd64/partial
o=(-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64)
apt-get "${o[@]}" update -qq >/dev/null
(cd .gl && apt-get "${o[@]}" download -qq libvulkan1 libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2)
du -sh .whl .gl
