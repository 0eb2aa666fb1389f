// Staged GEMM operands: copies of an operand that the tensor-core mainloops can read where
// the buffer as stored cannot be: rows that are not 16-byte multiples (TMA's stride rule,
// the portable kernel's 16-byte copies) are padded; wgmma reads 32-bit (TF32) operands from
// shared memory only K-major, so MN-major ones are transposed (but B where the kernel reads it
// into registers); three TF32 products (kHigh) need each operand as
// its TF32 part and remainder, so both are split. The staging entries run before the GEMM in
// the same kernel source and write the workspace.
#ifndef TESSEL_CODEGEN_GEMM_STAGING_H_
#define TESSEL_CODEGEN_GEMM_STAGING_H_

#include <string>

#include "codegen/code_writer.h"
#include "codegen/gemm_common.h"
#include "codegen/kernel_source.h"

namespace tessel::codegen {

// What the mainloop needs of its operands beyond what they are as stored.
enum class StagingNeed {
  kRows,       // rows that are 16-byte multiples
  kKMajor,     // ... and K-major (wgmma on TF32); the copies keep the bits, which the tensor
               // cores read as TF32 (truncated, as the CPU backend and mma.sync kernels do)
  kKMajorA,    // ... A K-major, B as stored (TF32 with B read into registers, MN-major)
  kTf32Split,  // ... and as TF32 parts and remainders (three products, kHigh): every operand
};

// Decides which operands are staged and where their copies lie in the workspace.
void PlanOperandStaging(GemmProblem& p, StagingNeed need);

// What Hopper's wgmma kernel needs: f32 operands (TF32) K-major, split for kHigh.
StagingNeed WgmmaStagingNeed(const GemmProblem& p);

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
