// How a dtype's values are written in generated code: their storage types, the conversions
// between storage and compute types, and between dtypes (rounded to the target's precision,
// as the CPU backend rounds each node).
#ifndef TESSEL_CODEGEN_DTYPE_EXPRS_H_
#define TESSEL_CODEGEN_DTYPE_EXPRS_H_

#include <string>

#include "core/dtype.h"

namespace tessel::codegen {

// Storage and compute types of a dtype in generated code.
const char* StorageType(DType dtype);
// `expr` (storage value) as the compute type, and back.
std::string LoadConvert(DType dtype, const std::string& expr);
std::string StoreConvert(DType dtype, const std::string& expr);
// A float expression rounded to a half dtype's precision (unchanged for other dtypes).
std::string RoundTo(DType dtype, const std::string& expr);
// Compute-type expression `e` of dtype `from` as dtype `to`: floats to integers saturate (NaN
// to 0), anything to bool tests for nonzero.
std::string ConvertExpr(const std::string& e, DType from, DType to);

}  // namespace tessel::codegen

#endif  // TESSEL_CODEGEN_DTYPE_EXPRS_H_
