#include "core/op_kind.h"

#include <iterator>

namespace tessel {
namespace {

constexpr OpInfo kOpInfos[] = {
#define TESSEL_OP(kind, text, arity, category, cost, attrs) \
  {text, arity, OpCategory::category, cost, attrs},
#include "core/op_table.def"
#undef TESSEL_OP
};

}  // namespace

const OpInfo& GetOpInfo(OpKind op) { return kOpInfos[static_cast<int>(op)]; }

bool ParseOpKind(absl::string_view name, OpKind* op) {
  for (int i = 0; i < static_cast<int>(std::size(kOpInfos)); ++i) {
    if (kOpInfos[i].name == name) {
      *op = static_cast<OpKind>(i);
      return true;
    }
  }
  return false;
}

}  // namespace tessel
