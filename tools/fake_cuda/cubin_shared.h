// The static shared memory of each kernel in a cubin, as the real driver reports it
// (CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES), read from the cubin's ELF sections.
#ifndef TESSEL_TOOLS_FAKE_CUDA_CUBIN_SHARED_H_
#define TESSEL_TOOLS_FAKE_CUDA_CUBIN_SHARED_H_

#include <map>
#include <string>

namespace fake_cuda {

// Kernel name -> static shared bytes a block; kernels with none are absent. Empty where
// `image` is not an ELF cubin (PTX text, say).
std::map<std::string, int> StaticSharedBytes(const void* image);

}  // namespace fake_cuda

#endif  // TESSEL_TOOLS_FAKE_CUDA_CUBIN_SHARED_H_
