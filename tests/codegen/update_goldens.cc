// Rewrites tests/codegen/golden/ from the current generator (run from the workspace root
// through `bazel run`, which sets BUILD_WORKSPACE_DIRECTORY).
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "absl/strings/match.h"
#include "codegen/generate.h"
#include "codegen/prelude.h"
#include "tests/codegen/corpus.h"

int main() {
  const char* root = std::getenv("BUILD_WORKSPACE_DIRECTORY");
  const std::string dir = std::string(root ? root : ".") + "/tests/codegen/golden/";
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() == ".cu") std::filesystem::remove(entry.path());  // stale names
  }
  for (const tessel::testing::CorpusCase& c : tessel::testing::Corpus()) {
    if (c.name != "chain" && c.name != "normalizations" && c.name != "api_example" &&
        c.name != "sibling_gemms" && c.name != "dual_gemms" && c.name != "grouped_gemms" &&
        !absl::StartsWith(c.name, "swapped_")) {
      continue;
    }
    for (const tessel::KernelInfo& k : tessel::inspect(c.outputs)) {
      // Without the shared prelude: the golden pins the kernel's own text.
      std::ofstream(dir + k.name + ".cu") << k.source.substr(tessel::codegen::Prelude().size());
      std::cout << "wrote " << dir << k.name << ".cu\n";
    }
  }
}
