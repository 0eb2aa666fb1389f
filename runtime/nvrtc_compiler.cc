#include "runtime/nvrtc_compiler.h"

#include <nvrtc.h>

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

#include "absl/algorithm/container.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "core/environment.h"
#include "core/error.h"
#include "core/status_macros.h"
#include "runtime/cuda_driver.h"
#include "runtime/dynamic_library.h"

namespace tessel::runtime {
namespace {

#define TESSEL_NVRTC_FUNCTIONS(X) \
  X(nvrtcVersion)                 \
  X(nvrtcGetErrorString)          \
  X(nvrtcCreateProgram)           \
  X(nvrtcDestroyProgram)          \
  X(nvrtcCompileProgram)          \
  X(nvrtcGetProgramLogSize)       \
  X(nvrtcGetProgramLog)           \
  X(nvrtcGetCUBINSize)            \
  X(nvrtcGetCUBIN)                \
  X(nvrtcGetPTXSize)              \
  X(nvrtcGetPTX)

struct Nvrtc {
#define TESSEL_DECLARE(name) decltype(&::name) name = nullptr;
  TESSEL_NVRTC_FUNCTIONS(TESSEL_DECLARE)
#undef TESSEL_DECLARE
};

// Where tools/install_nvrtc.sh puts a newer NVRTC than the toolkit's (PyPI's
// nvidia-cuda-nvrtc): $XDG_DATA_HOME/tessel/nvrtc where that is an absolute path, else
// ~/.local/share/tessel/nvrtc.
std::string InstalledNvrtc() {
  std::optional<std::string> root = EnvString("XDG_DATA_HOME");
  if (!root || !absl::StartsWith(*root, "/")) {
    const std::optional<std::string> home = EnvString("HOME");
    if (!home) return "";
    root = absl::StrCat(*home, "/.local/share");
  }
  return absl::StrCat(*root, "/tessel/nvrtc/nvidia/cu13/lib/libnvrtc.so.13");
}

// The library: TESSEL_NVRTC (a path) where set, else the one tools/install_nvrtc.sh
// installed (even where the toolkit's is newer: README says to remove it then), else the
// toolkit's.
absl::StatusOr<void*> OpenNvrtc() {
  if (const std::optional<std::string> path = EnvString("TESSEL_NVRTC")) {
    absl::StatusOr<void*> lib = OpenLibrary({*path});
    // A setting that names no library is an error, not a quiet fall back to the CPU.
    if (!lib.ok())
      return absl::InvalidArgumentError(absl::StrCat("TESSEL_NVRTC: ", lib.status().message()));
    return lib;
  }
  std::vector<std::string> names = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so",
                                    "/usr/local/cuda/lib64/libnvrtc.so"};
  if (const std::string installed = InstalledNvrtc(); !installed.empty()) {
    names.insert(names.begin(), installed);
  }
  return OpenLibrary(names);
}

// NVRTC 13.0's assembler (ptxas 13.0.88) miscompiles some kernels: a store's predicate is
// recomputed from a register it has already reused, and the store is skipped (fuzz seed
// 80945064, a column normalization: bench/RESULTS.md, fifty-sixth session). 13.5 compiles
// the same kernel correctly. Said once, where the library loads (cached kernels too were
// compiled by it).
void WarnOfKnownMiscompiles(const Nvrtc& n) {
  int major = 0, minor = 0;
  n.nvrtcVersion(&major, &minor);
  if (major != 13 || minor != 0) return;
  std::fprintf(stderr,
               "tessel: NVRTC 13.0 miscompiles some kernels (a skipped store); 13.5 does not: "
               "tools/install_nvrtc.sh installs it, or set TESSEL_NVRTC\n");
}

absl::StatusOr<Nvrtc> Load() {
  TESSEL_ASSIGN_OR_RETURN(void* lib, OpenNvrtc());
  Nvrtc n;
#define TESSEL_LOAD(name) TESSEL_RETURN_IF_ERROR(LoadSymbol(lib, #name, &n.name));
  TESSEL_NVRTC_FUNCTIONS(TESSEL_LOAD)
#undef TESSEL_LOAD
  WarnOfKnownMiscompiles(n);
  return n;
}

absl::StatusOr<const Nvrtc*> GetNvrtc() {
  static const absl::StatusOr<Nvrtc>* nvrtc = new absl::StatusOr<Nvrtc>(Load());
  if (!nvrtc->ok()) return nvrtc->status();
  return &**nvrtc;
}

}  // namespace

Target TargetOfDevice(int ordinal) {
  Target t;
  // TESSEL_ARCH=sm_90 (say) overrides the device's own, e.g. to run the portable kernels.
  if (const std::optional<std::string> arch = EnvString("TESSEL_ARCH")) {
    absl::string_view a(*arch);
    // The number's digits (two or three: sm_90a, sm_100a), then a suffix ("a": the
    // architecture-specific features). Anything else is refused: a setting half read would
    // compile for another target than the one asked for.
    const bool prefixed = absl::ConsumePrefix(&a, "sm_");
    const bool specific = absl::ConsumeSuffix(&a, "a");
    int number = 0;
    if (!prefixed || a.size() < 2 || a.size() > 3 || !absl::c_all_of(a, absl::ascii_isdigit) ||
        !absl::SimpleAtoi(a, &number) || a[0] == '0') {
      ThrowOpError("environment", "TESSEL_ARCH='", *arch,
                   "' is not an architecture of the form sm_90, sm_90a or sm_100a");
    }
    t.major = number / 10;
    t.minor = number % 10;
    t.arch_specific = specific;
    return t;
  }
  auto driver = GetDriver();
  CUdevice device;
  if (!driver.ok() || (*driver)->cuDeviceGet(&device, ordinal) != CUDA_SUCCESS) return t;
  (*driver)->cuDeviceGetAttribute(&t.major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device);
  (*driver)->cuDeviceGetAttribute(&t.minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device);
  t.arch_specific = t.major >= 9;
  return t;
}

Target DeviceTarget() {
  static const Target target = TargetOfDevice(0);
  return target;
}

std::vector<std::string> CompileOptions(const Target& target) {
  // No include paths: sources carry the prelude and see only the embedded device library,
  // which keeps compiles fast and independent of the machine's toolkit. No contraction of a
  // multiply and an add into an FMA: every node rounds its result, as the CPU backend does,
  // and a value computed twice in a kernel (inlined at two positions) is the same value.
  return {absl::StrCat("--gpu-architecture=", target.Name()), "--std=c++17", "--fmad=false",
          "--ptxas-options=--warn-on-spills"};
}

absl::StatusOr<std::string> NvrtcVersion() {
  TESSEL_ASSIGN_OR_RETURN(const Nvrtc* n, GetNvrtc());
  int major = 0, minor = 0;
  n->nvrtcVersion(&major, &minor);
  return absl::StrCat(major, ".", minor);
}

absl::StatusOr<CompileOutput> CompileCuda(const CompileUnit& unit, const Target& target) {
  const absl::string_view source = unit.source, name = unit.name;
  TESSEL_ASSIGN_OR_RETURN(const Nvrtc* n, GetNvrtc());
  nvrtcProgram program;
  const std::string src(source), file = absl::StrCat(name, ".cu");
  std::vector<std::string> texts, names;
  for (const Header& h : unit.headers) {
    texts.emplace_back(h.text);
    names.emplace_back(h.name);
  }
  std::vector<const char*> text_ptrs, name_ptrs;
  for (size_t i = 0; i < texts.size(); ++i) {
    text_ptrs.push_back(texts[i].c_str());
    name_ptrs.push_back(names[i].c_str());
  }
  if (nvrtcResult r =
          n->nvrtcCreateProgram(&program, src.c_str(), file.c_str(), static_cast<int>(texts.size()),
                                text_ptrs.data(), name_ptrs.data());
      r != NVRTC_SUCCESS) {
    return absl::InternalError(absl::StrCat("nvrtcCreateProgram: ", n->nvrtcGetErrorString(r)));
  }
  const std::vector<std::string> options = CompileOptions(target);
  std::vector<const char*> argv;
  for (const std::string& o : options) argv.push_back(o.c_str());
  const nvrtcResult result =
      n->nvrtcCompileProgram(program, static_cast<int>(argv.size()), argv.data());
  CompileOutput out;
  size_t size = 0;
  n->nvrtcGetProgramLogSize(program, &size);
  out.log.resize(size);
  n->nvrtcGetProgramLog(program, out.log.data());
  while (!out.log.empty() && (out.log.back() == '\0' || out.log.back() == '\n')) {
    out.log.pop_back();
  }
  if (result == NVRTC_SUCCESS) {
    n->nvrtcGetCUBINSize(program, &size);
    out.cubin.resize(size);
    n->nvrtcGetCUBIN(program, out.cubin.data());
    n->nvrtcGetPTXSize(program, &size);
    out.ptx.resize(size);
    n->nvrtcGetPTX(program, out.ptx.data());
    if (!out.ptx.empty() && out.ptx.back() == '\0') out.ptx.pop_back();
  }
  n->nvrtcDestroyProgram(&program);
  if (result != NVRTC_SUCCESS) {
    return absl::InvalidArgumentError(
        absl::StrCat("NVRTC could not compile ", name, " for ", target.Name(), ":\n", out.log));
  }
  return out;
}

}  // namespace tessel::runtime
