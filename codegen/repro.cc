#include "codegen/repro.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "codegen/code_writer.h"
#include "codegen/expr_emitter.h"

namespace tessel::codegen {
namespace {

// Host-side helpers the harness needs beyond the kernel's own prelude.
constexpr char kHarnessHelpers[] = R"CUDA(
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

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
  auto sum = w.Block("__global__ void repro_checksum_", name, "(const ", type,
                     "* p, long long n, double* out)");
  w.Line("double s = 0;");
  w.Line("for (long long i = 0; i < n; ++i) s += (double)", LoadConvert(dtype, "p[i]"), ";");
  w.Line("*out = s;");
}

std::string Grid(const Launch& l) {
  return absl::StrCat("dim3(", l.grid[0], ", ", l.grid[1], ", ", l.grid[2], ")");
}

// The harness: buffers, fills, the launches as tessel makes them, timing, checksums.
void EmitMain(CodeWriter& w, const KernelSource& ks) {
  auto main = w.Block("int main()");
  std::vector<std::string> args;
  double bytes = 0;
  auto buffer = [&](const std::string& name, DType dtype, int64_t n, bool fill) {
    w.Line(StorageType(dtype), "* ", name, " = nullptr;");
    w.Line("REPRO_CHECK(cudaMalloc(&", name, ", ", std::max<int64_t>(n, 1), "LL * sizeof(*", name,
           ")));");
    if (fill) {
      w.Line("repro_fill_", DTypeName(dtype), "<<<1024, 256>>>(", name, ", ", n, "LL, ",
             args.size() + 1, "ull);");
    }
    args.push_back(name);
    bytes += static_cast<double>(n) * DTypeSize(dtype);
  };
  for (size_t i = 0; i < ks.inputs.size(); ++i) {
    buffer(absl::StrCat("in", i), ks.inputs[i]->dtype(), ks.inputs[i]->shape().numel(), true);
  }
  for (size_t i = 0; i < ks.outputs.size(); ++i) {
    buffer(absl::StrCat("out", i), ks.outputs[i]->dtype(), ks.outputs[i]->shape().numel(), false);
  }
  if (ks.workspace_bytes > 0) {
    w.Line("float* ws = nullptr;");
    w.Line("REPRO_CHECK(cudaMalloc(&ws, ", ks.workspace_bytes, "LL));");
    args.push_back("ws");
  }
  {
    auto run = w.Block("auto run = [&]()");
    for (const Launch& l : ks.launches) {
      w.Line(l.entry, "<<<", Grid(l), ", ", l.block, ">>>(", absl::StrJoin(args, ", "), ");");
    }
  }
  w.Line(";");
  w.Line("run();");
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
  w.Line("//   nvcc -O3 -arch=sm_90a ", ks.name, ".cu -o ", ks.name, " && ./", ks.name);
  w.Raw(ks.source);
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
