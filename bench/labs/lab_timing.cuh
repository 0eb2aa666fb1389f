// The labs' shared harness (bench/labs/*_lab.cu): a CUDA call checked, and a launch timed as
// the best of `reps` rounds of 20 back to back, after one warm-up launch. `lab_once`
// (LAB_ONCE=1) launches each once, for Nsight Compute.
#pragma once
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
