// Prints the plan and the generated CUDA for tessel's bundled example graphs, and exports
// self-contained repros. Needs no GPU.
//
//   bazel run //tools:inspect                          # list the examples
//   bazel run //tools:inspect -- softmax               # plan (explain) of one example
//   bazel run //tools:inspect -- softmax --source      # ... and every kernel's CUDA
//   bazel run //tools:inspect -- softmax --repro=/tmp/r  # write <kernel>.cu repros there
#include <iostream>
#include <string>

#include "backend/dump.h"
#include "codegen/generate.h"
#include "codegen/repro.h"
#include "runtime/nvrtc_compiler.h"
#include "tessel.h"
#include "tools/examples.h"

int main(int argc, char** argv) {
  using namespace tessel;
  std::string name, repro_dir;
  bool source = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--source") {
      source = true;
    } else if (arg.rfind("--repro=", 0) == 0) {
      repro_dir = arg.substr(8);
    } else {
      name = arg;
    }
  }
  try {
    const std::vector<tools::Example> examples = tools::Examples(Device::kCPU);
    for (const tools::Example& e : examples) {
      if (name.empty()) {
        std::cout << e.name << ": " << e.description << "\n";
        continue;
      }
      if (e.name != name) continue;
      std::cout << "# " << e.description << "\n\n" << explain(e.outputs);
      std::vector<const Node*> roots;
      for (const Tensor& t : e.outputs) roots.push_back(&t.node());
      const codegen::GeneratedPlan plan = codegen::PlanAndGenerate(roots, runtime::DeviceTarget());
      for (const codegen::KernelSource& ks : plan.kernels) {
        if (source) std::cout << "\n// ===== " << ks.name << " =====\n" << ks.source;
        if (!repro_dir.empty()) {
          std::cout << "wrote "
                    << backend::WriteDumpFile(repro_dir, ks.name + ".cu", codegen::ReproSource(ks))
                    << "\n";
        }
      }
      return 0;
    }
    if (!name.empty()) {
      std::cerr << "no example named '" << name << "' (run without arguments for the list)\n";
      return 2;
    }
  } catch (const Error& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
