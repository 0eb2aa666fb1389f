// tessel's differential fuzzer: random programs over the whole API, checked by planning and
// compiling every kernel (plan), or by running them on the GPU and the CPU and comparing
// (diff); a minimizer shrinks a failing program to a few lines. See README.md, "Fuzzing".
//
//   fuzz plan [--first=N] [--count=N] [--jobs=N]     no GPU needed
//   fuzz diff [--first=N] [--count=N] [--jobs=N]     on a GPU
//   fuzz show --seed=N                               the program of a seed
//   fuzz run --mode=plan|diff (--seed=N | --program=FILE)
//   fuzz minimize --mode=plan|diff (--seed=N | --program=FILE) [--out=FILE]
//   fuzz explain (--seed=N | --program=FILE) [--source]   the plan (and CUDA) of a program
//
// --first=0 picks a fresh first seed from the clock (printed). A program file is graph text
// (PrintGraph's output is one) with optional `realize %a, %b` lines before its `return`.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/str_cat.h"
#include "tessel.h"
#include "tools/fuzz/campaign.h"
#include "tools/fuzz/check.h"
#include "tools/fuzz/generator.h"
#include "tools/fuzz/minimize.h"
#include "tools/fuzz/program.h"

ABSL_FLAG(std::string, mode, "plan", "plan (no GPU) or diff (GPU against CPU)");
ABSL_FLAG(uint64_t, first, 1, "first seed of a campaign; 0: a fresh one from the clock");
ABSL_FLAG(int64_t, count, 200, "programs in a campaign");
ABSL_FLAG(int, jobs, 0, "worker processes (0: one per CPU core)");
ABSL_FLAG(int, timeout, 600, "seconds without progress before a worker counts as hung");
ABSL_FLAG(double, time_limit, 0, "seconds after which a campaign starts no more programs");
ABSL_FLAG(bool, twice, true, "diff: run even seeds a second time with other values");
ABSL_FLAG(std::string, device, "cuda", "diff: the backend under test (cpu: a self-check)");
ABSL_FLAG(double, simulate, 0,
          "diff --device=cpu: a simulated device erring this much (a check of the checker)");
ABSL_FLAG(uint64_t, seed, 0, "show, run, minimize: the program of this seed");
ABSL_FLAG(std::string, program, "", "run, minimize: a program file instead of a seed");
ABSL_FLAG(uint64_t, data_seed, 0, "run: input values (default: the seed, or 1)");
ABSL_FLAG(bool, signature_only, false, "run: print only the outcome's signature");
ABSL_FLAG(std::string, out, "", "minimize: also write the minimized program here");
ABSL_FLAG(bool, source, false, "explain: also print every kernel's CUDA source");
ABSL_FLAG(bool, unfused, false,
          "every operation its own kernel (TESSEL_FUSION=0): kernels that read from buffers "
          "what fused ones compute");
ABSL_FLAG(bool, small_tiles, false,
          "short 16-bit columns as tiles in shared memory at any size (TESSEL_SMALL_TILES=1; "
          "sm_90 plans): the tiles at the programs' small sizes");
ABSL_FLAG(int64_t, staged_row, 0,
          "rows longer than this stream (TESSEL_STAGED_ROW; 0: the planner's 16384): the "
          "streamed kernels at the programs' small sizes");

namespace tessel::fuzz {
namespace {

std::string Self() {
  char path[4096];
  const ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
  return n > 0 ? std::string(path, n) : "fuzz";
}

// The check options of the flags (--mode, --twice, --device, --simulate).
CheckOptions CheckFlagsGiven() {
  CheckOptions options;
  const std::string mode = absl::GetFlag(FLAGS_mode), device = absl::GetFlag(FLAGS_device);
  if ((mode != "plan" && mode != "diff") || (device != "cpu" && device != "cuda")) {
    std::fprintf(stderr, "--mode is plan or diff, --device cpu or cuda\n");
    std::exit(2);
  }
  options.mode = mode == "plan" ? Mode::kPlan : Mode::kDiff;
  options.device = device == "cpu" ? Device::kCPU : Device::kCUDA;
  options.twice = absl::GetFlag(FLAGS_twice);
  options.simulate = absl::GetFlag(FLAGS_simulate);
  options.staged_row = absl::GetFlag(FLAGS_staged_row);
  if (options.simulate > 0 && options.device != Device::kCPU) {
    std::fprintf(stderr, "--simulate needs --device=cpu\n");
    std::exit(2);
  }
  return options;
}

// The program named by --program or --seed, and the check options that reproduce a
// campaign's run of it.
std::string ProgramText(CheckOptions* options) {
  *options = CheckFlagsGiven();
  const std::string file = absl::GetFlag(FLAGS_program);
  const uint64_t seed = absl::GetFlag(FLAGS_seed);
  const uint64_t data_seed = absl::GetFlag(FLAGS_data_seed);
  options->data_seed = data_seed != 0 ? data_seed : seed != 0 ? seed : 1;
  options->twice = options->twice && (file.empty() ? seed % 2 == 0 : true);
  if (!file.empty()) {
    std::ifstream in(file);
    if (!in) {
      std::fprintf(stderr, "cannot read %s\n", file.c_str());
      std::exit(2);
    }
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }
  if (seed == 0) {
    std::fprintf(stderr, "give --seed=N or --program=FILE\n");
    std::exit(2);
  }
  return GenerateProgram(seed, GeneratorFor(*options));
}

int Run() {
  CheckOptions options;
  const std::string text = ProgramText(&options);
  const Outcome o = CheckProgram(text, options);
  if (absl::GetFlag(FLAGS_signature_only)) {
    std::printf("@signature %s\n", o.kind == Outcome::kPass      ? ""
                                   : o.kind == Outcome::kInvalid ? "invalid"
                                                                 : o.signature.c_str());
    return 0;
  }
  std::printf("%s", text.c_str());
  switch (o.kind) {
    case Outcome::kPass:
      std::printf("passed");
      if (options.mode == Mode::kDiff) {
        std::printf(" (%lld elements compared, %lld fragile)", static_cast<long long>(o.compared),
                    static_cast<long long>(o.fragile));
      }
      std::printf("\n");
      return 0;
    case Outcome::kInvalid:
      std::printf("not a valid program: %s\n", o.detail.c_str());
      return 2;
    case Outcome::kFail:
      std::printf("FAILED: %s\n%s\n", o.signature.c_str(), o.detail.c_str());
      return 1;
  }
  return 1;
}

int Explain() {
  CheckOptions options;
  const std::string text = ProgramText(&options);
  absl::StatusOr<std::vector<Statement>> program = ParseProgram(text);
  absl::StatusOr<Replayed> r =
      program.ok() ? Replay(*program, Device::kCPU, options.data_seed, RealizeValues)
                   : absl::StatusOr<Replayed>(program.status());
  if (!r.ok()) {
    std::fprintf(stderr, "%s\n", std::string(r.status().message()).c_str());
    return 2;
  }
  std::printf("%s\n%s", text.c_str(), explain(r->outputs).c_str());
  if (absl::GetFlag(FLAGS_source)) {
    for (const KernelInfo& k : inspect(r->outputs)) {
      std::printf("\n// ===== %s =====\n%s", k.name.c_str(), k.source.c_str());
    }
  }
  return 0;
}

int MinimizeCommand() {
  MinimizeOptions options;
  const std::string text = ProgramText(&options.check);
  options.self = Self();
  std::string signature;
  const std::string small = Minimize(text, options, &signature);
  if (signature.empty() || signature == "invalid") {
    std::printf("%s", text.c_str());
    std::printf(signature.empty() ? "this program does not fail\n" : "not a valid program\n");
    return 2;
  }
  std::printf("# fails with: %s\n%s", signature.c_str(), small.c_str());
  const std::string out = absl::GetFlag(FLAGS_out);
  if (!out.empty()) std::ofstream(out) << "# fails with: " << signature << "\n" << small;
  return 0;
}

int CampaignCommand(Mode mode) {
  Campaign c;
  c.check = CheckFlagsGiven();
  c.check.mode = mode;
  c.first_seed = absl::GetFlag(FLAGS_first);
  if (c.first_seed == 0) {
    c.first_seed = static_cast<uint64_t>(
        std::chrono::system_clock::now().time_since_epoch().count() / 1000 % 1000000000 + 1);
  }
  c.count = absl::GetFlag(FLAGS_count);
  c.jobs = absl::GetFlag(FLAGS_jobs);
  if (c.jobs <= 0) c.jobs = static_cast<int>(std::max(1L, sysconf(_SC_NPROCESSORS_ONLN)));
  c.timeout_seconds = absl::GetFlag(FLAGS_timeout);
  c.time_limit_seconds = absl::GetFlag(FLAGS_time_limit);
  c.self = Self();
  std::printf("fuzz %s: seeds %llu..%llu in %d processes\n", mode == Mode::kPlan ? "plan" : "diff",
              static_cast<unsigned long long>(c.first_seed),
              static_cast<unsigned long long>(c.first_seed + c.count - 1), c.jobs);
  std::fflush(stdout);
  return RunCampaign(c) == 0 ? 0 : 1;
}

}  // namespace
}  // namespace tessel::fuzz

int main(int argc, char** argv) {
  using namespace tessel::fuzz;
  absl::SetProgramUsageMessage(
      "tessel's differential fuzzer: fuzz plan|diff|show|run|minimize [flags]");
  std::vector<char*> args = absl::ParseCommandLine(argc, argv);
  // Read by the planner (fusion/planner.cc) in this process and in the workers it starts.
  if (const int64_t staged = absl::GetFlag(FLAGS_staged_row); staged > 0) {
    setenv("TESSEL_STAGED_ROW", absl::StrCat(staged).c_str(), 1);
  }
  if (absl::GetFlag(FLAGS_unfused)) setenv("TESSEL_FUSION", "0", 1);
  if (absl::GetFlag(FLAGS_small_tiles)) setenv("TESSEL_SMALL_TILES", "1", 1);
  const std::string command = args.size() > 1 ? args[1] : "";
  if (command == "plan") return CampaignCommand(Mode::kPlan);
  if (command == "diff") return CampaignCommand(Mode::kDiff);
  if (command == "worker") {
    return RunWorker(CheckFlagsGiven(), absl::GetFlag(FLAGS_first), absl::GetFlag(FLAGS_count));
  }
  if (command == "show") {
    std::printf(
        "%s", GenerateProgram(absl::GetFlag(FLAGS_seed), GeneratorFor(CheckFlagsGiven())).c_str());
    return 0;
  }
  if (command == "run") return Run();
  if (command == "minimize") return MinimizeCommand();
  if (command == "explain") return Explain();
  std::fprintf(stderr, "usage: fuzz plan|diff|show|run|minimize [flags]; --help for flags\n");
  return 2;
}
