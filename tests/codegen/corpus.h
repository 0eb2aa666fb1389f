// A corpus of graphs covering every operation and fusion pattern, for the code generator's
// tests (NVRTC compiles, determinism, goldens).
#ifndef TESSEL_TESTS_CODEGEN_CORPUS_H_
#define TESSEL_TESTS_CODEGEN_CORPUS_H_

#include <string>
#include <vector>

#include "tessel.h"

namespace tessel::testing {

struct CorpusCase {
  std::string name;
  std::vector<Tensor> outputs;
};

// Built on the CPU from placeholder data: only structure matters to code generation.
std::vector<CorpusCase> Corpus();

}  // namespace tessel::testing

#endif  // TESSEL_TESTS_CODEGEN_CORPUS_H_
