#include "tools/fuzz/program.h"

#include <cmath>
#include <utility>

#include "absl/base/casts.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "core/status_macros.h"
#include "ops/indexing.h"
#include "tools/fuzz/rng.h"

namespace tessel::fuzz {
namespace {

absl::Status LineError(int line, absl::string_view message) {
  return absl::InvalidArgumentError(absl::StrCat("program line ", line, ": ", message));
}

std::vector<std::string> Names(absl::string_view list) {
  std::vector<std::string> names;
  for (absl::string_view name : absl::StrSplit(list, ' ', absl::SkipEmpty())) {
    names.emplace_back(absl::StripPrefix(absl::StripSuffix(name, ","), "%"));
  }
  return names;
}

std::vector<int> Ints(const std::vector<int64_t>& v) {
  return std::vector<int>(v.begin(), v.end());
}

}  // namespace

absl::StatusOr<std::vector<Statement>> ParseProgram(absl::string_view text) {
  std::vector<Statement> program;
  int line_no = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++line_no;
    line = absl::StripAsciiWhitespace(line);
    if (line.empty() || absl::StartsWith(line, "//") || absl::StartsWith(line, "#")) continue;
    Statement s;
    if (absl::ConsumePrefix(&line, "realize ")) {
      s.kind = Statement::kRealize;
      s.names = Names(line);
    } else if (absl::ConsumePrefix(&line, "return ")) {
      s.kind = Statement::kReturn;
      s.names = Names(line);
    } else {
      absl::StatusOr<GraphLine> parsed = ParseGraphLine(line);
      if (!parsed.ok()) return LineError(line_no, parsed.status().message());
      s.line = *std::move(parsed);
    }
    program.push_back(std::move(s));
  }
  if (program.empty() || program.back().kind != Statement::kReturn) {
    return absl::InvalidArgumentError("a program ends with a `return` statement");
  }
  return program;
}

std::string ProgramWriter::Name(const Tensor& t) {
  const Node* root = &t.node();
  for (const Node* n : TopologicalOrder({root}, /*include_realized=*/true)) {
    if (numbers_.contains(n)) continue;
    const int number = static_cast<int>(numbers_.size());
    numbers_[n] = number;
    absl::StrAppend(&text_, PrintGraphLine(*n, number, numbers_), "\n");
    named_.push_back(const_cast<Node*>(n)->shared_from_this());
  }
  return absl::StrCat("%", numbers_.at(root));
}

void ProgramWriter::Realize(const std::vector<Tensor>& values) {
  std::vector<std::string> names;
  for (const Tensor& t : values) names.push_back(Name(t));
  absl::StrAppend(&text_, "realize ", absl::StrJoin(names, ", "), "\n");
}

void ProgramWriter::Return(const std::vector<Tensor>& outputs) {
  std::vector<std::string> names;
  for (const Tensor& t : outputs) names.push_back(Name(t));
  absl::StrAppend(&text_, "return ", absl::StrJoin(names, ", "), "\n");
}

Tensor InputValues(DType dtype, const Shape& shape, uint64_t data_seed, int index, Device device) {
  Rng rng(SubSeed(data_seed, static_cast<uint64_t>(index)));
  std::vector<float> data(shape.numel());
  for (float& v : data) {
    if (IsFloating(dtype)) {
      // Box-Muller: a standard normal value.
      const double u = 1.0 - rng.Unit(), w = rng.Unit();
      v = static_cast<float>(std::sqrt(-2.0 * std::log(u)) * std::cos(2 * M_PI * w));
    } else if (IsInteger(dtype)) {
      v = static_cast<float>(rng.Between(-9, 9));
    } else {
      v = rng.Chance(0.5) ? 1.0f : 0.0f;
    }
  }
  return from_vector(data, shape, dtype, device);
}

Tensor ApplyLine(const GraphLine& l, const std::vector<Tensor>& in, Device device) {
  const std::vector<int64_t>& ints = l.attrs.ints;
  auto int_at = [&](size_t i) -> int64_t {
    if (i >= ints.size()) ThrowOpError(OpName(l.op), "attribute ", i, " is missing");
    return ints[i];
  };
  switch (l.op) {
    case OpKind::kInput:
      ThrowOpError("input", "inputs are filled by the replay");
    case OpKind::kFull:
      return full(l.shape, l.attrs.value, l.dtype, device);
    case OpKind::kArange:
      if (l.shape.rank() != 1) ThrowOpError("arange", "needs rank 1, got ", l.shape.ToString());
      return arange(l.shape[0], l.dtype, device);
    case OpKind::kRand:
      return rand(l.shape, absl::bit_cast<uint64_t>(int_at(0)), l.dtype, device);
    case OpKind::kRandn:
      return randn(l.shape, absl::bit_cast<uint64_t>(int_at(0)), l.dtype, device);
    case OpKind::kNeg:
      return neg(in[0]);
    case OpKind::kAbs:
      return abs(in[0]);
    case OpKind::kExp:
      return exp(in[0]);
    case OpKind::kLog:
      return log(in[0]);
    case OpKind::kSqrt:
      return sqrt(in[0]);
    case OpKind::kRsqrt:
      return rsqrt(in[0]);
    case OpKind::kSin:
      return sin(in[0]);
    case OpKind::kCos:
      return cos(in[0]);
    case OpKind::kTanh:
      return tanh(in[0]);
    case OpKind::kErf:
      return erf(in[0]);
    case OpKind::kSigmoid:
      return sigmoid(in[0]);
    case OpKind::kRelu:
      return relu(in[0]);
    case OpKind::kFloor:
      return floor(in[0]);
    case OpKind::kCeil:
      return ceil(in[0]);
    case OpKind::kRound:
      return round(in[0]);
    case OpKind::kTrunc:
      return trunc(in[0]);
    case OpKind::kSign:
      return sign(in[0]);
    case OpKind::kLog1p:
      return log1p(in[0]);
    case OpKind::kExpm1:
      return expm1(in[0]);
    case OpKind::kIsNan:
      return isnan(in[0]);
    case OpKind::kIsInf:
      return isinf(in[0]);
    case OpKind::kIsFinite:
      return isfinite(in[0]);
    case OpKind::kLogicalNot:
      return logical_not(in[0]);
    case OpKind::kCast:
      return cast(in[0], l.dtype);
    case OpKind::kAdd:
      return add(in[0], in[1]);
    case OpKind::kSub:
      return sub(in[0], in[1]);
    case OpKind::kMul:
      return mul(in[0], in[1]);
    case OpKind::kDiv:
      return div(in[0], in[1]);
    case OpKind::kPow:
      return pow(in[0], in[1]);
    case OpKind::kMaximum:
      return maximum(in[0], in[1]);
    case OpKind::kMinimum:
      return minimum(in[0], in[1]);
    case OpKind::kRemainder:
      return remainder(in[0], in[1]);
    case OpKind::kFmod:
      return fmod(in[0], in[1]);
    case OpKind::kAtan2:
      return atan2(in[0], in[1]);
    case OpKind::kLogicalAnd:
      return logical_and(in[0], in[1]);
    case OpKind::kLogicalOr:
      return logical_or(in[0], in[1]);
    case OpKind::kLogicalXor:
      return logical_xor(in[0], in[1]);
    case OpKind::kEq:
      return eq(in[0], in[1]);
    case OpKind::kNe:
      return ne(in[0], in[1]);
    case OpKind::kLt:
      return lt(in[0], in[1]);
    case OpKind::kLe:
      return le(in[0], in[1]);
    case OpKind::kGt:
      return gt(in[0], in[1]);
    case OpKind::kGe:
      return ge(in[0], in[1]);
    case OpKind::kWhere:
      return where(in[0], in[1], in[2]);
    case OpKind::kSum:
    case OpKind::kMean:
    case OpKind::kMax:
    case OpKind::kMin:
    case OpKind::kProd: {
      // Reducing nothing (axes=[]) happens only to rank-0 values, where "all axes" agrees.
      const bool keepdim = !ints.empty() && l.shape.rank() == in[0].rank();
      auto reduce = l.op == OpKind::kSum    ? &sum
                    : l.op == OpKind::kMean ? &mean
                    : l.op == OpKind::kMax  ? &max
                    : l.op == OpKind::kProd ? &prod
                                            : &min;
      return reduce(in[0], Ints(ints), keepdim);
    }
    case OpKind::kCumsum:
      return cumsum(in[0], static_cast<int>(int_at(0)));
    case OpKind::kCumprod:
      return cumprod(in[0], static_cast<int>(int_at(0)));
    case OpKind::kArgsort: {
      const int axis = static_cast<int>(int_at(0));
      return topk(in[0], int_at(2), axis, /*largest=*/int_at(1) != 0).second;
    }
    case OpKind::kGather:
      return ops_internal::Gather(static_cast<ops_internal::IndexCaller>(int_at(1)), in[0],
                                  static_cast<int>(int_at(0)), in[1]);
    case OpKind::kScatterAdd:
      return scatter_add(in[0], static_cast<int>(int_at(0)), in[1], in[2]);
    case OpKind::kReshape:
      return reshape(in[0], l.shape);
    case OpKind::kPermute:
      return permute(in[0], Ints(ints));
    case OpKind::kBroadcast:
      return broadcast_to(in[0], l.shape);
    case OpKind::kSlice:
      return slice(in[0], static_cast<int>(int_at(0)), int_at(1), int_at(2),
                   ints.size() > 3 ? int_at(3) : 1);
    case OpKind::kFlip:
      return flip(in[0], Ints(ints));
    case OpKind::kConcat:
      return concat(in, static_cast<int>(int_at(0)));
    case OpKind::kMatmul: {
      const MatmulPrecision before = matmul_precision();
      const int64_t tf32 = ints.empty() ? 0 : ints[0];
      set_matmul_precision(tf32 == 1   ? MatmulPrecision::kTF32
                           : tf32 == 3 ? MatmulPrecision::kHigh
                                       : MatmulPrecision::kHighest);
      Tensor out;
      try {
        out = matmul(in[0], in[1]);
      } catch (...) {
        set_matmul_precision(before);
        throw;
      }
      set_matmul_precision(before);
      return out;
    }
  }
  ThrowOpError(OpName(l.op), "the fuzzer does not know this operation");
}

absl::Status RealizeValues(const std::vector<Tensor>& values) {
  try {
    realize(values);
  } catch (const InternalError& e) {
    return absl::InternalError(e.what());
  } catch (const Error& e) {
    return absl::AbortedError(e.what());
  }
  return absl::OkStatus();
}

absl::StatusOr<Replayed> Replay(const std::vector<Statement>& program, Device device,
                                uint64_t data_seed, const RealizeHook& at_realize) {
  Replayed r;
  int inputs = 0;
  auto lookup = [&](const std::string& name) -> absl::StatusOr<Tensor> {
    auto it = r.values.find(name);
    if (it == r.values.end()) return absl::InvalidArgumentError(absl::StrCat("unknown %", name));
    return it->second;
  };
  for (const Statement& s : program) {
    std::vector<Tensor> tensors;
    for (const std::string& name : s.kind == Statement::kValue ? s.line.operands : s.names) {
      TESSEL_ASSIGN_OR_RETURN(Tensor t, lookup(name));
      tensors.push_back(std::move(t));
    }
    try {
      switch (s.kind) {
        case Statement::kValue:
          r.values[s.line.name] =
              s.line.op == OpKind::kInput
                  ? InputValues(s.line.dtype, s.line.shape, data_seed, inputs++, device)
                  : ApplyLine(s.line, tensors, device);
          break;
        case Statement::kRealize:
          if (at_realize) TESSEL_RETURN_IF_ERROR(at_realize(tensors));
          break;
        case Statement::kReturn:
          r.outputs = std::move(tensors);
          break;
      }
    } catch (const InternalError& e) {
      return absl::InternalError(e.what());
    } catch (const Error& e) {  // refused while recording: not a program a user could write
      return absl::InvalidArgumentError(absl::StrCat("%", s.line.name, ": ", e.what()));
    }
  }
  return r;
}

absl::StatusOr<std::string> Normalize(const std::vector<Statement>& program) {
  TESSEL_ASSIGN_OR_RETURN(Replayed r, Replay(program, Device::kCPU, 0, nullptr));
  ProgramWriter writer;
  for (const Statement& s : program) {
    if (s.kind == Statement::kValue) continue;
    std::vector<Tensor> tensors;
    for (const std::string& name : s.names) tensors.push_back(r.values.at(name));
    s.kind == Statement::kRealize ? writer.Realize(tensors) : writer.Return(tensors);
  }
  return writer.text();
}

}  // namespace tessel::fuzz
