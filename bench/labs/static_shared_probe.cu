// Probe: how the driver counts a kernel's static shared memory against the per-block limits
// (tools/fake_cuda checks launches without seeing it). For kernels with static shared arrays
// of several sizes: the function's SHARED_SIZE_BYTES, the largest MAX_DYNAMIC_SHARED_SIZE_BYTES
// cuFuncSetAttribute accepts, the largest dynamic size that launches once reserved, and the
// largest that launches unreserved. Compare with the sizes of the cubin's .nv.shared.<entry>
// sections (static_shared_probe.sh prints them).
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdio>

#define CK(x) do { auto e_ = (x); if ((int)e_ != 0) { printf("%s: error %d\n", #x, (int)e_); return 1; } } while (0)

template <int BYTES>
__global__ void held(int* out) {
  __shared__ volatile char s[BYTES];
  extern __shared__ char dyn[];
  s[threadIdx.x * 7 % BYTES] = threadIdx.x;
  if (threadIdx.x == 0) out[0] = s[5] + dyn[0];
}

template <int BYTES>
int probe(const char* name) {
  CUfunction f;
  CK(cudaGetFuncBySymbol(reinterpret_cast<cudaFunction_t*>(&f), reinterpret_cast<const void*>(held<BYTES>)));
  int* out;
  CK(cudaMalloc(&out, 4));
  int static_bytes = 0, max_dyn = 0;
  CK(cuFuncGetAttribute(&static_bytes, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f));
  CK(cuFuncGetAttribute(&max_dyn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, f));
  auto launches = [&](int dyn) {
    void* args[] = {&out};
    const CUresult r = cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, dyn, nullptr, args, nullptr);
    const bool ok = r == CUDA_SUCCESS && cuCtxSynchronize() == CUDA_SUCCESS;
    cudaGetLastError();
    return ok;
  };
  auto largest = [&](auto ok) {  // the largest of 0..256 KB for which ok holds (ok monotone)
    int lo = -1, hi = 256 * 1024 + 1;
    while (hi - lo > 1) { const int mid = (lo + hi) / 2; (ok(mid) ? lo : hi) = mid; }
    return lo;
  };
  const int unreserved = largest(launches);
  const int settable = largest([&](int v) { return cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, v) == CUDA_SUCCESS; });
  CK(cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, settable));
  const int reserved = largest(launches);
  printf("%s: static %d (attribute), default max dynamic %d; unreserved launches up to %d; settable up to %d; reserved launches up to %d\n",
         name, static_bytes, max_dyn, unreserved, settable, reserved);
  return 0;
}

int main() {
  CK(cudaFree(nullptr));
  int optin = 0, per_block = 0, reserved = 0, per_sm = 0;
  cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0);
  cudaDeviceGetAttribute(&per_block, cudaDevAttrMaxSharedMemoryPerBlock, 0);
  cudaDeviceGetAttribute(&reserved, cudaDevAttrReservedSharedMemoryPerBlock, 0);
  cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, 0);
  printf("device: optin %d, per block %d, reserved a block %d, per SM %d\n", optin, per_block, reserved, per_sm);
  return probe<16>("static 16") || probe<1024>("static 1024") || probe<2112>("static 2112") ||
         probe<16384>("static 16384") || probe<40000>("static 40000");
}
