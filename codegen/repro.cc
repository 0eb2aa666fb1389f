#include "codegen/repro.h"

#include <algorithm>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "codegen/code_writer.h"
#include "codegen/device_library.h"
#include "codegen/expr_emitter.h"
#include "codegen/kernel_common.h"

namespace tessel::codegen {
namespace {

// Host-side helpers the harness needs beyond the kernel's own prelude.
constexpr char kHarnessHelpers[] = R"CUDA(
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda.h>
#include <cuda_runtime.h>

// A float kernel argument from the bits tessel passes.
static float repro_float(unsigned bits) {
  float f;
  std::memcpy(&f, &bits, sizeof(f));
  return f;
}

#define REPRO_CHECK_CU(call)                                       \
  do {                                                             \
    CUresult e = (call);                                           \
    if (e != CUDA_SUCCESS) {                                       \
      std::fprintf(stderr, "%s failed: error %d\n", #call, (int)e); \
      std::exit(1);                                                \
    }                                                              \
  } while (0)

#define REPRO_CHECK(call)                                                    \
  do {                                                                       \
    cudaError_t e = (call);                                                  \
    if (e != cudaSuccess) {                                                  \
      std::fprintf(stderr, "%s failed: %s\n", #call, cudaGetErrorString(e)); \
      std::exit(1);                                                          \
    }                                                                        \
  } while (0)

)CUDA";

// A fill kernel (uniform values in [-2, 2) from tessel's generator) and a checksum kernel
// (one thread: the order is fixed) for buffers of `dtype`.
void EmitHelpersFor(CodeWriter& w, DType dtype) {
  const std::string name(DTypeName(dtype)), type = StorageType(dtype);
  {
    auto fill = w.Block("__global__ void repro_fill_", name, "(", type,
                        "* p, long long n, unsigned long long seed)");
    w.Line("for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;");
    w.Line("     i += (long long)gridDim.x * blockDim.x) {");
    w.Line("  p[i] = ", StoreConvert(dtype, "(4.0f * tessel_rand(seed, i) - 2.0f)"), ";");
    w.Line("}");
  }
  if (IsInteger(dtype)) {  // a gather's indices, in [0, size)
    auto fill = w.Block("__global__ void repro_fill_index_", name, "(", type,
                        "* p, long long n, unsigned long long seed, long long size)");
    w.Line("for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;");
    w.Line("     i += (long long)gridDim.x * blockDim.x) {");
    w.Line("  p[i] = (", type, ")min((long long)(tessel_rand(seed, i) * size), size - 1);");
    w.Line("}");
  }
  auto sum = w.Block("__global__ void repro_checksum_", name, "(const ", type,
                     "* p, long long n, double* out)");
  w.Line("double s = 0;");
  w.Line("for (long long i = 0; i < n; ++i) s += (double)", LoadConvert(dtype, "p[i]"), ";");
  w.Line("*out = s;");
}

std::string Grid(const Launch& l) {
  // A persistent kernel walks grid[0] work items with at most persistent_per_sm blocks per SM.
  const std::string x =
      l.persistent_per_sm > 0
          ? absl::StrCat("std::min(", l.grid[0], "LL, (long long)sms * ", l.persistent_per_sm, ")")
          : absl::StrCat(l.grid[0]);
  return absl::StrCat("dim3(", x, ", ", l.grid[1], ", ", l.grid[2], ")");
}

// `text` with each device-library include replaced by the header itself (its own includes
// first, each header once): one file for nvcc.
void InlineDeviceLibrary(absl::string_view text, absl::flat_hash_set<std::string>& pasted,
                         std::string* out) {
  constexpr absl::string_view kInclude = "#include \"";
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    absl::string_view name = line;
    if (line == "#pragma once") continue;
    // The name runs to its closing quote (a comment may follow).
    const size_t close = absl::ConsumePrefix(&name, kInclude) ? name.find('"') : name.npos;
    if (close == name.npos) {
      absl::StrAppend(out, line, "\n");
      continue;
    }
    name = name.substr(0, close);
    for (const DeviceHeader& h : DeviceLibrary()) {
      if (h.name == name && pasted.insert(std::string(name)).second) {
        InlineDeviceLibrary(h.text, pasted, out);
      }
    }
  }
}

// Encodes the kernel's TMA descriptors as the runtime does, for buffers named in `args`.
void EmitTensorMaps(CodeWriter& w, const KernelSource& ks, const std::vector<std::string>& args) {
  for (size_t i = 0; i < ks.tensor_maps.size(); ++i) {
    const TensorMapSpec& m = ks.tensor_maps[i];
    w.Line("CUtensorMap map", i, ";");
    auto block = w.Block("");
    const auto used = [&](const auto& a, int n) {
      return absl::StrJoin(a.begin(), a.begin() + n, ", ");
    };
    w.Line("cuuint64_t dims[] = {", used(m.dims, m.rank), "};");
    w.Line("cuuint64_t strides[] = {", used(m.strides, m.rank - 1), "};");
    w.Line("cuuint32_t box[5] = {", m.box[0], ", ", m.box[1],
           ", 1, 1, 1}, steps[5] = {1, 1, 1, 1, 1};");
    w.Line("REPRO_CHECK_CU(cuTensorMapEncodeTiled(&map", i, ", ",
           m.dtype == DType::kF16   ? "CU_TENSOR_MAP_DATA_TYPE_FLOAT16"
           : m.dtype == DType::kF32 ? "CU_TENSOR_MAP_DATA_TYPE_FLOAT32"
                                    : "CU_TENSOR_MAP_DATA_TYPE_BFLOAT16",
           ", ", m.rank, ", (char*)", args[m.arg], " + ", m.offset,
           ", dims, strides, box, steps, CU_TENSOR_MAP_INTERLEAVE_NONE,");
    w.Line("    CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,");
    w.Line("    CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));");
  }
}

// The scalar arguments, with the values of the graph the kernel was generated from.
void EmitScalars(CodeWriter& w, const KernelSource& ks, std::vector<std::string>* params) {
  for (size_t i = 0; i < ks.scalars.size(); ++i) {
    const Node& n = *ks.scalars[i];
    const uint64_t bits = ScalarArgument(n);
    if (n.op() != OpKind::kFull) {
      w.Line("const unsigned long long s", i, " = ", bits, "ull;  // ", OpName(n.op()), " seed");
    } else if (IsFloating(n.dtype())) {
      w.Line("const float s", i, " = repro_float(0x", absl::Hex(bits), "u);  // full ",
             n.attrs().value);
    } else {
      w.Line("const int s", i, " = ", static_cast<int32_t>(bits), ";");
    }
    params->push_back(absl::StrCat("s", i));
  }
}

// The gathers and scatter_adds kernel `ks` computes (below its outputs, above its inputs),
// checked or not.
std::vector<const Node*> IndexingNodes(const KernelSource& ks) {
  std::vector<const Node*> found, stack(ks.outputs.begin(), ks.outputs.end());
  absl::flat_hash_set<const Node*> seen;
  while (!stack.empty()) {
    const Node* n = stack.back();
    stack.pop_back();
    if (!seen.insert(n).second || InputIndex(ks, n) >= 0 || n->realized()) continue;
    if (ReadsIndices(*n)) found.push_back(n);
    for (const NodePtr& in : n->inputs()) stack.push_back(in.get());
  }
  return found;
}

// The smallest extent of an axis that a gather or scatter_add of `ks` indexes with input `in`
// (seen through views and casts), 0 where `in` indexes none: its fill then stays in range, as
// a program's indices do, instead of timing the out-of-range report (or, where the indices
// were known in range, reading out of bounds).
int64_t IndexedSize(const KernelSource& ks, const Node* in) {
  int64_t size = 0;
  for (const Node* indexing : IndexingNodes(ks)) {
    const Node* index = &indexing->input(1);
    while (index != in && !index->realized() &&
           (GetOpInfo(index->op()).category == OpCategory::kView || index->op() == OpKind::kCast)) {
      index = &index->input(0);
    }
    const int64_t extent = indexing->input(0).shape()[indexing->attrs().ints[0]];
    if (index == in && extent > 0) size = size == 0 ? extent : std::min(size, extent);
  }
  return size;
}

// The harness: buffers, fills, the launches as tessel makes them, timing, checksums.
void EmitMain(CodeWriter& w, const KernelSource& ks) {
  auto main = w.Block("int main()");
  std::vector<std::string> args;
  double bytes = 0;
  // `fill`: -1 none, 0 values in [-2, 2), else indices in [0, fill).
  auto buffer = [&](const std::string& name, DType dtype, int64_t n, int64_t fill) {
    w.Line(StorageType(dtype), "* ", name, " = nullptr;");
    w.Line("REPRO_CHECK(cudaMalloc(&", name, ", ", std::max<int64_t>(n, 1), "LL * sizeof(*", name,
           ")));");
    if (fill == 0) {
      w.Line("repro_fill_", DTypeName(dtype), "<<<1024, 256>>>(", name, ", ", n, "LL, ",
             args.size() + 1, "ull);");
    } else if (fill > 0) {
      w.Line("repro_fill_index_", DTypeName(dtype), "<<<1024, 256>>>(", name, ", ", n, "LL, ",
             args.size() + 1, "ull, ", fill, "LL);");
    }
    args.push_back(name);
    bytes += static_cast<double>(n) * DTypeSize(dtype);
  };
  for (size_t i = 0; i < ks.inputs.size(); ++i) {
    const Node* in = ks.inputs[i];
    buffer(absl::StrCat("in", i), in->dtype(), in->shape().numel(),
           IsInteger(in->dtype()) ? IndexedSize(ks, in) : 0);
  }
  for (size_t i = 0; i < ks.outputs.size(); ++i) {
    buffer(absl::StrCat("out", i), ks.outputs[i]->dtype(), ks.outputs[i]->shape().numel(), -1);
  }
  if (ks.workspace_bytes > 0) {
    w.Line("float* ws = nullptr;");
    w.Line("REPRO_CHECK(cudaMalloc(&ws, ", ks.workspace_bytes, "LL));");
    args.push_back("ws");
  }
  if (!ks.index_checks.empty()) {  // three words per check (tessel_report_index), zeroed
    const size_t words = 3 * ks.index_checks.size();
    w.Line("unsigned long long* bad = nullptr;");
    w.Line("REPRO_CHECK(cudaMalloc(&bad, ", words, " * sizeof(*bad)));");
    w.Line("REPRO_CHECK(cudaMemset(bad, 0, ", words, " * sizeof(*bad)));");
    args.push_back("bad");
  }
  EmitTensorMaps(w, ks, args);
  std::vector<std::string> params = args;
  for (size_t i = 0; i < ks.tensor_maps.size(); ++i) {
    params.push_back(absl::StrCat("*reinterpret_cast<tessel_tensor_map*>(&map", i, ")"));
  }
  EmitScalars(w, ks, &params);
  if (ks.takes_rows) {
    const Shape& out = ks.outputs.at(0)->shape();
    w.Line("const long long rows = ", out.rank() > 0 ? out[0] : 1,
           ";  // the leading extent it was generated at");
    params.push_back("rows");
  }
  w.Line("int sms = 0;");
  w.Line("REPRO_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));");
  for (const Launch& l : ks.launches) {
    if (l.shared_bytes > 0) {
      w.Line("REPRO_CHECK(cudaFuncSetAttribute(", l.entry,
             ", cudaFuncAttributeMaxDynamicSharedMemorySize, ", l.shared_bytes, "));");
    }
    if (l.cluster > 8) {  // as backend/ready_plan.cc: else such a launch fails
      w.Line("REPRO_CHECK(cudaFuncSetAttribute(", l.entry,
             ", cudaFuncAttributeNonPortableClusterSizeAllowed, 1));");
    }
  }
  {
    auto run = w.Block("auto run = [&]()");
    for (const Launch& l : ks.launches) {
      w.Line(l.entry, "<<<", Grid(l), ", ", l.block, ", ", l.shared_bytes, ">>>(",
             absl::StrJoin(params, ", "), ");");
    }
  }
  w.Line(";");
  w.Line("run();");
  w.Line("REPRO_CHECK(cudaGetLastError());  // a launch refused (its shape, its resources)");
  w.Line("REPRO_CHECK(cudaDeviceSynchronize());");
  w.Line("cudaEvent_t start, stop;");
  w.Line("cudaEventCreate(&start);");
  w.Line("cudaEventCreate(&stop);");
  w.Line("cudaEventRecord(start);");
  w.Line("for (int i = 0; i < 20; ++i) run();");
  w.Line("cudaEventRecord(stop);");
  w.Line("REPRO_CHECK(cudaEventSynchronize(stop));");
  w.Line("float ms = 0;");
  w.Line("cudaEventElapsedTime(&ms, start, stop);");
  w.Line("ms /= 20;");
  w.Line("std::printf(\"", ks.name, ": %.4f ms, %.1f GB/s (", bytes,
         " bytes read and written)\\n\", ms, ", bytes, " / ms / 1e6);");
  w.Line("double* sum = nullptr;");
  w.Line("REPRO_CHECK(cudaMallocManaged(&sum, sizeof(double)));");
  for (size_t i = 0; i < ks.outputs.size(); ++i) {
    w.Line("repro_checksum_", DTypeName(ks.outputs[i]->dtype()), "<<<1, 1>>>(out", i, ", ",
           ks.outputs[i]->shape().numel(), "LL, sum);");
    w.Line("REPRO_CHECK(cudaDeviceSynchronize());");
    w.Line("std::printf(\"checksum of out", i, ": %.6g\\n\", *sum);");
  }
  w.Line("return 0;");
}

}  // namespace

std::string ReproSource(const KernelSource& ks) {
  CodeWriter w;
  w.Line("// tessel repro of ", ks.name, " (", ks.kind, "), self-contained:");
  // --fmad=false as the runtime compiles (runtime/nvrtc_compiler.cc): the same bits.
  w.Line("//   nvcc -O3 --fmad=false -gencode arch=compute_90a,code=sm_90a ", ks.name, ".cu -o ",
         ks.name, " -lcuda && ./", ks.name);
  std::string source;
  absl::flat_hash_set<std::string> pasted;
  InlineDeviceLibrary(ks.source, pasted, &source);
  w.Raw(source);
  w.Raw(kHarnessHelpers);
  std::vector<DType> dtypes;
  for (const auto* list : {&ks.inputs, &ks.outputs}) {
    for (const Node* n : *list) {
      if (std::find(dtypes.begin(), dtypes.end(), n->dtype()) == dtypes.end()) {
        dtypes.push_back(n->dtype());
      }
    }
  }
  for (DType d : dtypes) EmitHelpersFor(w, d);
  w.Blank();
  EmitMain(w, ks);
  return w.text();
}

}  // namespace tessel::codegen
