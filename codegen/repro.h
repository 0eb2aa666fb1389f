// Repro export: any generated kernel as one self-contained .cu with a host harness that
// builds with plain nvcc, fills the inputs with random values, runs the kernel, times it and
// prints a checksum of each output:   nvcc -O3 --fmad=false -gencode arch=compute_90a,code=sm_90a
// K.cu -o K -lcuda && ./K (the device library is pasted in; -lcuda encodes the TMA descriptors of
// Hopper GEMMs).
#ifndef TESSEL_CODEGEN_REPRO_H_
#define TESSEL_CODEGEN_REPRO_H_

#include <string>

#include "codegen/kernel_source.h"

namespace tessel::codegen {

std::string ReproSource(const KernelSource& ks);

}  // namespace tessel::codegen

#endif  // TESSEL_CODEGEN_REPRO_H_
