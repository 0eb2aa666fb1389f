// The one scalar-expression emitter: computes graph values inside a generated kernel, for
// every lane a thread handles, at any position (IndexExpr). Pointwise kernels, reduction
// prologues and epilogues, and GEMM epilogues all print their math through it.
//
// Values computed here are rounded to their dtype (a bf16 node holds a bf16 value in a float
// register), so fused kernels compute what the CPU backend computes node by node.
#ifndef TESSEL_CODEGEN_EXPR_EMITTER_H_
#define TESSEL_CODEGEN_EXPR_EMITTER_H_

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "codegen/code_writer.h"
#include "codegen/dtype_exprs.h"
#include "codegen/index_expr.h"
#include "codegen/kernel_source.h"
#include "core/node.h"

namespace tessel::codegen {

// A value in the kernel: one variable per lane (an array indexed by the lane `k`) or one
// shared by all lanes. With `pairs` kBF16 or kF16, the per-lane array holds 32-bit words of
// two 16-bit lanes (lane k in word k / 2, even lanes low) and At() unpacks one.
struct Value {
  std::string name;
  bool per_lane = false;
  DType pairs = DType::kF32;
  bool Paired() const { return IsHalfFloat(pairs); }
  std::string At(const std::string& lane = "k") const {
    if (Paired()) {
      return absl::StrCat(pairs == DType::kBF16 ? "tessel_bf16_lane(" : "tessel_f16_lane(", name,
                          ", ", lane, ")");
    }
    return per_lane ? absl::StrCat(name, "[", lane, "]") : name;
  }
};

class ExprEmitter {
 public:
  // `lanes`: how many positions each thread handles at once. `kernel` names the buffers the
  // kernel reads and its scalar parameters.
  ExprEmitter(CodeWriter* w, int lanes, const KernelSource& kernel)
      : w_(w), lanes_(lanes), kernel_(kernel) {}

  // Keeps 16-bit values as pairs (see Value) where lanes allow: loads, adds, subtracts and
  // multiplies of two paired values, conversions to 16 bits, and stores. Needs even lanes.
  void PairHalves() { pair_halves_ = lanes_ % 2 == 0; }

  // Values at positions the same for every lane come from `outer` (emitted where it writes):
  // for a loop whose only changing position is the lanes' (a streamed row), what is the same
  // along the row is read once, before the loop, not at every step.
  void HoistInvariantsTo(ExprEmitter* outer) { outer_ = outer; }

  // Ends every name this emitter defines with `suffix`: an emitter in a nested scope then
  // never hides a name of the enclosing one that its bound values use.
  void SuffixNames(std::string suffix) { suffix_ = std::move(suffix); }

  // The value of `node` at `idx`, emitting what it takes.
  Value Get(const Node* node, const IndexExpr& idx);
  // Declares that `node` at `idx` is `value` (reduction results, GEMM accumulators).
  void Bind(const Node* node, const IndexExpr& idx, Value value);
  // Reads input `node` at `idx`, where a value needs it, from `pointer` at `at` instead: a
  // copy of its values elsewhere (a row held in shared memory).
  void ReadFrom(const Node* node, const IndexExpr& idx, std::string pointer, IndexExpr at);
  // Writes `value` (the value of `node` at `idx`) to `pointer`, for every lane that passes the
  // index's guard: in vectors of idx.vector_width lanes where the lanes are contiguous.
  void Store(const std::string& pointer, const Node* node, const IndexExpr& idx,
             const Value& value);
  // Emits `type name[lanes]` (or a scalar) assigned from `expr` (which may use `k`).
  Value Define(const std::string& prefix, const char* type, bool per_lane, const std::string& expr);

 private:
  Value Load(const Node* node, const std::string& pointer, const IndexExpr& idx);
  Value Compute(const Node* node, const IndexExpr& idx);
  // kGather at `idx`: reads its data where the index points, reporting bad indices.
  Value Gathered(const Node* node, const IndexExpr& idx);
  // Records gather `node`'s out-of-range indices `at` (read at idx) in its check's slot.
  void ReportBadIndices(const Node* node, const IndexExpr& idx, const Value& at);
  Value Convert(const Value& v, DType from, DType to);
  // A paired value: `unsigned name[lanes / 2]` assigned from `expr` (which may use `p`).
  Value DefinePairs(const std::string& prefix, DType dtype, const std::string& expr);
  // The paired form of elementwise `node` on `args`, where there is one.
  std::optional<Value> ComputePairs(const Node* node, DType operand,
                                    const std::vector<Value>& args);
  std::string Fresh(const std::string& prefix);

  CodeWriter* w_;
  int lanes_;
  bool pair_halves_ = false;
  ExprEmitter* outer_ = nullptr;
  std::string suffix_;
  const KernelSource& kernel_;
  absl::flat_hash_map<std::pair<const Node*, std::string>, Value> memo_;
  absl::flat_hash_map<std::pair<const Node*, std::string>, std::pair<std::string, IndexExpr>>
      copies_;  // ReadFrom's
  absl::flat_hash_map<std::string, int> names_;
};

}  // namespace tessel::codegen

#endif  // TESSEL_CODEGEN_EXPR_EMITTER_H_
