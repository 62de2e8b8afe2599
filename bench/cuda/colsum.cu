// The hand-written CUDA C baseline for W1: one thread per column sums the rows of a
// row-major float32 matrix (the kernel the MicroPython-per-thread figure was measured against).
//
//   nvcc -O3 -arch=sm_90 -o colsum colsum.cu && ./colsum 256 262144   (times itself)
//   nvcc -O3 -arch=sm_90 -cubin -o colsum.cubin colsum.cu             (bench/cuda/run.py loads it)
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>

extern "C" __global__ void colsum(const float* __restrict__ a, float* __restrict__ out,
                                  int m, int n) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < n) {
        float s = 0.0f;
        for (int i = 0; i < m; ++i) s += a[(size_t)i * n + j];
        out[j] = s;
    }
}

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e)); std::exit(1); } } while (0)

int main(int argc, char** argv) {
    int m = argc > 1 ? std::atoi(argv[1]) : 256;
    int n = argc > 2 ? std::atoi(argv[2]) : 262144;
    int reps = argc > 3 ? std::atoi(argv[3]) : 20;
    std::vector<float> h((size_t)m * n);
    unsigned s = 12345u;
    for (auto& x : h) { s = s * 1664525u + 1013904223u; x = 0.5f + (s >> 8) * (1.0f / 16777216.0f); }
    float *a, *out;
    CHECK(cudaMalloc(&a, h.size() * sizeof(float)));
    CHECK(cudaMalloc(&out, (size_t)n * sizeof(float)));
    CHECK(cudaMemcpy(a, h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice));
    int threads = 256, blocks = (n + threads - 1) / threads;
    cudaEvent_t e0, e1;
    CHECK(cudaEventCreate(&e0)); CHECK(cudaEventCreate(&e1));
    for (int i = 0; i < 3; ++i) colsum<<<blocks, threads>>>(a, out, m, n);
    CHECK(cudaDeviceSynchronize());
    std::vector<float> ms;
    for (int t = 0; t < 7; ++t) {
        CHECK(cudaEventRecord(e0));
        for (int i = 0; i < reps; ++i) colsum<<<blocks, threads>>>(a, out, m, n);
        CHECK(cudaEventRecord(e1));
        CHECK(cudaEventSynchronize(e1));
        CHECK(cudaGetLastError());
        float x; CHECK(cudaEventElapsedTime(&x, e0, e1));
        ms.push_back(x / reps);
    }
    std::sort(ms.begin(), ms.end());
    std::vector<float> o(n);
    CHECK(cudaMemcpy(o.data(), out, (size_t)n * sizeof(float), cudaMemcpyDeviceToHost));
    double worst = 0;
    for (int j = 0; j < n; ++j) {
        double r = 0; for (int i = 0; i < m; ++i) r += h[(size_t)i * n + j];
        worst = std::max(worst, std::abs(o[j] - r) / r);
    }
    std::printf("colsum %d x %d: median %.4f ms (%d launches x 7), max rel err %.2e\n",
                m, n, ms[3], reps, worst);
    return 0;
}
