// The random program generator's state and steps (GenerateProgram, generator.h): shared by
// generator.cc (values and the elementwise, reduction, view, index, scan, sort and scatter
// steps) and generator_models.cc (the model-shaped steps: matmuls, attention, projections,
// cross-entropy's one-hot pick and a linear layer's gradients).
#ifndef TESSEL_TOOLS_FUZZ_GENERATOR_INTERNAL_H_
#define TESSEL_TOOLS_FUZZ_GENERATOR_INTERNAL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "tessel.h"
#include "tools/fuzz/generator.h"
#include "tools/fuzz/program.h"
#include "tools/fuzz/rng.h"

namespace tessel::fuzz::internal {

class Generator {
 public:
  Generator(uint64_t seed, const GeneratorOptions& options) : rng_(seed), o_(options) {}

  std::string Run();

 private:
  // ---- values (generator.cc) ----
  DType RandomDType();
  DType RandomFloat();
  int64_t RandomExtent();
  static double Footprint(const Shape& s);
  Shape Fit(Shape s);
  Shape RandomShape();
  Tensor NewInput(DType dtype, const Shape& shape);
  void Add(const Tensor& t);
  Tensor Pick();
  Tensor Use(const Tensor& t);
  Tensor PickFloating();
  Tensor PickNonBool();
  Shape BroadcastPartner(const Shape& s);
  Tensor Partner(const Tensor& x);
  double RandomScalar();
  std::vector<int> RandomAxes(int rank, bool allow_empty);
  int RandomAxis(int rank);
  std::vector<Tensor> Outputs();

  // ---- steps (generator.cc) ----
  void Step();
  void Unary();
  void Binary();
  void WithScalar();
  void Compare();
  void Cast();
  void Reduce();
  void Normalize();
  Shape Refactor(const Shape& s);
  void View();
  void Concat();
  void Create();
  void RealizeMid() { writer_.Realize({Pick()}); }
  void Scan();
  void Sort();
  void Scatter();
  void Index();
  Tensor InRangeIndices(DType dtype, const Shape& shape, int64_t bound);

  // ---- model-shaped steps (generator_models.cc) ----
  Tensor Heads(DType t, const Shape& shape, int layout, Tensor* packed, int part);
  void Attention();
  void Matmul();
  void Projections();
  Tensor Operand(DType dtype, Shape::Dims batch, int64_t rows, int64_t cols, bool transposed);
  void OneHotPick();
  void WeightGradient();
  void ManyLongRows();

  Rng rng_;
  GeneratorOptions o_;
  std::vector<Tensor> pool_;
  std::vector<Tensor> inputs_;
  absl::flat_hash_set<const Node*> consumed_;
  ProgramWriter writer_;
};

}  // namespace tessel::fuzz::internal

#endif  // TESSEL_TOOLS_FUZZ_GENERATOR_INTERNAL_H_
