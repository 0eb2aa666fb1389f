#include "codegen/expr_emitter.h"

#include <cmath>
#include <cstdint>
#include <limits>

#include "absl/base/casts.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "codegen/dtype_exprs.h"
#include "codegen/kernel_common.h"
#include "codegen/normalization_term.h"
#include "core/error.h"
#include "ops/cuda_expr.h"
#include "ops/philox.h"
#include "ops/pointwise.h"

namespace tessel::codegen {

namespace {

// The value of a reduction of nothing (an empty sum or matmul 0, an empty product 1, an
// empty mean NaN).
std::string NothingCombined(OpKind op, DType dtype) {
  if (dtype == DType::kBool) return op == OpKind::kProd ? "true" : "false";
  const std::string one = op == OpKind::kProd ? "1" : "0";
  // Typed literals: an untyped 0 next to a long long or double picks no overload.
  if (dtype == DType::kI64) return absl::StrCat("(long long)", one);
  if (!IsFloating(dtype)) return one;
  if (dtype == DType::kF64) {
    return op == OpKind::kMean ? "__longlong_as_double(0x7ff8000000000000ll)"
                               : absl::StrCat(one, ".0");
  }
  return op == OpKind::kMean ? "__int_as_float(0x7fc00000)" : absl::StrCat(one, ".0f");
}

// Whether `node` holds positions below 2^31 as i64: an arange, seen through any views. A
// realized view holds data and no inputs (fuzz seed 72303761 read past them).
bool IsNarrowPosition(const Node* node) {
  while (GetOpInfo(node->op()).category == OpCategory::kView && !node->realized()) {
    node = &node->input(0);
  }
  return node->op() == OpKind::kArange && node->dtype() == DType::kI64 &&
         node->shape()[0] <= std::numeric_limits<int32_t>::max();
}

// eq or ne of an i64 position (IsNarrowPosition, per lane) and an i64 value the same in every
// lane (a row's target class): the value's high word is tested once and each lane compares
// 32 bits. The compiler, given two i64s, compares both words in every lane (one-hot picks of
// a bf16 cross-entropy: 3 of its 14 instructions an element). "" where this does not apply.
std::string NarrowCompare(const Node& node, const std::vector<Value>& values,
                          const std::vector<std::string>& args) {
  const bool eq = node.op() == OpKind::kEq;
  if ((!eq && node.op() != OpKind::kNe) || node.input(0).dtype() != DType::kI64 ||
      node.input(1).dtype() != DType::kI64) {
    return "";
  }
  for (int narrow = 0; narrow < 2; ++narrow) {
    const int wide = 1 - narrow;
    if (!IsNarrowPosition(&node.input(narrow)) || values[wide].per_lane) continue;
    // & and |, not && and ||: a branch on the high word made the compiler keep the lanes'
    // results as bytes (twice the instructions).
    const std::string high =
        absl::StrCat("((unsigned long long)", args[wide], " >> 32 ", eq ? "==" : "!=", " 0)");
    const std::string low = absl::StrCat("((unsigned)", args[narrow],
                                         eq ? " == " : " != ", "(unsigned)", args[wide], ")");
    return absl::StrCat("(", high, eq ? " & " : " | ", low, ")");
  }
  return "";
}

}  // namespace

std::string ExprEmitter::Fresh(const std::string& prefix) {
  // Numbered by the emitter invariants are hoisted to, where there is one: its values are in
  // scope here, and a name of this emitter's must not hide one of them.
  ExprEmitter* numbering = this;
  while (numbering->outer_ != nullptr) numbering = numbering->outer_;
  return absl::StrCat(prefix, numbering->names_[prefix]++, suffix_);
}

Value ExprEmitter::Define(const std::string& prefix, const char* type, bool per_lane,
                          const std::string& expr) {
  Value v{Fresh(prefix), per_lane};
  if (!per_lane) {
    w_->Line("const ", type, " ", v.name, " = ", expr, ";");
    return v;
  }
  w_->Line(type, " ", v.name, "[", lanes_, "];");
  w_->Line("#pragma unroll");
  w_->Line("for (int k = 0; k < ", lanes_, "; ++k) ", v.name, "[k] = ", expr, ";");
  return v;
}

void ExprEmitter::Bind(const Node* node, const IndexExpr& idx, Value value) {
  memo_[{node, idx.Key()}] = std::move(value);
}

void ExprEmitter::ReadFrom(const Node* node, const IndexExpr& idx, std::string pointer,
                           IndexExpr at) {
  copies_[{node, idx.Key()}] = {std::move(pointer), std::move(at)};
}

Value ExprEmitter::Get(const Node* node, const IndexExpr& idx) {
  const auto key = std::make_pair(node, idx.Key());
  if (auto it = memo_.find(key); it != memo_.end()) return it->second;
  if (auto it = copies_.find(key); it != copies_.end()) {
    return memo_[key] = Load(node, it->second.first, it->second.second);
  }
  if (outer_ != nullptr && !idx.PerLane()) return outer_->Get(node, idx);
  const std::string pointer = PointerName(kernel_, node);
  Value v = pointer.empty() ? Compute(node, idx) : Load(node, pointer, idx);
  memo_[key] = v;
  return v;
}

Value ExprEmitter::Load(const Node* node, const std::string& pointer, const IndexExpr& idx) {
  const DType dtype = node->dtype();
  const char* type = CudaComputeType(dtype);
  const int width = idx.vector_width;
  const std::string guard = idx.Guard();
  if (width > 1 && idx.PerLane() && lanes_ % width == 0 && pair_halves_ && IsHalfFloat(dtype)) {
    // 16-bit elements stay in the words they arrive in.
    Value v{Fresh(absl::StrCat(pointer, "_")), true, dtype};
    const int words = width / 2;
    w_->Line("unsigned ", v.name, "[", lanes_ / 2, "];");
    w_->Line("#pragma unroll");
    auto loop = w_->Block("for (int k = 0; k < ", lanes_, "; k += ", width, ")");
    const std::string load =
        absl::StrCat("tessel_load_vec<unsigned, ", words, ">((const unsigned*)(", pointer, " + ",
                     LinearOffset(idx, node->shape()), "))");
    if (guard.empty()) {
      w_->Line("const auto vec = ", load, ";");
    } else {
      w_->Line("tessel_vec<unsigned, ", words, "> vec{};");
      w_->Line("if (", guard, ") vec = ", load, ";");
    }
    w_->Line("#pragma unroll");
    w_->Line("for (int j = 0; j < ", words, "; ++j) ", v.name, "[k / 2 + j] = vec.v[j];");
    return v;
  }
  if (width > 1 && idx.PerLane() && lanes_ % width == 0) {
    // Consecutive lanes are consecutive elements: one vector access per `width` lanes.
    Value v{Fresh(absl::StrCat(pointer, "_")), true};
    w_->Line(type, " ", v.name, "[", lanes_, "];");
    w_->Line("#pragma unroll");
    auto loop = w_->Block("for (int k = 0; k < ", lanes_, "; k += ", width, ")");
    // 16-bit elements arrive as 32-bit words and widen from them: a word's high half is one
    // mask (as 16-bit values, two instructions: an extract and a shift).
    const bool words = IsHalfFloat(dtype) && width % 2 == 0;
    const std::string element = words ? "unsigned" : StorageType(dtype);
    const int count = words ? width / 2 : width;
    const std::string offset = LinearOffset(idx, node->shape());
    const std::string load =
        words ? absl::StrCat("tessel_load_vec<unsigned, ", count, ">((const unsigned*)(", pointer,
                             " + ", offset, "))")
              : absl::StrCat("tessel_load_vec<", element, ", ", count, ">(", pointer, " + ", offset,
                             ")");
    // A group of lanes is wholly inside or outside the row: its first lane decides.
    if (guard.empty()) {
      w_->Line("const auto vec = ", load, ";");
    } else {
      w_->Line("tessel_vec<", element, ", ", count, "> vec{};");
      w_->Line("if (", guard, ") vec = ", load, ";");
    }
    w_->Line("#pragma unroll");
    w_->Line("for (int j = 0; j < ", width, "; ++j) ", v.name, "[k + j] = ",
             words ? Value{"vec.v", true, dtype}.At("j") : LoadConvert(dtype, "vec.v[j]"), ";");
    return v;
  }
  std::string load =
      LoadConvert(dtype, absl::StrCat(pointer, "[", LinearOffset(idx, node->shape()), "]"));
  if (!guard.empty()) load = absl::StrCat("(", guard, " ? ", load, " : 0)");
  return Define(absl::StrCat(pointer, "_"), type, idx.PerLane(), load);
}

void ExprEmitter::Store(const std::string& pointer, const Node* node, const IndexExpr& idx,
                        const Value& value) {
  const DType dtype = node->dtype();
  const std::string offset = LinearOffset(idx, node->shape());
  const int width = idx.vector_width;
  // Lanes past the edge hold no value of their own: the lane guard applies whenever values or
  // positions differ between lanes.
  const bool lanes_differ = value.per_lane || idx.PerLane();
  std::vector<std::string> conditions;
  if (!idx.thread_guard.empty()) conditions.push_back(idx.thread_guard);
  if (lanes_differ && !idx.lane_guard.empty()) conditions.push_back(idx.lane_guard);
  const std::string guard =
      conditions.empty() ? "" : absl::StrCat("if (", absl::StrJoin(conditions, " && "), ") ");
  if (!lanes_differ) {
    // One value at one position: every lane would store the same element.
    w_->Line(guard, pointer, "[", offset, "] = ", StoreConvert(dtype, value.At()), ";");
    return;
  }
  w_->Line("#pragma unroll");
  if (width > 1 && lanes_ % width == 0 && idx.PerLane() && value.Paired() && value.pairs == dtype) {
    auto loop = w_->Block("for (int k = 0; k < ", lanes_, "; k += ", width, ")");
    w_->Line("tessel_vec<unsigned, ", width / 2, "> vec;");
    w_->Line("#pragma unroll");
    w_->Line("for (int j = 0; j < ", width / 2, "; ++j) vec.v[j] = ", value.name, "[k / 2 + j];");
    w_->Line(guard, "tessel_store_vec<unsigned, ", width / 2, ">((unsigned*)(", pointer, " + ",
             offset, "), vec);");
    return;
  }
  if (width > 1 && lanes_ % width == 0 && idx.PerLane()) {
    auto loop = w_->Block("for (int k = 0; k < ", lanes_, "; k += ", width, ")");
    w_->Line("tessel_vec<", StorageType(dtype), ", ", width, "> vec;");
    w_->Line("#pragma unroll");
    w_->Line("for (int j = 0; j < ", width,
             "; ++j) vec.v[j] = ", StoreConvert(dtype, value.At("k + j")), ";");
    w_->Line(guard, "tessel_store_vec<", StorageType(dtype), ", ", width, ">(", pointer, " + ",
             offset, ", vec);");
    return;
  }
  w_->Line("for (int k = 0; k < ", lanes_, "; ++k) ", guard, pointer, "[", offset,
           "] = ", StoreConvert(dtype, value.At()), ";");
}

Value ExprEmitter::Convert(const Value& v, DType from, DType to) {
  // Same register type and no precision lost: the value is already what `to` holds.
  const bool same_type = std::string(CudaComputeType(from)) == CudaComputeType(to);
  if (same_type && (from == to || to == DType::kF32)) return v;
  if (pair_halves_ && IsHalfFloat(to) && IsFloating(from) && v.per_lane && v.pairs != to) {
    return DefinePairs("cvt", to,
                       absl::StrCat(to == DType::kBF16 ? "tessel_pack_bf16(" : "tessel_pack_f16(",
                                    v.At("2 * p"), ", ", v.At("2 * p + 1"), ")"));
  }
  return Define("cvt", CudaComputeType(to), v.per_lane, ConvertExpr(v.At(), from, to));
}

Value ExprEmitter::DefinePairs(const std::string& prefix, DType dtype, const std::string& expr) {
  Value v{Fresh(prefix), true, dtype};
  w_->Line("unsigned ", v.name, "[", lanes_ / 2, "];");
  w_->Line("#pragma unroll");
  w_->Line("for (int p = 0; p < ", lanes_ / 2, "; ++p) ", v.name, "[p] = ", expr, ";");
  return v;
}

std::optional<Value> ExprEmitter::ComputePairs(const Node* node, DType operand,
                                               const std::vector<Value>& args) {
  const DType dtype = node->dtype();
  const char* op = node->op() == OpKind::kAdd   ? "add"
                   : node->op() == OpKind::kSub ? "sub"
                   : node->op() == OpKind::kMul ? "mul"
                                                : nullptr;
  if (!pair_halves_ || op == nullptr || operand != dtype || !IsHalfFloat(dtype))
    return std::nullopt;
  // Paired operands word by word; a value shared by all lanes (a scalar, already of `dtype`)
  // as a pair of itself, so that a scale multiplies two lanes an instruction too.
  std::vector<std::string> words;
  bool paired = false;
  for (const Value& a : args) {
    if (a.Paired() && a.pairs == dtype) {
      words.push_back(absl::StrCat(a.name, "[p]"));
      paired = true;
    } else if (!a.per_lane && !a.Paired()) {
      words.push_back(absl::StrCat(dtype == DType::kBF16 ? "tessel_pack_bf16(" : "tessel_pack_f16(",
                                   a.name, ", ", a.name, ")"));
    } else {
      return std::nullopt;
    }
  }
  if (!paired) return std::nullopt;
  return DefinePairs(std::string(GetOpInfo(node->op()).name), dtype,
                     absl::StrCat("tessel_", op, dtype == DType::kBF16 ? "_bf16x2(" : "_f16x2(",
                                  words[0], ", ", words[1], ")"));
}

Value ExprEmitter::Compute(const Node* node, const IndexExpr& idx) {
  const OpInfo& info = GetOpInfo(node->op());
  const DType dtype = node->dtype();
  const std::string name(info.name);
  switch (node->op()) {
    case OpKind::kFull: {
      const std::string s = ScalarName(kernel_, node);
      return Value{dtype == DType::kBool ? absl::StrCat("(", s, " != 0)") : s, false};
    }
    case OpKind::kArange:
      // Positions are never negative: an i64 position widens from unsigned, with no sign
      // extension (cross-entropy over 32000 bf16 classes, the where/eq form: 3.4% faster on
      // the H100), and compares in 32 bits where NarrowCompare applies.
      // Past 2^31 positions the position converts from 64 bits.
      if (node->shape()[0] > std::numeric_limits<int32_t>::max()) {
        return Define(name, CudaComputeType(dtype), idx.PerLane(),
                      ConvertExpr(absl::StrCat("(long long)", idx.dims[0]), DType::kI64, dtype));
      }
      if (dtype == DType::kI64) {
        return Define(name, CudaComputeType(dtype), idx.PerLane(),
                      absl::StrCat("(long long)(unsigned)", idx.dims[0]));
      }
      return Define(name, CudaComputeType(dtype), idx.PerLane(),
                    ConvertExpr(absl::StrCat("(int)", idx.dims[0]), DType::kI32, dtype));
    case OpKind::kRand:
    case OpKind::kRandn: {
      const bool uniform = node->op() == OpKind::kRand;
      std::string value =
          absl::StrCat(uniform ? "tessel_rand(" : "tessel_randn(", ScalarName(kernel_, node),
                       ", (unsigned long long)", LinearOffset(idx, node->shape()), ")");
      // In 16 bits, truncated to the type as the CPU backend does (ops/philox.h: RandMask).
      if (const uint32_t mask = RandMask(dtype); uniform && mask != ~0u) {
        value = absl::StrFormat("__uint_as_float(__float_as_uint(%s) & 0x%08xu)", value, mask);
      }
      return Define(name, CudaComputeType(dtype), idx.PerLane(), RoundTo(dtype, value));
    }
    case OpKind::kCast: {
      const Node& in = node->input(0);
      return Convert(Get(&in, Broadcast(idx, node->shape(), in.shape())), in.dtype(), dtype);
    }
    case OpKind::kConcat: {
      // Each input at its clamped position, then the one whose range holds the position.
      const int axis = static_cast<int>(node->attrs().ints[0]);
      int64_t start = 0;
      std::vector<std::string> pieces;
      bool per_lane = idx.PerLane();
      std::vector<const Node*> parts;  // inputs with elements along the axis
      for (const NodePtr& in : node->inputs()) {
        if (in->shape()[axis] > 0) parts.push_back(in.get());
      }
      if (parts.size() == 1) {  // the others are empty: the one part at the same position
        const Node& in = *parts[0];
        return Convert(Get(&in, WithGuards(FromDims(in.shape(), idx.dims, idx.lane), idx)),
                       in.dtype(), dtype);
      }
      for (size_t i = 0; i < parts.size(); ++i) {
        const Node& in = *parts[i];
        IndexExpr sub = idx;
        sub.linear.clear();
        sub.vector_width = 1;
        const int64_t size = in.shape()[axis];
        sub.dims[axis] =
            absl::StrCat("min(max(", idx.dims[axis], " - ", start, ", 0), ", size - 1, ")");
        sub = WithGuards(FromDims(in.shape(), sub.dims, sub.lane), idx);
        const Value v = Convert(Get(&in, sub), in.dtype(), dtype);
        per_lane = per_lane || v.per_lane;
        pieces.push_back(i + 1 < parts.size() ? absl::StrCat(idx.dims[axis], " < ", start + size,
                                                             " ? ", v.At(), " : ")
                                              : v.At());
        start += size;
      }
      return Define(name, CudaComputeType(dtype), per_lane, absl::StrJoin(pieces, ""));
    }
    case OpKind::kGather:
      return Gathered(node, idx);
    default:
      break;
  }
  if (info.category == OpCategory::kView) {
    return Get(&node->input(0), ThroughView(*node, idx));
  }
  if (CombinesNothing(*node)) {
    return Value{NothingCombined(node->op(), dtype), false};
  }
  if (IsDegenerateReduction(*node)) {  // the input at the same linear position, converted
    const Node& in = node->input(0);
    return Convert(Get(&in, Reshaped(idx, node->shape(), in.shape())), in.dtype(), dtype);
  }
  TESSEL_CHECK(info.category == OpCategory::kElementwise, "cannot inline ", name);
  const DType a = node->input(0).dtype();
  const DType b = node->inputs().size() > 1 ? node->input(1).dtype() : a;
  const DType operand = ElementwiseOperandDType(node->op(), dtype, a, b);
  std::vector<Value> values;
  std::vector<std::string> args;
  bool per_lane = false;
  for (size_t i = 0; i < node->inputs().size(); ++i) {
    const Node& in = node->input(i);
    const bool condition = node->op() == OpKind::kWhere && i == 0;
    Value v = Get(&in, Broadcast(idx, node->shape(), in.shape()));
    if (!condition) v = Convert(v, in.dtype(), operand);
    per_lane = per_lane || v.per_lane;
    args.push_back(v.At());
    values.push_back(std::move(v));
  }
  if (std::optional<Value> pairs = ComputePairs(node, operand, values)) return *pairs;
  // Dividing many lanes by one value: one reciprocal, then multiplies (within an ulp).
  if (node->op() == OpKind::kDiv && per_lane && !values[1].per_lane && operand != DType::kF64) {
    const Value rcp = Define("rcp", "float", false, absl::StrCat("__frcp_rn(", args[1], ")"));
    return Define(name, "float", true,
                  RoundTo(dtype, absl::StrCat("(", args[0], " * ", rcp.name, ")")));
  }
  const std::string narrow = NarrowCompare(*node, values, args);
  const std::string expr = !narrow.empty() ? narrow
                           : IsNormalizationTerm(*node)
                               ? absl::StrCat("tessel_exp_term(", args[0], ")")
                               : CudaScalarExpr(node->op(), operand, args);
  // Values of the operand dtype are already rounded to it (loads, rounded results, scalar
  // arguments rounded on the host): a selection among them needs no rounding (two
  // instructions per element of a bf16 cross-entropy's where).
  const bool exact = operand == dtype && SelectsAnOperand(node->op());
  return Define(name, CudaComputeType(dtype), per_lane, exact ? expr : RoundTo(dtype, expr));
}

}  // namespace tessel::codegen
