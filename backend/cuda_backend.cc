// The CUDA backend: Program -> FusionPlan -> KernelSources -> compiled (cached) -> launched.
// Registered at start-up; available when libcuda, a GPU and NVRTC are.
//
// [ Note -- the plan cache ]
// Planning and code generation take tens of microseconds; a training step repeats the same
// graph every time. Programs are keyed by their structure (every node's operation, type,
// shape, attributes and wiring, leaves by type and shape alone), and a hit goes straight to
// launching the loaded kernels with the new buffers. The key is compared in full, so two
// programs share a plan only when they are the same computation.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "backend/compile.h"
#include "backend/dump.h"
#include "codegen/generate.h"
#include "core/backend.h"
#include "core/stats.h"
#include "core/status_macros.h"
#include "fusion/planner.h"
#include "runtime/cuda_driver.h"
#include "runtime/device_memory.h"
#include "runtime/kernel_cache.h"

namespace tessel::backend {
namespace {

bool EnvEnabled(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' && std::string(v) != "0";
}
bool LogEnabled() { return EnvEnabled("TESSEL_LOG"); }
// TESSEL_SYNC=1: wait for each launch and check it, so that a fault names its kernel.
bool SyncEnabled() {
  static const bool sync = EnvEnabled("TESSEL_SYNC");
  return sync;
}

double MillisecondsSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

// A kernel ready to launch, its values named by position in the program's order.
struct ReadyKernel {
  std::vector<int> inputs, outputs, release;  // release: values no later kernel reads
  std::vector<int> scalars;  // nodes whose value or seed is an argument (ScalarArgument)
  int64_t workspace_bytes = 0;
  struct Entry {
    CUfunction function;
    std::array<int64_t, 3> grid;
    int block;
    int64_t shared_bytes;
    std::string name;
  };
  std::vector<Entry> entries;
  std::vector<codegen::TensorMapSpec> tensor_maps;
  std::string plan_line;  // "kernel 2 of 3 (reduction: concat min)", for errors
};

struct ReadyPlan {
  std::vector<ReadyKernel> kernels;
  int64_t nodes = 0;  // graph nodes computed, for Stats
};

// The structural key of the graph below `order` (see the note above). Values that kernels
// take as arguments (`full` values, seeds) are not part of it.
std::vector<int64_t> StructureKey(const std::vector<const Node*>& order,
                                  const absl::flat_hash_map<const Node*, int>& position,
                                  const std::vector<const Node*>& outputs) {
  std::vector<int64_t> key;
  key.reserve(order.size() * 8);
  for (const Node* n : order) {
    const bool leaf = n->realized() || n->op() == OpKind::kInput;
    key.push_back(leaf ? -1 : static_cast<int64_t>(n->op()));
    key.push_back(static_cast<int64_t>(n->dtype()));
    key.push_back(n->shape().rank());
    key.insert(key.end(), n->shape().dims().begin(), n->shape().dims().end());
    if (leaf) continue;
    if (n->op() == OpKind::kFull || n->op() == OpKind::kRand || n->op() == OpKind::kRandn) {
      key.push_back(-2);  // an argument
    } else {
      key.push_back(static_cast<int64_t>(n->attrs().ints.size()));
      key.insert(key.end(), n->attrs().ints.begin(), n->attrs().ints.end());
    }
    key.push_back(static_cast<int64_t>(n->inputs().size()));
    for (const NodePtr& in : n->inputs()) key.push_back(position.at(in.get()));
  }
  for (const Node* out : outputs) key.push_back(position.at(out));
  return key;
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
    TESSEL_RETURN_IF_ERROR(MakeCurrent());
    // The program's order with each leaf placed just before its first reader.
    std::vector<const Node*> order;
    absl::flat_hash_map<const Node*, int> position;
    order.reserve(program.nodes.size() * 2);
    position.reserve(program.nodes.size() * 2);
    for (const Node* n : program.nodes) {
      for (const NodePtr& in : n->inputs()) {
        if (in->realized() && position.emplace(in.get(), static_cast<int>(order.size())).second) {
          order.push_back(in.get());
        }
      }
      position[n] = static_cast<int>(order.size());
      order.push_back(n);
    }
    std::vector<int64_t> key = StructureKey(order, position, program.outputs);
    key.push_back(DefaultFusionOptions().fuse ? 1 : 0);
    auto it = plans_.find(key);
    if (it == plans_.end()) {
      TESSEL_ASSIGN_OR_RETURN(ReadyPlan plan, Prepare(program, position));
      it = plans_.emplace(std::move(key), std::move(plan)).first;
      ++GetStats().plans_built;
    } else {
      ++GetStats().plan_cache_hits;
    }
    return Execute(it->second, order, program.outputs, position);
  }

  absl::StatusOr<BufferPtr> Upload(DType dtype, int64_t numel, const void* host) override {
    TESSEL_RETURN_IF_ERROR(Available());
    TESSEL_RETURN_IF_ERROR(MakeCurrent());
    TESSEL_ASSIGN_OR_RETURN(auto buffer, runtime::NewDeviceBuffer(dtype, numel));
    if (numel > 0) {
      TESSEL_RETURN_IF_ERROR(
          runtime::CheckCu(driver_->cuMemcpyHtoD(buffer->ptr(), host, buffer->bytes()), "copy to GPU"));
    }
    return BufferPtr(buffer);
  }

  absl::Status Download(const Buffer& buffer, void* host) override {
    TESSEL_RETURN_IF_ERROR(Available());
    TESSEL_RETURN_IF_ERROR(MakeCurrent());
    if (buffer.bytes() == 0) return absl::OkStatus();
    const auto& d = static_cast<const runtime::DeviceBuffer&>(buffer);
    return runtime::CheckCu(driver_->cuMemcpyDtoH(host, d.ptr(), buffer.bytes()), "copy from GPU");
  }

  absl::Status Synchronize() override {
    TESSEL_RETURN_IF_ERROR(MakeCurrent());
    return runtime::CheckCu(driver_->cuCtxSynchronize(), "synchronize");
  }

 private:
  // The context is per thread; setting it costs a driver call, so once per thread.
  absl::Status MakeCurrent() {
    thread_local CUcontext current = nullptr;
    if (current == context_) return absl::OkStatus();
    TESSEL_RETURN_IF_ERROR(runtime::CheckCu(driver_->cuCtxSetCurrent(context_), "cuCtxSetCurrent"));
    current = context_;
    return absl::OkStatus();
  }

  absl::Status Init() {
    TESSEL_ASSIGN_OR_RETURN(driver_, runtime::GetDriver());
    int count = 0;
    TESSEL_RETURN_IF_ERROR(runtime::CheckCu(driver_->cuDeviceGetCount(&count), "cuDeviceGetCount"));
    if (count == 0) return absl::UnavailableError("no CUDA device");
    TESSEL_RETURN_IF_ERROR(runtime::CheckCu(driver_->cuDeviceGet(&device_, 0), "cuDeviceGet"));
    auto attribute = [&](CUdevice_attribute a) {
      int v = 0;
      driver_->cuDeviceGetAttribute(&v, a, device_);
      return v;
    };
    target_ = runtime::DeviceTarget();
    sm_count_ = attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
    TESSEL_RETURN_IF_ERROR(
        runtime::CheckCu(driver_->cuDevicePrimaryCtxRetain(&context_, device_), "cuDevicePrimaryCtxRetain"));
    TESSEL_RETURN_IF_ERROR(runtime::NvrtcVersion().status());
    return absl::OkStatus();
  }

  // Plans, generates, compiles (through the kernel cache) and loads: the plan-cache miss path.
  absl::StatusOr<ReadyPlan> Prepare(const Program& program,
                                    const absl::flat_hash_map<const Node*, int>& position) {
    const FusionPlan plan = PlanFusion(program, DefaultFusionOptions());
    const std::string dump = DumpDirectory();
    if (!dump.empty()) DumpPlan(dump, plan, program.outputs);
    absl::flat_hash_map<int, size_t> last_read;
    for (size_t k = 0; k < plan.kernels.size(); ++k) {
      for (const Node* in : plan.kernels[k].inputs) last_read[position.at(in)] = k;
    }
    for (const Node* out : program.outputs) last_read.erase(position.at(out));  // the caller's
    ReadyPlan ready;
    for (size_t k = 0; k < plan.kernels.size(); ++k) {
      const codegen::KernelSource ks = codegen::GenerateKernel(plan.kernels[k], target_);
      ReadyKernel r;
      for (const Node* in : ks.inputs) {
        r.inputs.push_back(position.at(in));
        auto last = last_read.find(position.at(in));
        if (last != last_read.end() && last->second == k) r.release.push_back(position.at(in));
      }
      for (const Node* out : ks.outputs) r.outputs.push_back(position.at(out));
      for (const Node* s : ks.scalars) r.scalars.push_back(position.at(s));
      r.workspace_bytes = ks.workspace_bytes;
      r.tensor_maps = ks.tensor_maps;
      std::vector<std::string> ops;
      for (const Node* n : plan.kernels[k].nodes) ops.emplace_back(OpName(n->op()));
      r.plan_line = absl::StrCat("kernel ", k, " of ", plan.kernels.size(), " (", ks.kind, ": ",
                                 absl::StrJoin(ops, " "), ")");
      TESSEL_ASSIGN_OR_RETURN(CUmodule module, LoadModule(ks, dump));
      for (const codegen::Launch& l : ks.launches) {
        ReadyKernel::Entry e{nullptr, l.grid, l.block, l.shared_bytes, l.entry};
        if (l.persistent) e.grid[0] = std::min<int64_t>(e.grid[0], sm_count_);
        if (e.grid[0] > 2147483647 || e.grid[1] > 65535 || e.grid[2] > 65535) {
          return absl::UnimplementedError(
              absl::StrCat("tessel: ", l.entry, " (", r.plan_line, ") would need a grid of ",
                           e.grid[0], " x ", e.grid[1], " x ", e.grid[2],
                           " blocks, past what a GPU launches (2^31 - 1 x 65535 x "
                           "65535): a problem this large is not supported yet"));
        }
        TESSEL_RETURN_IF_ERROR(
            runtime::CheckCu(driver_->cuModuleGetFunction(&e.function, module, l.entry.c_str()),
                    absl::StrCat("finding ", l.entry)));
        if (l.shared_bytes > 48 * 1024) {
          TESSEL_RETURN_IF_ERROR(runtime::CheckCu(
              driver_->cuFuncSetAttribute(e.function,
                                          CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                          static_cast<int>(l.shared_bytes)),
              absl::StrCat("reserving ", l.shared_bytes, " bytes of shared memory for ", l.entry)));
        }
        r.entries.push_back(std::move(e));
      }
      ready.nodes += static_cast<int64_t>(plan.kernels[k].nodes.size());
      ready.kernels.push_back(std::move(r));
    }
    return ready;
  }

  // A TMA descriptor for `spec` over the buffer at `address`.
  absl::Status EncodeTensorMap(const codegen::TensorMapSpec& spec, CUdeviceptr address,
                               CUtensorMap* map) {
    const cuuint64_t dims[3] = {static_cast<cuuint64_t>(spec.dims[0]),
                                static_cast<cuuint64_t>(spec.dims[1]),
                                static_cast<cuuint64_t>(spec.dims[2])};
    const cuuint64_t strides[2] = {static_cast<cuuint64_t>(spec.strides[0]),
                                   static_cast<cuuint64_t>(spec.strides[1])};
    const cuuint32_t box[3] = {static_cast<cuuint32_t>(spec.box[0]),
                               static_cast<cuuint32_t>(spec.box[1]), 1};
    const cuuint32_t element_strides[3] = {1, 1, 1};
    const CUtensorMapDataType type = spec.dtype == DType::kF16 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16
                                                               : CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
    return runtime::CheckCu(driver_->cuTensorMapEncodeTiled(
                       map, type, 3, reinterpret_cast<void*>(address), dims, strides, box,
                       element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                       CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
                   "encoding a TMA descriptor");
  }

  absl::StatusOr<CUmodule> LoadModule(const codegen::KernelSource& ks, const std::string& dump) {
    if (auto it = modules_.find(ks.source); it != modules_.end()) return it->second;
    const auto start = std::chrono::steady_clock::now();
    const runtime::CacheStats before = runtime::GlobalKernelCache().stats();
    auto compiled = CompileCached(ks, target_);
    if (!compiled.ok()) {
      const std::string path = WriteDumpFile(dump.empty() ? "/tmp/tessel-failed" : dump,
                                                      ks.name + ".cu", ks.source);
      return absl::InternalError(
          absl::StrCat(compiled.status().message(), "\n(source: ", path, ")"));
    }
    if (!dump.empty()) {
      WriteDumpFile(dump, ks.name + ".cu", ks.source);
      WriteDumpFile(dump, ks.name + ".ptx", (*compiled)->ptx);
      WriteDumpFile(dump, ks.name + ".cubin", (*compiled)->cubin);
    }
    CUmodule module;
    TESSEL_RETURN_IF_ERROR(runtime::CheckCu(driver_->cuModuleLoadData(&module, (*compiled)->cubin.data()),
                                   absl::StrCat("loading ", ks.name)));
    if (LogEnabled()) {
      const runtime::CacheStats after = runtime::GlobalKernelCache().stats();
      const char* from = after.compiles > before.compiles     ? "compiled with NVRTC"
                         : after.disk_hits > before.disk_hits ? "loaded from the disk cache"
                                                              : "from the memory cache";
      std::fprintf(stderr, "tessel: %s %s for %s in %.1f ms\n", ks.name.c_str(), from,
                   target_.Name().c_str(), MillisecondsSince(start));
    }
    modules_[ks.source] = module;
    ++GetStats().modules_loaded;
    return module;
  }

  absl::StatusOr<std::vector<BufferPtr>> Execute(
      const ReadyPlan& plan, const std::vector<const Node*>& order,
      const std::vector<const Node*>& outputs,
      const absl::flat_hash_map<const Node*, int>& position) {
    std::vector<BufferPtr> values(order.size());
    for (size_t i = 0; i < order.size(); ++i) {
      if (order[i]->realized()) values[i] = order[i]->buffer();
    }
    const bool log = LogEnabled();
    for (const ReadyKernel& k : plan.kernels) {
      std::vector<CUdeviceptr> args;
      for (int in : k.inputs) {
        if (values[in] == nullptr) {
          return absl::FailedPreconditionError(
              absl::StrCat("an input ", DTypeName(order[in]->dtype()),
                           order[in]->shape().ToString(), " has no data"));
        }
        args.push_back(static_cast<runtime::DeviceBuffer&>(*values[in]).ptr());
      }
      for (int out : k.outputs) {
        TESSEL_ASSIGN_OR_RETURN(auto b,
                                runtime::NewDeviceBuffer(order[out]->dtype(), order[out]->shape().numel()));
        args.push_back(b->ptr());
        values[out] = std::move(b);
      }
      std::shared_ptr<runtime::DeviceBuffer> workspace;
      if (k.workspace_bytes > 0) {
        TESSEL_ASSIGN_OR_RETURN(workspace, runtime::NewDeviceBuffer(DType::kF32, k.workspace_bytes / 4));
        args.push_back(workspace->ptr());
      }
      std::vector<void*> params;
      for (CUdeviceptr& a : args) params.push_back(&a);
      std::vector<CUtensorMap> maps(k.tensor_maps.size());
      for (size_t i = 0; i < maps.size(); ++i) {
        TESSEL_RETURN_IF_ERROR(
            EncodeTensorMap(k.tensor_maps[i], args[k.tensor_maps[i].arg], &maps[i]));
        params.push_back(&maps[i]);
      }
      std::vector<uint64_t> scalars(k.scalars.size());
      for (size_t i = 0; i < scalars.size(); ++i) {
        scalars[i] = codegen::ScalarArgument(*order[k.scalars[i]]);
        params.push_back(&scalars[i]);
      }
      for (const ReadyKernel::Entry& e : k.entries) {
        if (e.grid[0] == 0 || e.grid[1] == 0 || e.grid[2] == 0) continue;
        // The messages are built only on failure: this is the launch path.
        const CUresult launched =
            driver_->cuLaunchKernel(e.function, e.grid[0], e.grid[1], e.grid[2], e.block, 1, 1,
                                    e.shared_bytes, nullptr, params.data(), nullptr);
        if (launched != CUDA_SUCCESS) {
          return runtime::CheckCu(launched, absl::StrCat("launching ", e.name, ", ", k.plan_line));
        }
        if (SyncEnabled()) {
          const CUresult ran = driver_->cuCtxSynchronize();
          if (ran != CUDA_SUCCESS) {
            return runtime::CheckCu(ran, absl::StrCat("running ", e.name, ", ", k.plan_line));
          }
        }
        ++GetStats().kernels_launched;
        if (log) {
          std::fprintf(stderr, "tessel: launch %s grid (%lld, %lld, %lld) x %d\n", e.name.c_str(),
                       static_cast<long long>(e.grid[0]), static_cast<long long>(e.grid[1]),
                       static_cast<long long>(e.grid[2]), e.block);
        }
      }
      for (int r : k.release) values[r].reset();
    }
    GetStats().nodes_evaluated += plan.nodes;
    std::vector<BufferPtr> result;
    for (const Node* out : outputs) {
      BufferPtr& b = values[position.at(out)];
      if (b == nullptr && out->shape().numel() == 0) {  // no elements: no kernel computed it
        TESSEL_ASSIGN_OR_RETURN(b, runtime::NewDeviceBuffer(out->dtype(), 0));
      }
      if (b == nullptr) {
        return absl::FailedPreconditionError(
            absl::StrCat("an input ", DTypeName(out->dtype()), out->shape().ToString(),
                         " has no data (a graph parsed from text has placeholders only)"));
      }
      result.push_back(b);
    }
    return result;
  }

  std::once_flag init_once_;
  absl::Status init_;
  const runtime::Driver* driver_ = nullptr;
  CUdevice device_ = 0;
  CUcontext context_ = nullptr;
  Target target_;
  int sm_count_ = 1;
  absl::flat_hash_map<std::string, CUmodule> modules_;  // by source
  absl::flat_hash_map<std::vector<int64_t>, ReadyPlan> plans_;
};

const bool kRegistered = [] {
  RegisterBackend(std::make_unique<CudaBackend>());
  return true;
}();

}  // namespace
}  // namespace tessel::backend
