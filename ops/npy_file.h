// Tensors in NumPy's .npy format (api.md, "Printing and files"), readable by numpy.load:
// f32 as <f4, f16 as <f2, f64 as <f8, i32 as <i4, i64 as <i8, bool as |b1, and bf16, which
// NumPy lacks, as <f4 holding exactly the same values (it loads back as f32).
//
// load reads versions 1.0 to 3.0, either byte order and Fortran order (as a permuted view).
// A file that is malformed, truncated or holds a dtype tessel lacks (u1, c8, ...) is a
// tessel::Error naming the path and what is wrong.
#ifndef TESSEL_OPS_NPY_FILE_H_
#define TESSEL_OPS_NPY_FILE_H_

#include <string>

#include "core/backend.h"
#include "core/tensor.h"

namespace tessel {

void save(const std::string& path, const Tensor& t);
Tensor load(const std::string& path, Device device = default_device());

}  // namespace tessel

#endif  // TESSEL_OPS_NPY_FILE_H_
