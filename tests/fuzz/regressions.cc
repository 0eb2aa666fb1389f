#include "tests/fuzz/regressions.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace tessel::fuzz {

std::vector<RegressionProgram> RegressionPrograms() {
  const char* env = std::getenv("TESSEL_FUZZ_REGRESSIONS");
  const std::filesystem::path dir = env != nullptr ? env : "tests/fuzz/regressions";
  std::vector<RegressionProgram> programs;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(dir, error)) {
    if (entry.path().extension() != ".txt") continue;
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    programs.push_back({entry.path().filename().string(), text.str()});
  }
  std::sort(programs.begin(), programs.end(),
            [](const RegressionProgram& a, const RegressionProgram& b) { return a.name < b.name; });
  return programs;
}

}  // namespace tessel::fuzz
