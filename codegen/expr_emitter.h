// The one scalar-expression emitter: computes graph values inside a generated kernel, for
// every lane a thread handles, at any position (IndexExpr). Pointwise kernels, reduction
// prologues and epilogues, and GEMM epilogues all print their math through it.
//
// Values computed here are rounded to their dtype (a bf16 node holds a bf16 value in a float
// register), so fused kernels compute what the CPU backend computes node by node.
#ifndef TESSEL_CODEGEN_EXPR_EMITTER_H_
#define TESSEL_CODEGEN_EXPR_EMITTER_H_

#include <functional>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "codegen/code_writer.h"
#include "codegen/index_expr.h"
#include "core/node.h"

namespace tessel::codegen {

// A value in the kernel: one variable per lane (an array indexed by the lane `k`) or one
// shared by all lanes.
struct Value {
  std::string name;
  bool per_lane = false;
  std::string At(const std::string& lane = "k") const {
    return per_lane ? absl::StrCat(name, "[", lane, "]") : name;
  }
};

// Storage and compute types of a dtype in generated code.
const char* StorageType(DType dtype);
// `expr` (storage value) as the compute type, and back.
std::string LoadConvert(DType dtype, const std::string& expr);
std::string StoreConvert(DType dtype, const std::string& expr);

class ExprEmitter {
 public:
  // `lanes`: how many positions each thread handles at once. `lane_loop` opens the loop
  // over lanes (e.g. "for (int k = 0; k < 4; ++k)"). `pointer_of` names the buffer of a
  // value the kernel reads from memory ("" for values computed here).
  ExprEmitter(CodeWriter* w, int lanes, std::function<std::string(const Node*)> pointer_of)
      : w_(w), lanes_(lanes), pointer_of_(std::move(pointer_of)) {}

  // The value of `node` at `idx`, emitting what it takes.
  Value Get(const Node* node, const IndexExpr& idx);
  // Declares that `node` at `idx` is `value` (reduction results, GEMM accumulators).
  void Bind(const Node* node, const IndexExpr& idx, Value value);
  // Writes `value` (the value of `node` at `idx`) to `pointer`, for every lane that passes the
  // index's guard: in vectors of idx.vector_width lanes where the lanes are contiguous.
  void Store(const std::string& pointer, const Node* node, const IndexExpr& idx,
             const Value& value);
  // Emits `type name[lanes]` (or a scalar) assigned from `expr` (which may use `k`).
  Value Define(const std::string& prefix, const char* type, bool per_lane, const std::string& expr);

 private:
  Value Load(const Node* node, const std::string& pointer, const IndexExpr& idx);
  Value Compute(const Node* node, const IndexExpr& idx);
  Value Convert(const Value& v, DType from, DType to);
  std::string Fresh(const std::string& prefix);

  CodeWriter* w_;
  int lanes_;
  std::function<std::string(const Node*)> pointer_of_;
  absl::flat_hash_map<std::pair<const Node*, std::string>, Value> memo_;
  absl::flat_hash_map<std::string, int> names_;
};

}  // namespace tessel::codegen

#endif  // TESSEL_CODEGEN_EXPR_EMITTER_H_
