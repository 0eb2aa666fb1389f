// Gathers and scatters check only the indices not known to be in range (codegen's
// IndicesInRange, [ Note -- value ranges ]): a kernel without checks has no records for
// realize to read back, so realize need not wait for it. Plan keys hold the answer.
#include <cstdint>
#include <vector>

#include "backend/program_key.h"
#include "codegen/generate.h"
#include "gtest/gtest.h"
#include "tessel.h"

namespace tessel {
namespace {

constexpr Device kCpu = Device::kCPU;

// The index checks of the kernels generated for `t` on an H100.
int Checks(const Tensor& t) {
  int checks = 0;
  for (const codegen::KernelSource& k :
       codegen::PlanAndGenerate({&t.node()}, Target{9, 0, true}).kernels) {
    checks += static_cast<int>(k.index_checks.size());
  }
  return checks;
}

Tensor Placeholder(Shape shape, DType dtype) {
  return Tensor(MakeInputNode(dtype, kCpu, shape, nullptr));
}

Tensor Ids(std::vector<int64_t> v, Shape shape) { return from_vector(v, shape, DType::kI64, kCpu); }

TEST(IndexChecksTest, OnlyIndicesNotKnownInRangeAreChecked) {
  const Tensor x = Placeholder({4, 1000}, DType::kF32);
  const Tensor unknown = Placeholder({4, 1}, DType::kI64);  // values never seen
  EXPECT_EQ(Checks(gather(x, 1, Ids({0, 999, 5, 7}, {4, 1}))), 0);
  EXPECT_EQ(Checks(gather(x, 1, Ids({0, 1000, 5, 7}, {4, 1}))), 1);
  EXPECT_EQ(Checks(gather(x, 1, Ids({0, -1, 5, 7}, {4, 1}))), 1);
  EXPECT_EQ(Checks(gather(x, 1, unknown)), 1);
  EXPECT_EQ(Checks(gather(x, 1, remainder(unknown, 1000.0))), 0);
  EXPECT_EQ(Checks(gather(x, 1, remainder(unknown, 1001.0))), 1);
  EXPECT_EQ(Checks(gather(x, 1, cumsum(Ids({0, 1, 2, 3}, {4, 1}), 0))), 1);
  EXPECT_EQ(Checks(gather(x, 1, cast(cast(Ids({0, 1, 2, 3}, {4, 1}), DType::kF32), DType::kI64))),
            1);
  EXPECT_EQ(Checks(index_select(x, 0, Ids({3, 0, 2}, {3}))), 0);
  EXPECT_EQ(Checks(index_select(x, 0, Ids({3, 4}, {2}))), 1);
  EXPECT_EQ(Checks(embedding(x, Ids({3, 0, 1, 2, 3, 3}, {2, 3})) * 2.0), 0);
  // topk's values: positions along an axis no longer than the gathered one; argmax's.
  EXPECT_EQ(Checks(topk(x, 5).first), 0);
  EXPECT_EQ(Checks(embedding(Placeholder({1000, 8}, DType::kF32), argmax(x, 1))), 0);
  EXPECT_EQ(Checks(embedding(Placeholder({999, 8}, DType::kF32), argmax(x, 1))), 1);
  // Two gathers in one kernel, one checked.
  EXPECT_EQ(Checks(gather(x, 1, Ids({1, 2, 3, 4}, {4, 1})) + gather(x, 1, unknown)), 1);
}

TEST(IndexChecksTest, ScattersToo) {
  const Tensor x = Placeholder({3, 8}, DType::kF32), src = Placeholder({3, 2}, DType::kF32);
  EXPECT_EQ(Checks(scatter_add(x, 1, Ids({0, 7, 1, 1, 6, 2}, {3, 2}), src)), 0);
  EXPECT_EQ(Checks(scatter_add(x, 1, Ids({0, 8, 1, 1, 6, 2}, {3, 2}), src)), 1);
  EXPECT_EQ(Checks(scatter_add(x, 1, Placeholder({3, 2}, DType::kI64), src)), 1);
}

// Programs alike but for whether an index is known in range plan apart: a plan without
// checks must never serve indices that may be bad.
TEST(IndexChecksTest, PlanKeysTellCheckedFromUnchecked) {
  const Tensor x = Placeholder({4, 1000}, DType::kF32);
  auto key = [](const Tensor& t) {
    Program program;  // the placeholder, then the gather (the ids are realized)
    program.nodes = {&t.node().input(0), &t.node()};
    program.outputs = {&t.node()};
    return backend::StructureKey(backend::OrderProgram(program), program.outputs, true);
  };
  const Tensor good = gather(x, 1, Ids({0, 1, 2, 3}, {4, 1}));
  const Tensor also_good = gather(x, 1, Ids({3, 2, 1, 0}, {4, 1}));
  const Tensor bad = gather(x, 1, Ids({0, 1, 2, 1000}, {4, 1}));
  EXPECT_EQ(key(good), key(also_good));
  EXPECT_NE(key(good), key(bad));
}

}  // namespace
}  // namespace tessel
