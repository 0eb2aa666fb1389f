// The labs' shared harness (bench/labs/*_lab.cu): a CUDA call checked, a launch timed as the
// best of `reps` rounds of 20 back to back, after one warm-up launch (`lab_once`, LAB_ONCE=1,
// launches each once, for Nsight Compute), the float4 copy the labs measure against, and
// bf16 inputs filled with hashed values in [-4, 4).
#pragma once
#include <cuda_bf16.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#define CK(x) do { cudaError_t err_ = (x); if (err_ != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(err_)); exit(1); } } while (0)

inline bool lab_once = false;

float time_it(auto launch, int reps = 3) {
  launch();
  CK(cudaDeviceSynchronize());
  if (lab_once) return 1.0f;
  cudaEvent_t a, b;
  cudaEventCreate(&a); cudaEventCreate(&b);
  float best = 1e30f;
  for (int rep = 0; rep < reps; ++rep) {
    cudaEventRecord(a);
    for (int i = 0; i < 20; ++i) launch();
    cudaEventRecord(b);
    CK(cudaEventSynchronize(b));
    float ms; cudaEventElapsedTime(&ms, a, b);
    best = std::min(best, ms / 20);
  }
  CK(cudaGetLastError());
  return best;
}

__global__ void copy4(const float4* __restrict__ a, float4* __restrict__ b, long long n) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    b[i] = a[i];
  }
}

__global__ void fill_bf16(__nv_bfloat16* x, long long n) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    const unsigned h = (unsigned)(i * 2654435761ull >> 7);
    x[i] = __float2bfloat16((h % 20000) / 2500.0f - 4.0f);
  }
}

// A bf16 lab's buffers of n values: x filled, ref (the generated scheme's result) and y (a
// variant's); times and prints the float4 copy of x, the ceiling, and returns its ms.
struct Bf16Lab {
  __nv_bfloat16 *x = nullptr, *ref = nullptr, *y = nullptr;
  float copy_ms = 0;
};
inline Bf16Lab bf16_lab(long long n) {
  lab_once = getenv("LAB_ONCE") != nullptr;
  Bf16Lab lab;
  CK(cudaMalloc(&lab.x, n * 2));
  CK(cudaMalloc(&lab.ref, n * 2));
  CK(cudaMalloc(&lab.y, n * 2));
  fill_bf16<<<1024, 256>>>(lab.x, n);
  lab.copy_ms = time_it([&] { copy4<<<132 * 8, 256>>>((const float4*)lab.x, (float4*)lab.y, n / 8); });
  printf("copy: %.4f ms, %.1f GB/s\n", lab.copy_ms, 4.0 * n / lab.copy_ms / 1e6);
  return lab;
}
