// Printing a tensor's values, PyTorch-style (api.md, "Printing and files"):
//
//   tensor([[ 0.5000, -1.2500],
//           [ 2.0000,  3.0000]], dtype=bf16, device=cuda:0)
//
// One notation for all elements so that columns align: whole numbers as "3.", values that
// span more than three decades or leave [1e-4, 1e8) in scientific notation, the rest with
// four decimals. Past `max_elements`, every axis longer than 6 shows its first and last 3
// entries around "...". Printing realizes the tensor if needed.
#ifndef TESSEL_CORE_TENSOR_FORMAT_H_
#define TESSEL_CORE_TENSOR_FORMAT_H_

#include <string>

#include "core/tensor.h"

namespace tessel {

std::string to_string(const Tensor& t, int max_elements = 1000);

}  // namespace tessel

#endif  // TESSEL_CORE_TENSOR_FORMAT_H_
