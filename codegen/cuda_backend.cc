// The CUDA backend: Program -> FusionPlan -> KernelSources -> compiled (cached) -> launched.
// Registered at start-up; available when libcuda, a GPU and NVRTC are.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "codegen/cuda_driver.h"
#include "codegen/device_memory.h"
#include "codegen/dump.h"
#include "codegen/generate.h"
#include "codegen/kernel_cache.h"
#include "core/backend.h"
#include "core/stats.h"
#include "core/status_macros.h"
#include "fusion/planner.h"

namespace tessel::cuda {
namespace {

bool LogEnabled() {
  const char* v = std::getenv("TESSEL_LOG");
  return v != nullptr && *v != '\0' && std::string(v) != "0";
}

double MillisecondsSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

class CudaBackend : public Backend {
 public:
  Device device() const override { return Device::kCUDA; }

  absl::Status Available() override {
    std::call_once(init_once_, [this] { init_ = Init(); });
    return init_;
  }

  absl::StatusOr<std::vector<BufferPtr>> Run(const Program& program) override {
    TESSEL_RETURN_IF_ERROR(Available());
    TESSEL_RETURN_IF_ERROR(CheckCu(driver_->cuCtxSetCurrent(context_), "cuCtxSetCurrent"));
    const FusionPlan plan = PlanFusion(program, DefaultFusionOptions());
    const std::string dump = codegen::DumpDirectory();
    if (!dump.empty()) codegen::DumpPlan(dump, plan, program.outputs);

    // The last kernel that reads each value: its buffer is released after that launch
    // (one stream, so later allocations are ordered after the readers).
    absl::flat_hash_map<const Node*, size_t> last_read;
    for (size_t k = 0; k < plan.kernels.size(); ++k) {
      for (const Node* in : plan.kernels[k].inputs) last_read[in] = k;
    }
    absl::flat_hash_map<const Node*, BufferPtr> values;
    for (size_t k = 0; k < plan.kernels.size(); ++k) {
      const codegen::KernelSource ks = codegen::GenerateKernel(plan.kernels[k]);
      TESSEL_RETURN_IF_ERROR(Launch(ks, dump, values));
      GetStats().nodes_evaluated += static_cast<int64_t>(plan.kernels[k].nodes.size());
      for (const Node* in : plan.kernels[k].inputs) {
        if (last_read[in] == k) values.erase(in);
      }
    }
    std::vector<BufferPtr> outputs;
    for (const Node* out : program.outputs) {
      auto it = values.find(out);
      if (it == values.end()) {
        return absl::FailedPreconditionError(
            absl::StrCat("an input ", DTypeName(out->dtype()), out->shape().ToString(),
                         " has no data (a graph parsed from text has placeholders only)"));
      }
      outputs.push_back(it->second);
    }
    return outputs;
  }

  absl::StatusOr<BufferPtr> Upload(DType dtype, int64_t numel, const void* host) override {
    TESSEL_RETURN_IF_ERROR(Available());
    TESSEL_RETURN_IF_ERROR(CheckCu(driver_->cuCtxSetCurrent(context_), "cuCtxSetCurrent"));
    TESSEL_ASSIGN_OR_RETURN(auto buffer, NewDeviceBuffer(dtype, numel));
    if (numel > 0) {
      TESSEL_RETURN_IF_ERROR(
          CheckCu(driver_->cuMemcpyHtoD(buffer->ptr(), host, buffer->bytes()), "copy to GPU"));
    }
    return BufferPtr(buffer);
  }

  absl::Status Download(const Buffer& buffer, void* host) override {
    TESSEL_RETURN_IF_ERROR(Available());
    TESSEL_RETURN_IF_ERROR(CheckCu(driver_->cuCtxSetCurrent(context_), "cuCtxSetCurrent"));
    if (buffer.bytes() == 0) return absl::OkStatus();
    const auto& d = static_cast<const DeviceBuffer&>(buffer);
    return CheckCu(driver_->cuMemcpyDtoH(host, d.ptr(), buffer.bytes()), "copy from GPU");
  }

  absl::Status Synchronize() override {
    TESSEL_RETURN_IF_ERROR(CheckCu(driver_->cuCtxSetCurrent(context_), "cuCtxSetCurrent"));
    return CheckCu(driver_->cuCtxSynchronize(), "synchronize");
  }

 private:
  absl::Status Init() {
    TESSEL_ASSIGN_OR_RETURN(driver_, GetDriver());
    int count = 0;
    TESSEL_RETURN_IF_ERROR(CheckCu(driver_->cuDeviceGetCount(&count), "cuDeviceGetCount"));
    if (count == 0) return absl::UnavailableError("no CUDA device");
    TESSEL_RETURN_IF_ERROR(CheckCu(driver_->cuDeviceGet(&device_, 0), "cuDeviceGet"));
    auto attribute = [&](CUdevice_attribute a) {
      int v = 0;
      driver_->cuDeviceGetAttribute(&v, a, device_);
      return v;
    };
    target_.major = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
    target_.minor = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
    target_.arch_specific = target_.major >= 9;
    sm_count_ = attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
    TESSEL_RETURN_IF_ERROR(
        CheckCu(driver_->cuDevicePrimaryCtxRetain(&context_, device_), "cuDevicePrimaryCtxRetain"));
    TESSEL_RETURN_IF_ERROR(NvrtcVersion().status());
    return absl::OkStatus();
  }

  struct Module {
    CUmodule module = nullptr;
    absl::flat_hash_map<std::string, CUfunction> functions;
  };

  absl::StatusOr<Module*> LoadModule(const codegen::KernelSource& ks, const std::string& dump) {
    if (auto it = modules_.find(ks.source); it != modules_.end()) return &it->second;
    const auto start = std::chrono::steady_clock::now();
    const CacheStats before = GlobalKernelCache().stats();
    auto compiled = GlobalKernelCache().GetOrCompile(ks.source, ks.name, target_);
    if (!compiled.ok()) {
      const std::string path = codegen::WriteDumpFile(dump.empty() ? "/tmp/tessel-failed" : dump,
                                                      ks.name + ".cu", ks.source);
      return absl::InternalError(
          absl::StrCat(compiled.status().message(), "\n(source: ", path, ")"));
    }
    if (!dump.empty()) {
      codegen::WriteDumpFile(dump, ks.name + ".cu", ks.source);
      codegen::WriteDumpFile(dump, ks.name + ".ptx", (*compiled)->ptx);
    }
    Module m;
    TESSEL_RETURN_IF_ERROR(CheckCu(driver_->cuModuleLoadData(&m.module, (*compiled)->cubin.data()),
                                   absl::StrCat("loading ", ks.name)));
    for (const codegen::Launch& l : ks.launches) {
      CUfunction f;
      TESSEL_RETURN_IF_ERROR(CheckCu(driver_->cuModuleGetFunction(&f, m.module, l.entry.c_str()),
                                     absl::StrCat("finding ", l.entry)));
      m.functions[l.entry] = f;
    }
    if (LogEnabled()) {
      const CacheStats after = GlobalKernelCache().stats();
      const char* from = after.compiles > before.compiles     ? "compiled with NVRTC"
                         : after.disk_hits > before.disk_hits ? "loaded from the disk cache"
                                                              : "from the memory cache";
      std::fprintf(stderr, "tessel: %s %s for %s in %.1f ms\n", ks.name.c_str(), from,
                   target_.Name().c_str(), MillisecondsSince(start));
    }
    return &modules_.emplace(ks.source, std::move(m)).first->second;
  }

  absl::Status Launch(const codegen::KernelSource& ks, const std::string& dump,
                      absl::flat_hash_map<const Node*, BufferPtr>& values) {
    TESSEL_ASSIGN_OR_RETURN(Module * module, LoadModule(ks, dump));
    std::vector<CUdeviceptr> args;
    for (const Node* in : ks.inputs) {
      const BufferPtr& b = in->realized() ? in->buffer() : values[in];
      if (b == nullptr) {
        return absl::FailedPreconditionError(absl::StrCat("an input ", DTypeName(in->dtype()),
                                                          in->shape().ToString(), " has no data"));
      }
      args.push_back(static_cast<DeviceBuffer&>(*b).ptr());
    }
    for (const Node* out : ks.outputs) {
      TESSEL_ASSIGN_OR_RETURN(auto b, NewDeviceBuffer(out->dtype(), out->shape().numel()));
      args.push_back(b->ptr());
      values[out] = std::move(b);
    }
    std::shared_ptr<DeviceBuffer> workspace;
    if (ks.workspace_bytes > 0) {
      TESSEL_ASSIGN_OR_RETURN(workspace, NewDeviceBuffer(DType::kF32, ks.workspace_bytes / 4));
      args.push_back(workspace->ptr());
    }
    std::vector<void*> params;
    for (CUdeviceptr& a : args) params.push_back(&a);
    for (const codegen::Launch& l : ks.launches) {
      std::array<int64_t, 3> grid = l.grid;
      if (l.blocks_per_sm > 0)
        grid[0] = std::min<int64_t>(grid[0], int64_t{l.blocks_per_sm} * sm_count_);
      if (grid[0] == 0 || grid[1] == 0 || grid[2] == 0) continue;
      TESSEL_RETURN_IF_ERROR(
          CheckCu(driver_->cuLaunchKernel(module->functions.at(l.entry), grid[0], grid[1], grid[2],
                                          l.block, 1, 1, 0, nullptr, params.data(), nullptr),
                  absl::StrCat("launching ", l.entry)));
      ++GetStats().kernels_launched;
      if (LogEnabled()) {
        std::fprintf(stderr, "tessel: launch %s grid (%lld, %lld, %lld) x %d\n", l.entry.c_str(),
                     static_cast<long long>(grid[0]), static_cast<long long>(grid[1]),
                     static_cast<long long>(grid[2]), l.block);
      }
    }
    return absl::OkStatus();
  }

  std::once_flag init_once_;
  absl::Status init_;
  const Driver* driver_ = nullptr;
  CUdevice device_ = 0;
  CUcontext context_ = nullptr;
  Target target_;
  int sm_count_ = 1;
  absl::flat_hash_map<std::string, Module> modules_;  // by source
};

const bool kRegistered = [] {
  RegisterBackend(std::make_unique<CudaBackend>());
  return true;
}();

}  // namespace
}  // namespace tessel::cuda
