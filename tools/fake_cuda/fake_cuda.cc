// A stand-in for libcuda.so.1 that runs no kernels: memory is host memory, copies are
// memcpy, launches and events do nothing, but launches a GPU would refuse are refused
// (CheckLaunch below). It lets the CUDA backend's host path (recording, plan cache, argument
// packing, allocation, launch configuration) run, be checked (fuzz plan, tests/backend/
// launch_test) and be profiled on a machine without a GPU:
//
//   bazel build //tools/fake_cuda:libcuda.so.1 //bench:gpu_bench
//   export LD_LIBRARY_PATH=bazel-bin/tools/fake_cuda
//   valgrind --tool=callgrind bazel-bin/bench/gpu_bench --benchmark_filter=HostRecord
//
// Values computed under it are meaningless (kernels never run); only host timings are.
#include <cuda.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <map>
#include <mutex>
#include <string>

#include "tools/fake_cuda/cubin_shared.h"

namespace {

// Distinct non-null handles over 16 zeroed bytes: only an event's are read (its host clock,
// 0 until recorded).
template <typename Handle>
Handle NewHandle() {
  return reinterpret_cast<Handle>(new char[16]());
}

thread_local CUcontext current_context = nullptr;
CUcontext primary_context = nullptr;

// The device it pretends to be: an H100 SXM by default, an A100 with FAKE_CUDA_SM=80 (so
// that the sm_80 plans' launches are checked too). Kernels' grids are sized from its SMs.
struct FakeDevice {
  int major, minor, sm_count;
  // Its opt-in limit of shared memory a block, static and dynamic together.
  int max_shared_optin;
};

const FakeDevice& Device() {
  static const FakeDevice device = [] {
    const char* sm = std::getenv("FAKE_CUDA_SM");
    if (sm != nullptr && std::strcmp(sm, "80") == 0) return FakeDevice{8, 0, 108, 163 * 1024};
    return FakeDevice{9, 0, 132, 227 * 1024};
  }();
  return device;
}

// cuMemAlloc's blocks, start -> bytes (cuPointerGetAttribute tells device memory by them).
std::mutex allocations_mu;
std::map<CUdeviceptr, size_t> allocations;

// Each loaded module's kernels' static shared memory (cubin_shared.h), by module.
std::mutex modules_mu;
std::map<CUmodule, std::map<std::string, int>> module_shared;

// What a function's handle holds: its static shared memory, and the dynamic shared memory
// its launches may take (MAX_DYNAMIC_SHARED_SIZE_BYTES: as on the real driver, the default 48
// KB a block less the static bytes until the function reserves more).
struct FunctionShared {
  int static_bytes;
  int max_dynamic;
};
constexpr int kDefaultSharedBytes = 48 * 1024;

FunctionShared SharedOf(CUfunction function) {
  FunctionShared shared;
  std::memcpy(&shared, function, sizeof shared);
  return shared;
}

void SetShared(CUfunction function, FunctionShared shared) {
  std::memcpy(function, &shared, sizeof shared);
}

// The launches the real driver refuses with CUDA_ERROR_INVALID_VALUE: the limits of a grid
// and a block, and dynamic shared memory past the function's MAX_DYNAMIC_SHARED_SIZE_BYTES.
CUresult CheckLaunch(CUfunction function, const unsigned (&grid)[3], const unsigned (&block)[3],
                     unsigned shared_bytes) {
  const bool grid_ok = grid[0] >= 1 && grid[0] <= 0x7fffffffu && grid[1] >= 1 && grid[1] <= 65535 &&
                       grid[2] >= 1 && grid[2] <= 65535;
  const bool block_ok = block[0] >= 1 && block[1] >= 1 && block[2] >= 1 && block[2] <= 64 &&
                        uint64_t{block[0]} * block[1] * block[2] <= 1024;
  const bool shared_ok = shared_bytes <= static_cast<unsigned>(SharedOf(function).max_dynamic);
  return grid_ok && block_ok && shared_ok ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

}  // namespace

extern "C" {

CUresult cuInit(unsigned int) { return CUDA_SUCCESS; }

// NVRTC opens libcuda.so.1 too, and asks it for private interfaces: none here, which it
// takes in its stride.
CUresult cuGetExportTable(const void** table, const CUuuid*) {
  *table = nullptr;
  return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult cuGetErrorName(CUresult error, const char** name) {
  *name = error == CUDA_ERROR_INVALID_VALUE ? "CUDA_ERROR_INVALID_VALUE" : "CUDA_ERROR_FAKE_DRIVER";
  return CUDA_SUCCESS;
}

CUresult cuGetErrorString(CUresult error, const char** text) {
  *text = error == CUDA_ERROR_INVALID_VALUE
              ? "the fake driver (tools/fake_cuda) refused a launch the real driver refuses"
              : "the fake driver (tools/fake_cuda) failed this call";
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetCount(int* count) {
  *count = 1;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGet(CUdevice* device, int ordinal) {
  *device = ordinal;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetAttribute(int* value, CUdevice_attribute attribute, CUdevice) {
  switch (attribute) {
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
      *value = Device().major;
      break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR:
      *value = Device().minor;
      break;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT:
      *value = Device().sm_count;
      break;
    default:
      *value = 0;
  }
  return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxRetain(CUcontext* context, CUdevice) {
  if (primary_context == nullptr) primary_context = NewHandle<CUcontext>();
  *context = primary_context;
  return CUDA_SUCCESS;
}

// The oldest signature, under the name the backend looks up (cuda.h maps cuCtxCreate to v4).
CUresult cuCtxCreate_v2(CUcontext* context, unsigned int, CUdevice) {
  *context = NewHandle<CUcontext>();
  return CUDA_SUCCESS;
}

CUresult cuCtxSetCurrent(CUcontext context) {
  current_context = context;
  return CUDA_SUCCESS;
}

CUresult cuCtxGetCurrent(CUcontext* context) {
  *context = current_context;
  return CUDA_SUCCESS;
}

// One level of pushing is all the backend uses (ScopedContext); the previous one is kept.
thread_local CUcontext pushed_over = nullptr;

CUresult cuCtxPushCurrent(CUcontext context) {
  pushed_over = current_context;
  current_context = context;
  return CUDA_SUCCESS;
}

CUresult cuCtxPopCurrent(CUcontext* context) {
  if (context != nullptr) *context = current_context;
  current_context = pushed_over;
  return CUDA_SUCCESS;
}

CUresult cuCtxSynchronize() { return CUDA_SUCCESS; }

CUresult cuMemAlloc(CUdeviceptr* pointer, size_t bytes) {
  void* p = std::aligned_alloc(256, (bytes + 255) / 256 * 256);
  if (p == nullptr) return CUDA_ERROR_OUT_OF_MEMORY;
  *pointer = reinterpret_cast<CUdeviceptr>(p);
  std::lock_guard<std::mutex> lock(allocations_mu);
  allocations[*pointer] = bytes;
  return CUDA_SUCCESS;
}

CUresult cuMemFree(CUdeviceptr pointer) {
  {
    std::lock_guard<std::mutex> lock(allocations_mu);
    allocations.erase(pointer);
  }
  std::free(reinterpret_cast<void*>(pointer));
  return CUDA_SUCCESS;
}

// Device memory is what cuMemAlloc handed out and has not been freed.
CUresult cuPointerGetAttribute(void* data, CUpointer_attribute attribute, CUdeviceptr pointer) {
  std::lock_guard<std::mutex> lock(allocations_mu);
  auto it = allocations.upper_bound(pointer);
  const bool device =
      it != allocations.begin() && pointer < std::prev(it)->first + std::prev(it)->second;
  if (!device) return CUDA_ERROR_INVALID_VALUE;
  if (attribute == CU_POINTER_ATTRIBUTE_MEMORY_TYPE) {
    *static_cast<unsigned int*>(data) = CU_MEMORYTYPE_DEVICE;
  } else if (attribute == CU_POINTER_ATTRIBUTE_IS_MANAGED) {
    *static_cast<unsigned int*>(data) = 0;
  } else {
    return CUDA_ERROR_NOT_SUPPORTED;
  }
  return CUDA_SUCCESS;
}

CUresult cuMemHostAlloc(void** pointer, size_t bytes, unsigned int) {
  *pointer = std::malloc(bytes);
  return *pointer != nullptr ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

CUresult cuMemcpyHtoDAsync(CUdeviceptr to, const void* from, size_t bytes, CUstream) {
  std::memcpy(reinterpret_cast<void*>(to), from, bytes);
  return CUDA_SUCCESS;
}

CUresult cuMemcpyDtoHAsync(void* to, CUdeviceptr from, size_t bytes, CUstream) {
  std::memcpy(to, reinterpret_cast<const void*>(from), bytes);
  return CUDA_SUCCESS;
}

CUresult cuMemcpyDtoDAsync(CUdeviceptr to, CUdeviceptr from, size_t bytes, CUstream) {
  std::memmove(reinterpret_cast<void*>(to), reinterpret_cast<const void*>(from), bytes);
  return CUDA_SUCCESS;
}

CUresult cuModuleLoadData(CUmodule* module, const void* image) {
  *module = NewHandle<CUmodule>();
  std::lock_guard<std::mutex> lock(modules_mu);
  module_shared[*module] = fake_cuda::StaticSharedBytes(image);
  return CUDA_SUCCESS;
}

CUresult cuModuleUnload(CUmodule module) {
  {
    std::lock_guard<std::mutex> lock(modules_mu);
    module_shared.erase(module);
  }
  delete[] reinterpret_cast<char*>(module);
  return CUDA_SUCCESS;
}

CUresult cuModuleGetFunction(CUfunction* function, CUmodule module, const char* name) {
  int static_bytes = 0;
  {
    std::lock_guard<std::mutex> lock(modules_mu);
    const auto loaded = module_shared.find(module);
    if (loaded == module_shared.end()) return CUDA_ERROR_INVALID_HANDLE;
    if (auto it = loaded->second.find(name); it != loaded->second.end()) static_bytes = it->second;
  }
  *function = NewHandle<CUfunction>();  // leaked: one per kernel name loaded
  SetShared(*function, {static_bytes, std::max(0, kDefaultSharedBytes - static_bytes)});
  return CUDA_SUCCESS;
}

CUresult cuFuncSetAttribute(CUfunction function, CUfunction_attribute attribute, int value) {
  if (attribute == CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES) {
    FunctionShared shared = SharedOf(function);
    if (value < 0 || value > Device().max_shared_optin - shared.static_bytes) {
      return CUDA_ERROR_INVALID_VALUE;
    }
    shared.max_dynamic = value;
    SetShared(function, shared);
  }
  return CUDA_SUCCESS;
}

CUresult cuOccupancyMaxActiveClusters(int* clusters, CUfunction, const CUlaunchConfig*) {
  *clusters = 1;
  return CUDA_SUCCESS;
}

CUresult cuLaunchKernel(CUfunction function, unsigned int grid_x, unsigned int grid_y,
                        unsigned int grid_z, unsigned int block_x, unsigned int block_y,
                        unsigned int block_z, unsigned int shared_bytes, CUstream, void**, void**) {
  return CheckLaunch(function, {grid_x, grid_y, grid_z}, {block_x, block_y, block_z}, shared_bytes);
}

CUresult cuLaunchKernelEx(const CUlaunchConfig* c, CUfunction function, void**, void**) {
  return CheckLaunch(function, {c->gridDimX, c->gridDimY, c->gridDimZ},
                     {c->blockDimX, c->blockDimY, c->blockDimZ}, c->sharedMemBytes);
}

// Graphs: captured launches run nothing, as launches do.
CUresult cuStreamBeginCapture_v2(CUstream, CUstreamCaptureMode) { return CUDA_SUCCESS; }

CUresult cuStreamEndCapture(CUstream, CUgraph* graph) {
  *graph = NewHandle<CUgraph>();
  return CUDA_SUCCESS;
}

CUresult cuGraphInstantiateWithFlags(CUgraphExec* exec, CUgraph, unsigned long long) {
  *exec = NewHandle<CUgraphExec>();
  return CUDA_SUCCESS;
}

CUresult cuGraphLaunch(CUgraphExec, CUstream) { return CUDA_SUCCESS; }

CUresult cuGraphExecDestroy(CUgraphExec exec) {
  delete[] reinterpret_cast<char*>(exec);
  return CUDA_SUCCESS;
}

CUresult cuGraphDestroy(CUgraph graph) {
  delete[] reinterpret_cast<char*>(graph);
  return CUDA_SUCCESS;
}

CUresult cuTensorMapEncodeTiled(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*,
                                const cuuint64_t*, const cuuint64_t*, const cuuint32_t*,
                                const cuuint32_t*, CUtensorMapInterleave, CUtensorMapSwizzle,
                                CUtensorMapL2promotion, CUtensorMapFloatOOBfill) {
  return CUDA_SUCCESS;
}

CUresult cuEventCreate(CUevent* event, unsigned int) {
  *event = NewHandle<CUevent>();
  return CUDA_SUCCESS;
}

CUresult cuEventDestroy(CUevent event) {
  delete[] reinterpret_cast<char*>(event);
  return CUDA_SUCCESS;
}

// An event holds the host clock at its record: a benchmark timed by events measures the
// host path (and, never reading zero, ends its iterations as with a GPU).
CUresult cuEventRecord(CUevent event, CUstream) {
  const int64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                          std::chrono::steady_clock::now().time_since_epoch())
                          .count();
  std::memcpy(reinterpret_cast<char*>(event), &now, sizeof(now));
  return CUDA_SUCCESS;
}
CUresult cuEventQuery(CUevent) { return CUDA_SUCCESS; }
CUresult cuEventSynchronize(CUevent) { return CUDA_SUCCESS; }

CUresult cuEventElapsedTime(float* ms, CUevent start, CUevent end) {
  int64_t from = 0, to = 0;
  std::memcpy(&from, reinterpret_cast<char*>(start), sizeof(from));
  std::memcpy(&to, reinterpret_cast<char*>(end), sizeof(to));
  *ms = std::max(static_cast<float>(to - from) * 1e-6f, 1e-6f);
  return CUDA_SUCCESS;
}

CUresult cuStreamCreate(CUstream* stream, unsigned int) {
  *stream = NewHandle<CUstream>();
  return CUDA_SUCCESS;
}

CUresult cuStreamSynchronize(CUstream) { return CUDA_SUCCESS; }
CUresult cuStreamWaitEvent(CUstream, CUevent, unsigned int) { return CUDA_SUCCESS; }

}  // extern "C"
