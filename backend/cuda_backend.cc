// The CUDA backend: Program -> plan cache -> (miss: ready_plan.h) -> ExecutePlan on the
// caller's stream. Registered at start-up; available when libcuda, a GPU and NVRTC are.
//
// Each device has its own context, target, memory, streams and caches. Three bounded caches per
// device sit in front of the runtime's kernel cache: plans by structure (program_key.h),
// program families by family key (dynamic_extents.h) and loaded modules by source; all evict the
// least recently used entry, and a module stays loaded while a cached plan still launches from it.
#include "backend/cuda_backend.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backend/dynamic_extents.h"
#include "backend/environment.h"
#include "backend/execute.h"
#include "backend/program_key.h"
#include "backend/ready_plan.h"
#include "core/backend.h"
#include "core/environment.h"
#include "core/error.h"
#include "core/execution.h"
#include "core/stats.h"
#include "core/status_macros.h"
#include "fusion/planner.h"
#include "runtime/cuda_driver.h"
#include "runtime/device_context.h"
#include "runtime/device_memory.h"
#include "runtime/lru_cache.h"
#include "runtime/nvrtc_compiler.h"

namespace tessel::backend {
namespace {

constexpr size_t kPlanCacheEntries = 512;
constexpr size_t kModuleCacheEntries = 512;

// TESSEL_VIRTUAL_DEVICES=N: each GPU appears as N devices (1 to 64; 1 when unset).
int VirtualDevicesPerGpu() {
  return static_cast<int>(EnvInteger("TESSEL_VIRTUAL_DEVICES", 1, 64).value_or(1));
}

// A plan-cache entry: a plan and the rows it runs with. A family's plan is entered under the
// family key and, once it has served a program, under that program's exact key too, so that
// the program's next realize finds it at once.
struct CachedPlan {
  std::shared_ptr<const ReadyPlan> plan;
  int64_t rows = 0;
};

// One device and its caches. Plans and modules change only in Run, which realize calls one at
// a time; inspect() and explain() peek at them meanwhile (LruCache::Peek).
struct DeviceSlot {
  std::once_flag open_once;
  absl::Status open_status;
  std::unique_ptr<runtime::DeviceContext> context;
  std::atomic<bool> opened{false};  // `context` is set (read without the once flag)
  // Declared before the plans, which hold modules: destroyed after them.
  ModuleCache modules{kModuleCacheEntries};
  // Plans by structure key, and by family key plus dynamic rows (dynamic_extents.h).
  runtime::LruCache<std::vector<int64_t>, CachedPlan> plans{kPlanCacheEntries};
  runtime::LruCache<std::vector<int64_t>, Family> families{kPlanCacheEntries};
};

absl::StatusOr<CUstream> StreamOf(runtime::DeviceContext& device, int64_t id) {
  const CUstream stream = device.stream(id);
  if (stream == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("stream ", id, " was not created on CUDA device ", device.index()));
  }
  return stream;
}

class CudaBackend : public Backend {
 public:
  Device device() const override { return Device::kCUDA; }

  absl::Status Available() override {
    std::call_once(init_once_, [this] { init_ = Init(); });
    return init_;
  }

  int DeviceCount() override { return Available().ok() ? static_cast<int>(slots_.size()) : 0; }

  absl::StatusOr<std::vector<BufferPtr>> Run(const Program& program) override {
    ReadSettings();
    TESSEL_ASSIGN_OR_RETURN(DeviceSlot * slot, Open(program.device_index));
    runtime::DeviceContext& device = *slot->context;
    TESSEL_ASSIGN_OR_RETURN(const CUstream stream, StreamOf(device, program.stream));
    const OrderedProgram ordered = OrderProgram(program);
    const bool fuse = DefaultFusionOptions().fuse;
    std::vector<int64_t> key = StructureKey(ordered, program.outputs, fuse);
    if (const CachedPlan* hit = slot->plans.Find(key)) {
      ++GetStats().plan_cache_hits;
      return ExecutePlan(*hit->plan, ordered, program.outputs, device, stream, hit->rows);
    }
    ReadPlannerSettings();
    if (DynamicExtentsEnabled()) {
      TESSEL_ASSIGN_OR_RETURN(CachedPlan family, PlanOfFamily(*slot, program, ordered, fuse));
      if (family.plan != nullptr) {
        const CachedPlan& entry = slot->plans.Put(std::move(key), std::move(family));
        return ExecutePlan(*entry.plan, ordered, program.outputs, device, stream, entry.rows);
      }
    }
    TESSEL_ASSIGN_OR_RETURN(ReadyPlan ready,
                            PreparePlan(program, ordered.position, device, slot->modules));
    const CachedPlan& entry = slot->plans.Put(
        std::move(key), CachedPlan{std::make_shared<const ReadyPlan>(std::move(ready)), 0});
    ++GetStats().plans_built;
    return ExecutePlan(*entry.plan, ordered, program.outputs, device, stream, 0);
  }

  absl::StatusOr<BufferPtr> Upload(DType dtype, int64_t numel, const void* host) override {
    TESSEL_ASSIGN_OR_RETURN(const Place place, CurrentPlace());
    runtime::DeviceContext& device = *place.device;
    TESSEL_ASSIGN_OR_RETURN(
        auto buffer,
        runtime::NewDeviceBuffer(device.allocator(), device.index(), dtype, numel, place.stream));
    TESSEL_RETURN_IF_ERROR(device.CopyToDevice(buffer->ptr(), host, buffer->bytes(), place.stream));
    return BufferPtr(buffer);
  }

  absl::StatusOr<bool> CopyInPlace(Buffer& destination, const Buffer& source,
                                   int64_t stream_id) override {
    auto& to = static_cast<runtime::DeviceBuffer&>(destination);
    const auto& from = static_cast<const runtime::DeviceBuffer&>(source);
    TESSEL_ASSIGN_OR_RETURN(DeviceSlot * slot, Open(from.device_index()));
    runtime::DeviceContext& device = *slot->context;
    TESSEL_ASSIGN_OR_RETURN(const CUstream stream, StreamOf(device, stream_id));
    // The old value's writer must be this stream (its free list and later readers follow it).
    if (to.stream() != stream || from.stream() != stream) return false;
    for (CUstream reader : to.readers()) {  // work elsewhere still reading the old value
      TESSEL_RETURN_IF_ERROR(device.WaitFor(stream, reader));
    }
    TESSEL_RETURN_IF_ERROR(device.CopyOnDevice(to.ptr(), from.ptr(), from.bytes(), stream));
    return true;
  }

  absl::StatusOr<BufferPtr> WrapMemory(void* data, DType dtype, int64_t numel,
                                       std::function<void(void*)> release) override {
    TESSEL_ASSIGN_OR_RETURN(const Place place, CurrentPlace());
    runtime::DeviceContext& device = *place.device;
    // A host pointer read by a kernel would fault and poison the context: check first.
    const CUdeviceptr ptr = reinterpret_cast<CUdeviceptr>(data);
    if (numel > 0 && !device.HoldsDeviceMemory(ptr)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "0x", absl::Hex(ptr), " is not device memory (cudaMalloc, cuMemAlloc or managed)"));
    }
    return BufferPtr(std::make_shared<runtime::DeviceBuffer>(
        dtype, numel, device.index(), &device.allocator(), ptr, place.stream, std::move(release)));
  }

  absl::Status Download(const Buffer& buffer, void* host) override {
    TESSEL_ASSIGN_OR_RETURN(DeviceSlot * slot, Open(buffer.device_index()));
    const auto& b = static_cast<const runtime::DeviceBuffer&>(buffer);
    return slot->context->CopyToHost(host, b.ptr(), b.bytes(), b.stream());
  }

  absl::Status Synchronize() override {
    for (auto& slot : slots_) {
      if (slot->opened.load(std::memory_order_acquire)) {
        TESSEL_RETURN_IF_ERROR(slot->context->Synchronize());
      }
    }
    return absl::OkStatus();
  }

  absl::StatusOr<int64_t> CreateStream(int index) override {
    TESSEL_ASSIGN_OR_RETURN(DeviceSlot * slot, Open(index));
    return slot->context->CreateStream();
  }

  absl::Status SynchronizeStream(int index, int64_t stream) override {
    TESSEL_ASSIGN_OR_RETURN(DeviceSlot * slot, Open(index));
    return slot->context->SynchronizeStream(stream);
  }

  absl::StatusOr<void*> NativeStream(int index, int64_t stream) override {
    TESSEL_ASSIGN_OR_RETURN(DeviceSlot * slot, Open(index));
    TESSEL_ASSIGN_OR_RETURN(const CUstream s, StreamOf(*slot->context, stream));
    return static_cast<void*>(s);
  }

  std::optional<DynamicChoice> PeekDynamicRows(const Program& program) {
    if (!Available().ok() || program.device_index < 0 ||
        program.device_index >= static_cast<int>(slots_.size())) {
      return std::nullopt;
    }
    DeviceSlot& slot = *slots_[program.device_index];
    if (!slot.opened.load(std::memory_order_acquire)) return std::nullopt;
    const OrderedProgram ordered = OrderProgram(program);
    const bool fuse = DefaultFusionOptions().fuse;
    const CachedPlan* exact = slot.plans.Peek(StructureKey(ordered, program.outputs, fuse));
    if (exact != nullptr && exact->rows == 0) return std::nullopt;  // a plan of its own
    const Family* family =
        slot.families.Peek(StructureKey(ordered, program.outputs, fuse, /*with_extents=*/false));
    if (family == nullptr) return std::nullopt;
    Family copy = *family;  // a peek: the family does not learn from it
    return ChooseDynamicRows(ordered, ExtentsAndBounds(ordered), copy);
  }

  MemoryStats GetMemoryStats(int index) override {
    auto slot = Open(index);
    return slot.ok() ? (*slot)->context->allocator().stats() : MemoryStats{};
  }

  absl::Status EmptyCache(int index) override {
    TESSEL_ASSIGN_OR_RETURN(DeviceSlot * slot, Open(index));
    return slot->context->allocator().EmptyCache();
  }

  void SetMemoryLimit(int index, int64_t bytes) override {
    if (auto slot = Open(index); slot.ok()) (*slot)->context->allocator().set_limit(bytes);
  }

 private:
  // The plan of `program`'s family for its dynamic rows (dynamic_extents.h), made if needed;
  // a null plan where the program is to be specialized to its extents.
  absl::StatusOr<CachedPlan> PlanOfFamily(DeviceSlot& slot, const Program& program,
                                          const OrderedProgram& ordered, bool fuse) {
    std::vector<int64_t> key = StructureKey(ordered, program.outputs, fuse, /*with_extents=*/false);
    Family* family = slot.families.Find(key);
    if (family == nullptr) family = &slot.families.Put(key, Family{});
    const ProgramExtents extents = ExtentsAndBounds(ordered);
    std::optional<DynamicChoice> choice = ChooseDynamicRows(ordered, extents, *family);
    if (!choice.has_value()) return CachedPlan{};
    // The key holds everything the plan depends on, whatever became of the family record.
    key = DynamicKey(std::move(key), extents, choice->symbols);
    if (const CachedPlan* hit = slot.plans.Find(key)) {
      ++GetStats().plan_cache_hits;
      return CachedPlan{hit->plan, choice->rows};
    }
    absl::StatusOr<ReadyPlan> ready =
        PrepareDynamicPlan(program, ordered.position, *slot.context, slot.modules, choice->dynamic);
    if (!ready.ok()) {
      // A kernel whose rows version fails (to compile, say): the exact plan serves this bucket
      // from now on.
      if (LogEnabled()) {
        std::fprintf(stderr, "tessel: specializing instead of dynamic rows: %s\n",
                     std::string(ready.status().message()).c_str());
      }
      family->refused_buckets.push_back(choice->bucket);
      return CachedPlan{};
    }
    ++GetStats().plans_built;
    auto plan = std::make_shared<const ReadyPlan>(*std::move(ready));
    // A plan with kernels made for this batch size serves it alone: the caller keeps it under
    // the program's exact key; the next batch size of the bucket plans again and finds the
    // kernels that take the batch loaded (ModuleCache, by source).
    if (!plan->one_batch) slot.plans.Put(std::move(key), CachedPlan{plan, 0});
    return CachedPlan{std::move(plan), choice->rows};
  }

  absl::Status Init() {
    TESSEL_ASSIGN_OR_RETURN(driver_, runtime::GetDriver());
    int gpus = 0;
    TESSEL_RETURN_IF_ERROR(runtime::CheckCu(driver_->cuDeviceGetCount(&gpus), "cuDeviceGetCount"));
    if (gpus == 0) return absl::UnavailableError("no CUDA device");
    TESSEL_RETURN_IF_ERROR(runtime::NvrtcVersion().status());
    try {
      per_gpu_ = VirtualDevicesPerGpu();
    } catch (const Error& e) {  // the backend is unavailable, and says why
      return absl::InvalidArgumentError(e.what());
    }
    for (int i = 0; i < gpus * per_gpu_; ++i) slots_.push_back(std::make_unique<DeviceSlot>());
    return OpenSlot(0).status();  // a GPU that cannot be used makes the backend unavailable
  }

  // Device `index`, opened on first use, with its context current on this thread.
  absl::StatusOr<DeviceSlot*> Open(int index) {
    TESSEL_RETURN_IF_ERROR(Available());
    return OpenSlot(index);
  }

  // The current device (set_device) and its current stream: where new buffers go.
  struct Place {
    runtime::DeviceContext* device;
    CUstream stream;
  };
  absl::StatusOr<Place> CurrentPlace() {
    const int index = current_device();
    TESSEL_ASSIGN_OR_RETURN(DeviceSlot * slot, Open(index));
    TESSEL_ASSIGN_OR_RETURN(const CUstream stream,
                            StreamOf(*slot->context, CurrentStreamId(Device::kCUDA, index)));
    return Place{slot->context.get(), stream};
  }

  absl::StatusOr<DeviceSlot*> OpenSlot(int index) {
    if (index < 0 || index >= static_cast<int>(slots_.size())) {
      return absl::InvalidArgumentError(absl::StrCat("no CUDA device ", index));
    }
    DeviceSlot* slot = slots_[index].get();
    std::call_once(slot->open_once, [&] {
      auto context = runtime::DeviceContext::Open(driver_, index / per_gpu_, index,
                                                  /*own_context=*/index % per_gpu_ != 0);
      slot->open_status = context.status();
      if (context.ok()) {
        slot->context = *std::move(context);
        slot->opened.store(true, std::memory_order_release);
      }
    });
    TESSEL_RETURN_IF_ERROR(slot->open_status);
    TESSEL_RETURN_IF_ERROR(slot->context->MakeCurrent());
    return slot;
  }

  std::once_flag init_once_;
  absl::Status init_;
  const runtime::Driver* driver_ = nullptr;
  int per_gpu_ = 1;
  std::vector<std::unique_ptr<DeviceSlot>> slots_;  // fixed once Init has run
};

CudaBackend* const kBackend = [] {
  auto backend = std::make_unique<CudaBackend>();
  CudaBackend* registered = backend.get();
  RegisterBackend(std::move(backend));
  return registered;
}();

}  // namespace

std::optional<DynamicChoice> PeekDynamicRows(const Program& program) {
  return kBackend->PeekDynamicRows(program);
}
}  // namespace tessel::backend
