// Creating tensors (api.md): data from the host, constants, ranges, random numbers.
// Tensor -> Graph: `from_vector` makes a leaf holding the data; the others record lazy
// source nodes, so `full` and `randn` cost nothing until used and fuse into consumers.
#ifndef TESSEL_OPS_CREATION_H_
#define TESSEL_OPS_CREATION_H_

#include <cstdint>
#include <initializer_list>
#include <vector>

#include "core/backend.h"
#include "core/tensor.h"

namespace tessel {

Tensor from_vector(const std::vector<float>& data, Shape shape, DType dtype = DType::kF32,
                   Device device = default_device());
// Brace lists are float data: from_vector({1, 2, 3}, {3}) is f32.
Tensor from_vector(std::initializer_list<float> data, Shape shape, DType dtype = DType::kF32,
                   Device device = default_device());
Tensor from_vector(const std::vector<int32_t>& data, Shape shape, DType dtype = DType::kI32,
                   Device device = default_device());
Tensor from_vector(const std::vector<bool>& data, Shape shape, DType dtype = DType::kBool,
                   Device device = default_device());
Tensor from_vector(const std::vector<int64_t>& data, Shape shape, DType dtype = DType::kI64,
                   Device device = default_device());
Tensor from_vector(const std::vector<double>& data, Shape shape, DType dtype = DType::kF64,
                   Device device = default_device());

Tensor full(Shape shape, double value, DType dtype = DType::kF32, Device device = default_device());
Tensor zeros(Shape shape, DType dtype = DType::kF32, Device device = default_device());
Tensor ones(Shape shape, DType dtype = DType::kF32, Device device = default_device());

// 0, 1, ..., n-1.
Tensor arange(int64_t n, DType dtype = DType::kF32, Device device = default_device());

// Standard normal and uniform [0, 1) values from a counter-based generator (ops/philox.h):
// the same seed gives the same values on every device, up to float rounding.
Tensor randn(Shape shape, uint64_t seed, DType dtype = DType::kF32,
             Device device = default_device());
Tensor rand(Shape shape, uint64_t seed, DType dtype = DType::kF32,
            Device device = default_device());

}  // namespace tessel

#endif  // TESSEL_OPS_CREATION_H_
