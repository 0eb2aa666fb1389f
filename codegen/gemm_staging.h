// Staged GEMM operands: copies of an operand that the tensor-core mainloops can read where
// the buffer as stored cannot be: rows that are not 16-byte multiples (TMA's stride rule,
// the portable kernel's 16-byte copies) are padded; for wgmma on TF32, which reads 32-bit
// operands only K-major and as stored, operands are rounded to TF32 (as the CPU backend
// rounds them) and MN-major ones transposed. The staging entries run before the GEMM in the
// same kernel source and write the workspace.
#ifndef TESSEL_CODEGEN_GEMM_STAGING_H_
#define TESSEL_CODEGEN_GEMM_STAGING_H_

#include <string>

#include "codegen/code_writer.h"
#include "codegen/gemm_common.h"
#include "codegen/kernel_source.h"

namespace tessel::codegen {

// Decides which operands are staged and where their copies lie in the workspace.
// `tf32_wgmma`: every operand is staged, rounded to TF32 and K-major.
void PlanOperandStaging(GemmProblem& p, bool tf32_wgmma);

// Whether the mainloop reads operand A (`is_a`) or B MN-major: as stored, unless staged
// transposed.
bool ReadsMnMajor(const GemmOperand& o, bool is_a);

// Sets the workspace and emits the staging entries (launched before the GEMM): `<name>_stage`
// copies rows, `<name>_transpose` transposes 32 x 32 tiles through shared memory.
void EmitOperandStaging(CodeWriter& w, const GemmProblem& p, KernelSource* ks);

// The operand as the mainloop reads it: the buffer's parameter, or the workspace offset to
// the staged copy, as a pointer expression of element type `type`.
std::string OperandPointer(const KernelSource& ks, const GemmOperand& o, const std::string& type);

}  // namespace tessel::codegen

#endif  // TESSEL_CODEGEN_GEMM_STAGING_H_
