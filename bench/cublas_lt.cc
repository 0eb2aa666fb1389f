#include "bench/cublas_lt.h"

#include <cublasLt.h>

#include "absl/strings/str_cat.h"
#include "core/execution.h"
#include "core/status_macros.h"
#include "runtime/dynamic_library.h"

namespace tessel::bench {
namespace {

#define TESSEL_LT_FUNCTIONS(X)            \
  X(cublasLtCreate)                       \
  X(cublasLtMatmulDescCreate)             \
  X(cublasLtMatmulDescSetAttribute)       \
  X(cublasLtMatrixLayoutCreate)           \
  X(cublasLtMatrixLayoutSetAttribute)     \
  X(cublasLtMatmulPreferenceCreate)       \
  X(cublasLtMatmulPreferenceSetAttribute) \
  X(cublasLtMatmulAlgoGetHeuristic)       \
  X(cublasLtMatmul)

struct Lt {
#define TESSEL_DECLARE(name) decltype(&::name) name = nullptr;
  TESSEL_LT_FUNCTIONS(TESSEL_DECLARE)
#undef TESSEL_DECLARE
  cublasLtHandle_t handle = nullptr;
};

absl::StatusOr<const Lt*> GetLt() {
  static const absl::StatusOr<Lt>* lt = [] {
    auto load = []() -> absl::StatusOr<Lt> {
      TESSEL_ASSIGN_OR_RETURN(void* lib,
                              runtime::OpenLibrary({"libcublasLt.so.13", "libcublasLt.so",
                                                    "/usr/local/cuda/lib64/libcublasLt.so"}));
      Lt l;
#define TESSEL_LOAD(name) TESSEL_RETURN_IF_ERROR(runtime::LoadSymbol(lib, #name, &l.name));
      TESSEL_LT_FUNCTIONS(TESSEL_LOAD)
#undef TESSEL_LOAD
      if (l.cublasLtCreate(&l.handle) != CUBLAS_STATUS_SUCCESS) {
        return absl::InternalError("cublasLtCreate failed");
      }
      return l;
    };
    return new absl::StatusOr<Lt>(load());
  }();
  if (!lt->ok()) return lt->status();
  return &**lt;
}

absl::Status Check(cublasStatus_t s, const char* what) {
  if (s == CUBLAS_STATUS_SUCCESS) return absl::OkStatus();
  return absl::InternalError(absl::StrCat(what, " failed with cuBLAS status ", s));
}

constexpr size_t kWorkspaceBytes = 32 << 20;

}  // namespace

struct LtGemm::Plan {
  cublasLtMatmulDesc_t desc;
  cublasLtMatrixLayout_t a, b, d;
  cublasLtMatmulHeuristicResult_t algo;
  CUdeviceptr workspace;
};

// `count` matrices `stride` elements apart in `layout`.
absl::Status SetBatch(const Lt& lt, cublasLtMatrixLayout_t layout, int64_t count, int64_t stride) {
  const int32_t n = static_cast<int32_t>(count);
  TESSEL_RETURN_IF_ERROR(Check(lt.cublasLtMatrixLayoutSetAttribute(
                                   layout, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &n, sizeof(n)),
                               "setting the batch count"));
  return Check(lt.cublasLtMatrixLayoutSetAttribute(
                   layout, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride, sizeof(stride)),
               "setting the batch stride");
}

absl::StatusOr<LtGemm> LtGemm::Create(int64_t m, int64_t n, int64_t k, LtEpilogue epilogue,
                                      CUdeviceptr bias, LtType type, const LtBatch& batch) {
  const bool tf32 = type == LtType::kTf32;
  const cudaDataType_t data = type == LtType::kBf16 ? CUDA_R_16BF : CUDA_R_32F;
  TESSEL_ASSIGN_OR_RETURN(const Lt* lt, GetLt());
  TESSEL_ASSIGN_OR_RETURN(const runtime::Driver* driver, runtime::GetDriver());
  auto* p = new Plan;
  // Row-major D = A B is column-major D^T = B^T A^T: cuBLAS's (n x k) times (k x m).
  TESSEL_RETURN_IF_ERROR(
      Check(lt->cublasLtMatmulDescCreate(
                &p->desc, tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F, CUDA_R_32F),
            "cublasLtMatmulDescCreate"));
  if (epilogue == LtEpilogue::kBiasGelu) {
    const cublasLtEpilogue_t e = CUBLASLT_EPILOGUE_GELU_BIAS;
    const void* bias_ptr = reinterpret_cast<const void*>(bias);
    TESSEL_RETURN_IF_ERROR(Check(
        lt->cublasLtMatmulDescSetAttribute(p->desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &e, sizeof(e)),
        "setting the epilogue"));
    TESSEL_RETURN_IF_ERROR(
        Check(lt->cublasLtMatmulDescSetAttribute(p->desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER,
                                                 &bias_ptr, sizeof(bias_ptr)),
              "setting the bias"));
  }
  TESSEL_RETURN_IF_ERROR(
      Check(lt->cublasLtMatrixLayoutCreate(&p->a, data, n, k, n), "layout of B"));
  TESSEL_RETURN_IF_ERROR(
      Check(lt->cublasLtMatrixLayoutCreate(&p->b, data, k, m, k), "layout of A"));
  TESSEL_RETURN_IF_ERROR(
      Check(lt->cublasLtMatrixLayoutCreate(&p->d, data, n, m, n), "layout of D"));
  if (batch.count > 1) {  // cuBLAS's A is our B (see above)
    TESSEL_RETURN_IF_ERROR(SetBatch(*lt, p->a, batch.count, batch.b_stride));
    TESSEL_RETURN_IF_ERROR(SetBatch(*lt, p->b, batch.count, batch.a_stride));
    TESSEL_RETURN_IF_ERROR(SetBatch(*lt, p->d, batch.count, batch.d_stride));
  }
  cublasLtMatmulPreference_t preference;
  TESSEL_RETURN_IF_ERROR(
      Check(lt->cublasLtMatmulPreferenceCreate(&preference), "cublasLtMatmulPreferenceCreate"));
  const size_t workspace = kWorkspaceBytes;
  TESSEL_RETURN_IF_ERROR(Check(
      lt->cublasLtMatmulPreferenceSetAttribute(preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                               &workspace, sizeof(workspace)),
      "setting the workspace"));
  int found = 0;
  TESSEL_RETURN_IF_ERROR(
      Check(lt->cublasLtMatmulAlgoGetHeuristic(lt->handle, p->desc, p->a, p->b, p->d, p->d,
                                               preference, 1, &p->algo, &found),
            "cublasLtMatmulAlgoGetHeuristic"));
  if (found == 0) return absl::NotFoundError("cuBLASLt has no algorithm for this GEMM");
  TESSEL_RETURN_IF_ERROR(
      runtime::CheckCu(driver->cuMemAlloc(&p->workspace, kWorkspaceBytes), "cuBLASLt workspace"));
  LtGemm gemm;
  gemm.plan_ = p;
  return gemm;
}

absl::Status LtGemm::Run(CUdeviceptr a, CUdeviceptr b, CUdeviceptr d) const {
  TESSEL_ASSIGN_OR_RETURN(const Lt* lt, GetLt());
  const float one = 1, zero = 0;
  return Check(
      lt->cublasLtMatmul(lt->handle, plan_->desc, &one, reinterpret_cast<void*>(b), plan_->a,
                         reinterpret_cast<void*>(a), plan_->b, &zero, reinterpret_cast<void*>(d),
                         plan_->d, reinterpret_cast<void*>(d), plan_->d, &plan_->algo.algo,
                         reinterpret_cast<void*>(plan_->workspace), kWorkspaceBytes,
                         static_cast<cudaStream_t>(Stream::current().cuda_stream())),
      "cublasLtMatmul");
}

}  // namespace tessel::bench
