"""Check on a GPU machine that resource reports survive NVRTC's own cache (seen on 13.0):
compile one program twice in one process and print both reports."""

from simt.runtime import nvrtc

SRC = 'extern "C" __global__ void k(float* a) { a[threadIdx.x] = 3.0f * a[threadIdx.x]; }'
print("NVRTC", nvrtc.version())
for i in range(3):
    _, log, res = nvrtc.compile_cubin(SRC, "sm_90")
    print(i, "log chars", len(log), res)
