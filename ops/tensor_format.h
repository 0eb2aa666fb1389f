// Printing a tensor's values, PyTorch-style (api.md, "Printing and files"):
//
//   tensor([[ 0.5000, -1.2500],
//           [ 2.0000,  3.0000]], dtype=bf16, device=cuda:0)
//
// One notation for all elements so that columns align: whole numbers as "3.", values that
// span more than three decades or leave [1e-4, 1e8) in scientific notation, the rest with
// four decimals. Past `max_elements`, every axis longer than 6 shows its first and last 3
// entries around "...". Printing realizes the tensor if needed; a summarized tensor not yet
// realized, only the entries it shows (its edges, sliced), so that printing a huge lazy
// expression neither computes nor holds all of it.
#ifndef TESSEL_OPS_TENSOR_FORMAT_H_
#define TESSEL_OPS_TENSOR_FORMAT_H_

#include <ostream>
#include <string>

#include "core/tensor.h"

namespace tessel {

std::string to_string(const Tensor& t, int max_elements = 1000);
// The values, as to_string writes them.
std::ostream& operator<<(std::ostream& os, const Tensor& t);

}  // namespace tessel

#endif  // TESSEL_OPS_TENSOR_FORMAT_H_
