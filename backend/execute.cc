#include "backend/execute.h"

#include <algorithm>
#include <array>
#include <cstdio>

#include "absl/container/btree_map.h"
#include "absl/container/fixed_array.h"
#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "backend/environment.h"
#include "backend/plan_graph.h"
#include "core/stats.h"
#include "core/status_macros.h"
#include "ops/indexing.h"
#include "runtime/device_memory.h"

namespace tessel::backend {
namespace {

// A TMA descriptor for `spec` over the buffer at `address`.
absl::Status EncodeTensorMap(const runtime::Driver* driver, const codegen::TensorMapSpec& spec,
                             CUdeviceptr address, CUtensorMap* map) {
  cuuint64_t dims[5], strides[4];
  cuuint32_t box[5], element_strides[5];
  for (int d = 0; d < spec.rank; ++d) {
    dims[d] = static_cast<cuuint64_t>(spec.dims[d]);
    if (d > 0) strides[d - 1] = static_cast<cuuint64_t>(spec.strides[d - 1]);
    box[d] = d < 2 ? static_cast<cuuint32_t>(spec.box[d]) : 1;
    element_strides[d] = 1;
  }
  const CUtensorMapDataType type = spec.dtype == DType::kF16   ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16
                                   : spec.dtype == DType::kF32 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT32
                                                               : CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
  return runtime::CheckCu(
      driver->cuTensorMapEncodeTiled(map, type, spec.rank, reinterpret_cast<void*>(address), dims,
                                     strides, box, element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                     CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                                     CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
      "encoding a TMA descriptor");
}

// The leaves' buffers, with `stream` ordered after the streams that wrote them.
absl::StatusOr<std::vector<BufferPtr>> LeafValues(const std::vector<const Node*>& order,
                                                  runtime::DeviceContext& device, CUstream stream) {
  std::vector<BufferPtr> values(order.size());
  CUstream waited = stream;
  for (size_t i = 0; i < order.size(); ++i) {
    if (!order[i]->realized() || order[i]->buffer() == nullptr) continue;
    values[i] = order[i]->buffer();
    auto& b = static_cast<runtime::DeviceBuffer&>(*values[i]);
    if (b.stream() != stream && b.stream() != waited) {
      TESSEL_RETURN_IF_ERROR(device.WaitFor(stream, b.stream()));
      waited = b.stream();
    }
    b.AddReader(stream);
  }
  return values;
}

// The error for a value the program needs that holds no data.
absl::Status NoData(const Node& n) {
  return absl::FailedPreconditionError(
      absl::StrCat("an input ", DTypeName(n.dtype()), n.shape().ToString(),
                   " has no data (a graph parsed from text has placeholders only)"));
}

// The zeroed records of a plan's index checks (ReadyKernel::index_checks), three words each,
// or null when no kernel checks indices.
absl::StatusOr<std::shared_ptr<runtime::DeviceBuffer>> NewIndexRecords(
    const ReadyPlan& plan, runtime::DeviceContext& device, CUstream stream) {
  size_t words = 0;
  for (const ReadyKernel& k : plan.kernels) words += 3 * k.index_checks.size();
  if (words == 0) return nullptr;
  TESSEL_ASSIGN_OR_RETURN(auto records,
                          runtime::NewDeviceBuffer(device.allocator(), device.index(), DType::kI64,
                                                   static_cast<int64_t>(words), stream));
  const std::vector<uint64_t> zeros(words, 0);
  TESSEL_RETURN_IF_ERROR(
      device.CopyToDevice(records->ptr(), zeros.data(), records->bytes(), stream));
  return records;
}

// After the plan's kernels: the error for the first gather or scatter_add in program order that met
// an index out of range (at its first position), as the CPU backend reports it.
absl::Status CheckIndexRecords(const ReadyPlan& plan, const OrderedProgram& program,
                               const runtime::DeviceBuffer& records, runtime::DeviceContext& device,
                               CUstream stream) {
  std::vector<uint64_t> words(records.bytes() / 8);
  TESSEL_RETURN_IF_ERROR(device.CopyToHost(words.data(), records.ptr(), records.bytes(), stream));
  // Per gather or scatter_add (a gather inlined into two kernels has two records): the first
  // position.
  absl::btree_map<int, std::pair<uint64_t, int64_t>> first;  // position -> (key, value)
  size_t at = 0;
  for (const ReadyKernel& k : plan.kernels) {
    for (int gather : k.index_checks) {
      const uint64_t key = words[at];
      auto& [best, value] = first[gather];
      if (key > best) {
        best = key;
        value = static_cast<int64_t>(words[at + 1]);
      }
      at += 3;
    }
  }
  for (const auto& [gather, record] : first) {
    if (record.first != 0) {
      return ops_internal::IndexOutOfRange(*program.order[gather], record.second);
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<BufferPtr>> ExecutePlan(const ReadyPlan& plan,
                                                   const OrderedProgram& program,
                                                   const std::vector<const Node*>& outputs,
                                                   runtime::DeviceContext& device, CUstream stream,
                                                   int64_t rows) {
  const std::vector<const Node*>& order = program.order;
  TESSEL_ASSIGN_OR_RETURN(std::vector<BufferPtr> values, LeafValues(order, device, stream));
  auto allocate = [&](DType dtype, int64_t numel) {
    return runtime::NewDeviceBuffer(device.allocator(), device.index(), dtype, numel, stream);
  };
  TESSEL_ASSIGN_OR_RETURN(const auto index_records, NewIndexRecords(plan, device, stream));
  CUdeviceptr next_record = index_records == nullptr ? 0 : index_records->ptr();
  // Every buffer first, then the launches (plan_graph.h says why that order is safe); blocks
  // freed meanwhile stay cached until the launches that use them are queued.
  runtime::HeldFrees held(device.allocator());
  absl::FixedArray<LaunchParams, 4> params(plan.kernels.size());
  absl::InlinedVector<PendingLaunch, 8> launches;
  // Kernels built for sm_90 and later wait for their predecessor themselves (codegen's
  // GridDependency): each may start while the one before it ends.
  const bool waits_for_predecessor = device.target().major >= 9;
  for (size_t i = 0; i < plan.kernels.size(); ++i) {
    const ReadyKernel& k = plan.kernels[i];
    LaunchParams& p = params[i];
    for (int in : k.inputs) {
      if (values[in] == nullptr) return NoData(*order[in]);
      p.buffers.push_back(static_cast<runtime::DeviceBuffer&>(*values[in]).ptr());
    }
    for (int out : k.outputs) {
      TESSEL_ASSIGN_OR_RETURN(auto b, allocate(order[out]->dtype(), order[out]->shape().numel()));
      p.buffers.push_back(b->ptr());
      values[out] = std::move(b);
    }
    if (k.workspace_bytes > 0) {
      TESSEL_ASSIGN_OR_RETURN(auto workspace, allocate(DType::kF32, k.workspace_bytes / 4));
      p.buffers.push_back(workspace->ptr());
      // Freed now, reused only on this stream: after this kernel, which is issued first.
    }
    if (!k.index_checks.empty()) {
      p.buffers.push_back(next_record);
      next_record += 24 * k.index_checks.size();
    }
    p.maps.resize(k.tensor_maps.size());
    for (size_t m = 0; m < p.maps.size(); ++m) {
      codegen::TensorMapSpec spec = k.tensor_maps[m];
      if (spec.rows_dim1) {
        spec.dims[1] = rows;
        spec.strides[1] = rows * spec.strides[0];
      }
      TESSEL_RETURN_IF_ERROR(
          EncodeTensorMap(device.driver(), spec, p.buffers[spec.arg] + spec.offset, &p.maps[m]));
    }
    for (int s : k.scalars) p.scalars.push_back(codegen::ScalarArgument(*order[s]));
    p.rows = rows;
    p.takes_rows = k.takes_rows;
    p.Seal();
    for (const ReadyKernel::Entry& e : k.entries) {
      TESSEL_ASSIGN_OR_RETURN(const auto grid, LaunchGrid(k, e, rows, device.sm_count()));
      if (grid[0] == 0 || grid[1] == 0 || grid[2] == 0) continue;
      launches.push_back({e.function, grid, e.block, e.shared_bytes, &p, &e.name, &k.plan_line,
                          waits_for_predecessor});
    }
    for (int r : k.release) values[r].reset();
  }
  TESSEL_RETURN_IF_ERROR(
      IssueLaunches(launches, *plan.graph, device.driver(), stream, device.capture_stream()));
  if (index_records != nullptr) {  // waits for the kernels: realize reports bad indices
    TESSEL_RETURN_IF_ERROR(CheckIndexRecords(plan, program, *index_records, device, stream));
  }
  GetStats().nodes_evaluated += plan.nodes;
  std::vector<BufferPtr> result;
  for (const Node* out : outputs) {
    BufferPtr& b = values[program.position.at(out)];
    if (b == nullptr && out->shape().numel() == 0) {  // no elements: no kernel computed it
      TESSEL_ASSIGN_OR_RETURN(b, allocate(out->dtype(), 0));
    }
    if (b == nullptr) return NoData(*out);
    result.push_back(b);
  }
  return result;
}

}  // namespace tessel::backend
