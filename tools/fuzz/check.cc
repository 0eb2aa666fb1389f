#include "tools/fuzz/check.h"

#include <cctype>
#include <memory>
#include <optional>
#include <vector>

#include "absl/base/casts.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "backend/compile.h"
#include "codegen/generate.h"
#include "core/backend.h"
#include "core/stable_hash.h"
#include "tessel.h"
#include "tools/fuzz/compare.h"
#include "tools/fuzz/program.h"
#include "tools/fuzz/rng.h"
#include "tools/fuzz/sensitivity.h"
#include "tools/ptx_loops.h"

namespace tessel::fuzz {
namespace {

Outcome Fail(absl::string_view stage, absl::string_view message) {
  Outcome o;
  o.kind = Outcome::kFail;
  o.signature = Signature(stage, message);
  o.detail = std::string(message);
  return o;
}

Outcome Invalid(absl::string_view message) {
  Outcome o;
  o.kind = Outcome::kInvalid;
  o.detail = std::string(message);
  return o;
}

// A replay's or realize's error: the API refused the text (not a program), or the library
// failed.
Outcome ReplayFailure(absl::string_view device, const absl::Status& status) {
  if (status.ok()) return Outcome();
  if (absl::IsInvalidArgument(status)) return Invalid(status.message());
  if (absl::IsAborted(status)) return Fail(absl::StrCat(device, " realize"), status.message());
  return Fail("record", status.message());
}

std::vector<const Node*> Roots(const std::vector<Tensor>& outputs) {
  std::vector<const Node*> roots;
  for (const Tensor& t : outputs) roots.push_back(&t.node());
  return roots;
}

// NVRTC's first error, without the file and line it names.
std::string FirstCompileError(absl::string_view message) {
  for (absl::string_view line : absl::StrSplit(message, '\n')) {
    const size_t at = line.find("error");
    if (at != absl::string_view::npos) return std::string(line.substr(at));
  }
  return std::string(message);
}

// Plans `outputs` for both targets and compiles every kernel not compiled before.
Outcome PlanAndCompile(const std::vector<Tensor>& outputs) {
  static absl::flat_hash_set<uint64_t>* compiled = new absl::flat_hash_set<uint64_t>();
  try {
    explain(outputs);
    for (const Target& target : {Target{9, 0, true}, Target{8, 0, false}}) {
      for (const codegen::KernelSource& k :
           codegen::PlanAndGenerate(Roots(outputs), target).kernels) {
        if (!compiled->insert(StableHash(absl::StrCat(target.Name(), k.source))).second) {
          continue;
        }
        // Through the kernel cache, where the CUDA backend's run below finds it.
        absl::StatusOr<std::shared_ptr<const runtime::CompileOutput>> out =
            backend::CompileCached(k, target);
        if (!out.ok()) {
          return Fail(absl::StrCat("compile ", target.Name(), " ", k.kind),
                      absl::StrCat(FirstCompileError(out.status().message()), "\n",
                                   out.status().message(), "\n", k.source));
        }
        // A loop no path leaves (NVRTC made one of a scan's loop: fuzz seed 42008079) would
        // fault or hang the GPU; found here without one.
        if (!tools::FunctionsWithEndlessLoops((*out)->ptx).empty()) {
          return Fail(
              absl::StrCat("compile ", target.Name(), " ", k.kind),
              absl::StrCat("the PTX of ", k.name, " has a loop no path leaves\n", k.source));
        }
      }
    }
  } catch (const Error& e) {
    return Fail("plan", e.what());
  }
  return Outcome();
}

// Whether the GPU still computes after a failure (a fault leaves the context unusable).
bool DeviceUsable() {
  try {
    return (full({4}, 1.0, DType::kF32, Device::kCUDA) + 1.0).to_vector<float>()[3] == 2.0f;
  } catch (const Error&) {
    return false;
  }
}

std::vector<std::vector<double>> Read(const std::vector<Tensor>& ts) {
  std::vector<std::vector<double>> out;
  for (const Tensor& t : ts) out.push_back(t.to_vector<double>());
  return out;
}

// The program on the device under test: its outputs' values, or why there are none; a
// refusal (an Error at realize, a mid-program one included) also leaves its message.
struct DeviceRun {
  std::vector<std::vector<double>> values;
  Outcome failure;
  std::string refusal;
};

const char* DeviceName(const CheckOptions& options) {
  return options.device == Device::kCUDA ? "cuda" : "cpu";
}

DeviceRun RunOnDevice(const std::vector<Statement>& program, uint64_t data_seed,
                      const CheckOptions& options) {
  const char* name = DeviceName(options);
  DeviceRun r;
  absl::StatusOr<Replayed> run = Replay(program, options.device, data_seed, RealizeValues);
  if (!run.ok()) {
    if (absl::IsAborted(run.status())) r.refusal = std::string(run.status().message());
    r.failure = ReplayFailure(name, run.status());
    return r;
  }
  try {
    realize(run->outputs);
    r.values = Read(run->outputs);
  } catch (const InternalError& e) {
    r.failure = Fail(name, e.what());
  } catch (const Error& e) {
    r.refusal = e.what();
    r.failure = Fail(name, e.what());
  }
  return r;
}

// The leading extent of the program's first input (0 if none).
int64_t LeadingExtent(const std::vector<Statement>& program) {
  for (const Statement& s : program) {
    if (s.kind == Statement::kValue && s.line.op == OpKind::kInput && s.line.shape.rank() > 0) {
      return s.line.shape[0];
    }
  }
  return 0;
}

// The program with every value whose dim 0 is `from` having `to` there instead. It need not
// be a program (a reshape's element count may no longer match): its replay refuses it then.
std::vector<Statement> WithLeadingExtent(std::vector<Statement> program, int64_t from, int64_t to) {
  for (Statement& s : program) {
    if (s.kind == Statement::kValue && s.line.shape.rank() > 0 && s.line.shape[0] == from) {
      s.line.shape[0] = to;
    }
  }
  return program;
}

// The other leading extents a program runs at: B + 3, where the CUDA backend, having seen it at
// B, may plan its power-of-two bucket with the extent as the kernels' rows argument
// (backend/dynamic_extents.h), then at another extent of that bucket, which runs that plan
// at an extent it was not made at. None below 2.
std::vector<int64_t> OtherExtents(int64_t b) {
  if (b < 2) return {};
  const int64_t third = b + 3;
  int64_t low = 1;
  while (low * 2 <= third) low *= 2;
  return {third, third == 2 * low - 1 ? low : 2 * low - 1};
}

// Plan mode's programs are planned and compiled for both targets, then run on the CPU and,
// where the CUDA backend loads (under tools/fake_cuda on a machine without a GPU: its
// kernels do nothing, but it refuses launches the real driver would, such as dynamic shared
// memory not reserved: fuzz seed 76056259), through the CUDA backend's whole host path:
// plan cache, module loading, launch configuration, graph capture; with `twice`, again at
// the other leading extents (grids from the rows argument). No value is compared.
Outcome PlanMode(const std::vector<Statement>& program, const CheckOptions& options) {
  const uint64_t data_seed = options.data_seed;
  // Every realize, mid-program ones included, is planned and compiled, then run on the CPU.
  Outcome failure;
  auto check_then_realize = [&](const std::vector<Tensor>& values) -> absl::Status {
    failure = PlanAndCompile(values);
    if (failure.kind != Outcome::kPass) return absl::CancelledError("planning failed");
    return RealizeValues(values);
  };
  absl::StatusOr<Replayed> r = Replay(program, Device::kCPU, data_seed, check_then_realize);
  if (failure.kind != Outcome::kPass) return failure;
  if (!r.ok()) return ReplayFailure("cpu", r.status());
  failure = PlanAndCompile(r->outputs);
  if (failure.kind != Outcome::kPass) return failure;
  failure = ReplayFailure("cpu", RealizeValues(r->outputs));
  // A program the CPU refuses (an index its data puts out of range) is not run again.
  if (failure.kind != Outcome::kPass || !GetBackend(Device::kCUDA).ok()) return failure;
  CheckOptions cuda;
  cuda.device = Device::kCUDA;
  failure = RunOnDevice(program, data_seed, cuda).failure;
  if (failure.kind != Outcome::kPass || !options.twice) return failure;
  // Again at other leading extents, as diff mode's second run: the plan cache serves kernels
  // that take the rows as an argument, and their grids follow it. The CPU does not run these:
  // a refusal (an index the new data puts out of range, on a real GPU) passes.
  const int64_t b = LeadingExtent(program);
  for (const int64_t extent : OtherExtents(b)) {
    const DeviceRun run =
        RunOnDevice(WithLeadingExtent(program, b, extent), SubSeed(data_seed, 1002 + extent), cuda);
    failure = run.failure;
    if (failure.kind == Outcome::kFail && run.refusal.empty()) {
      failure.detail = absl::StrCat("(run at leading extent ", extent, ") ", failure.detail);
      return failure;
    }
  }
  return Outcome();
}

// Where two runs' values differ bit for bit (NaNs alike where their bits are), or "".
std::string FirstDifference(const std::vector<std::vector<double>>& a,
                            const std::vector<std::vector<double>>& b) {
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    for (size_t j = 0; j < a[i].size() && j < b[i].size(); ++j) {
      if (absl::bit_cast<uint64_t>(a[i][j]) != absl::bit_cast<uint64_t>(b[i][j])) {
        return absl::StrCat("output ", i, " element ", j, ": ", a[i][j], " then ", b[i][j]);
      }
    }
  }
  return a.size() == b.size() ? "" : "a different number of outputs";
}

// The same program and data twice more on the GPU: the plan cache serves them and, where the
// buffers come round again, a captured CUDA graph (backend/plan_graph.h). Every kernel is
// deterministic, so the bits must be the first run's.
Outcome Reruns(const std::vector<Statement>& program, uint64_t data_seed,
               const CheckOptions& options, const std::vector<std::vector<double>>& first) {
  for (int again = 1; again <= 2; ++again) {
    DeviceRun rerun = RunOnDevice(program, data_seed, options);
    Outcome& failure = rerun.failure;
    if (failure.kind != Outcome::kPass) {
      failure.detail =
          absl::StrCat("(rerun ", again, " of the same program and data) ", failure.detail);
      return failure;
    }
    const std::string difference = FirstDifference(first, rerun.values);
    if (!difference.empty()) {
      return Fail("cuda",
                  absl::StrCat("rerun ", again,
                               " of the same program and data gave other bits: ", difference));
    }
  }
  return Outcome();
}

// The CPU refused to compute the program at realize (an index out of range: data that
// makes one, or a program rerun at a leading extent its indices were not made for). The
// device must refuse it with the same message, as api.md promises; nothing is compared.
Outcome SameRefusal(const std::vector<Statement>& program, uint64_t data_seed,
                    const CheckOptions& options, absl::string_view refusal) {
  if (options.simulate > 0) return Outcome();  // the simulated device refuses alike
  const DeviceRun run = RunOnDevice(program, data_seed, options);
  if (run.refusal == refusal) return Outcome();
  if (run.refusal.empty() && run.failure.kind != Outcome::kPass) return run.failure;
  const char* name = DeviceName(options);
  return Fail(name, absl::StrCat("the CPU refused the program: ", refusal, "\n", name,
                                 run.refusal.empty() ? " computed it" : " refused it otherwise: ",
                                 run.refusal));
}

// Replays with noise of random sign: two, or four where a matmul's result reaches an exp
// (softmax and attention chains). There an output's error is a walk of random steps over the
// keys, which two samples bound too low for a few elements in 10^5: the checker's self-check
// (`fuzz diff --device=cpu --simulate=0.5`, seeds 1..3000) failed 23 programs with two, 2
// with four, all such chains, and took 49% longer with four for every program.
int RandomReplays(const std::vector<Statement>& program) {
  absl::flat_hash_set<std::string> from_matmul;
  for (const Statement& s : program) {
    if (s.kind != Statement::kValue) continue;
    bool reached = s.line.op == OpKind::kMatmul;
    for (const std::string& operand : s.line.operands) {
      reached = reached || from_matmul.contains(operand);
    }
    if (!reached) continue;
    if (s.line.op == OpKind::kExp) return 4;
    from_matmul.insert(s.line.name);
  }
  return 2;
}

Outcome DiffRound(const std::vector<Statement>& program, uint64_t data_seed,
                  const CheckOptions& options) {
  absl::StatusOr<Replayed> ref = Replay(program, Device::kCPU, data_seed, nullptr);
  if (!ref.ok()) return ReplayFailure("cpu", ref.status());
  std::vector<std::vector<double>> reference;
  try {
    realize(ref->outputs);
    reference = Read(ref->outputs);
  } catch (const InternalError& e) {
    return Fail("cpu", e.what());
  } catch (const Error& e) {
    return SameRefusal(program, data_seed, options, e.what());
  }
  std::vector<Perturbed> noisy;
  std::vector<std::pair<NoiseOptions::Kind, uint64_t>> masks = {{NoiseOptions::kUp, 77},
                                                                {NoiseOptions::kDown, 77}};
  const int random_replays = RandomReplays(program);
  for (int i = 0; i < random_replays; ++i) masks.push_back({NoiseOptions::kMixed, 78 + i});
  for (const auto& [kind, stream] : masks) {
    NoiseOptions noise;
    noise.kind = kind;
    noise.seed = SubSeed(data_seed, stream);
    absl::StatusOr<Perturbed> p = ReplayPerturbed(program, data_seed, noise);
    if (!p.ok()) return Fail("reference", p.status().message());
    noisy.push_back(*std::move(p));
  }
  std::vector<std::vector<double>> device;
  if (options.simulate > 0) {
    NoiseOptions noise;
    noise.kind = NoiseOptions::kSimulate;
    noise.seed = SubSeed(data_seed, 99);
    noise.scale = options.simulate;
    absl::StatusOr<Perturbed> p = ReplayPerturbed(program, data_seed, noise);
    if (!p.ok()) return Fail("reference", p.status().message());
    device = Read(p->outputs);
  } else {
    DeviceRun run = RunOnDevice(program, data_seed, options);
    Outcome& failure = run.failure;
    if (failure.kind != Outcome::kPass) return failure;
    if (options.device == Device::kCUDA) {
      Outcome reruns = Reruns(program, data_seed, options, run.values);
      if (reruns.kind != Outcome::kPass) return reruns;
    }
    device = std::move(run.values);
  }
  Outcome o;
  for (size_t i = 0; i < reference.size(); ++i) {
    OutputValues v;
    v.reference = std::move(reference[i]);
    v.device = std::move(device[i]);
    for (const Perturbed& p : noisy) v.under_noise.push_back(p.outputs[i].to_vector<double>());
    // Fragile where any replay says so: whether noise carries a value to a jump depends on
    // the direction it pushes (seed 25513168: only the replays pushing down reach 0).
    v.tainted = noisy[0].fragile[i].to_vector<uint8_t>();
    for (size_t r = 1; r < noisy.size(); ++r) {
      const std::vector<uint8_t> more = noisy[r].fragile[i].to_vector<uint8_t>();
      for (size_t e = 0; e < more.size(); ++e) v.tainted[e] |= more[e];
    }
    const Tensor& out = ref->outputs[i];
    const OutputDiff d = CompareOutput(v, out.shape(), noisy[0].precision[i]);
    o.compared += d.compared;
    o.fragile += d.fragile;
    if (d.mismatched > 0) {
      Outcome f = Fail("mismatch", "");
      f.detail =
          absl::StrCat("output ", i, " (", DTypeName(out.dtype()), out.shape().ToString(),
                       ", tolerance of ", DTypeName(noisy[0].precision[i]), "): ", d.mismatched,
                       " of ", d.compared, " elements differ; first ", d.first);
      f.compared = o.compared;
      f.fragile = o.fragile;
      return f;
    }
  }
  return o;
}

}  // namespace

GeneratorOptions GeneratorFor(const CheckOptions& options) {
  GeneratorOptions g;
  g.one_hot_picks = options.staged_row > 0;
  g.staged_row = options.staged_row;
  return g;
}

std::vector<std::string> CheckFlags(const CheckOptions& options) {
  return {absl::StrCat("--mode=", options.mode == Mode::kPlan ? "plan" : "diff"),
          absl::StrCat("--twice=", options.twice ? "true" : "false"),
          absl::StrCat("--device=", options.device == Device::kCPU ? "cpu" : "cuda"),
          absl::StrCat("--simulate=", options.simulate),
          absl::StrCat("--staged_row=", options.staged_row)};
}

std::string Signature(absl::string_view stage, absl::string_view message) {
  std::string first(message.substr(0, message.find('\n')));
  std::string out = absl::StrCat(stage, ": ");
  for (size_t i = 0; i < first.size() && out.size() < 200; ++i) {
    const bool digit = std::isdigit(static_cast<unsigned char>(first[i]));
    if (!digit) {
      out.push_back(first[i]);
    } else if (out.back() != '#') {
      out.push_back('#');
    }
  }
  return out;
}

// The program with other scalars and seeds: kernels take these as arguments, so the second
// run reuses the first run's plans with new ones. Float values move by an injective map (two
// values stay two nodes, so the structure is the same); integer and bool values stay.
std::vector<Statement> OtherArguments(std::vector<Statement> program) {
  for (Statement& s : program) {
    if (s.kind != Statement::kValue) continue;
    GraphLine& line = s.line;
    if (line.op == OpKind::kFull && IsFloating(line.dtype)) {
      line.attrs.value = line.attrs.value * 1.25 + 0.5;
    } else if (line.op == OpKind::kRand || line.op == OpKind::kRandn) {
      line.attrs.ints[0] += 7919;
    }
  }
  return program;
}

// Runs the program at OtherExtents in diff mode. Programs the API refuses at those extents are
// skipped.
Outcome OtherLeadingExtents(const std::vector<Statement>& program, const CheckOptions& options) {
  Outcome total;
  const int64_t b = LeadingExtent(program);
  for (const int64_t extent : OtherExtents(b)) {
    Outcome o = DiffRound(WithLeadingExtent(program, b, extent),
                          SubSeed(options.data_seed, 1002 + extent), options);
    if (o.kind == Outcome::kFail) {
      o.detail = absl::StrCat("(run at leading extent ", extent, " instead of ", b, ") ", o.detail);
      return o;
    }
    total.compared += o.compared;  // an invalid program (kInvalid) is no failure
    total.fragile += o.fragile;
  }
  return total;
}

namespace {

// Diff mode's rounds: two data sets (the second on a stream of its own), then other leading
// extents.
Outcome DiffMode(const std::vector<Statement>& program, const CheckOptions& options) {
  Outcome total;
  for (int round = 0; round < (options.twice ? 2 : 1); ++round) {
    Outcome o;
    if (round == 0) {
      o = DiffRound(program, SubSeed(options.data_seed, 1000), options);
    } else {
      // Other values, scalars and seeds, on a stream of its own (where the device has them).
      std::optional<StreamGuard> guard;
      if (options.device == Device::kCUDA) guard.emplace(Stream::create());
      o = DiffRound(OtherArguments(program), SubSeed(options.data_seed, 1001), options);
    }
    if (o.kind != Outcome::kPass) {
      if (round > 0) {
        o.detail = absl::StrCat("(second run: other values, scalars and seeds, another stream) ",
                                o.detail);
      }
      return o;
    }
    total.compared += o.compared;
    total.fragile += o.fragile;
  }
  if (options.twice) {
    Outcome o = OtherLeadingExtents(program, options);
    if (o.kind == Outcome::kFail) return o;
    total.compared += o.compared;
    total.fragile += o.fragile;
  }
  return total;
}

}  // namespace

Outcome CheckProgram(absl::string_view text, const CheckOptions& options) {
  absl::StatusOr<std::vector<Statement>> program = ParseProgram(text);
  if (!program.ok()) return Invalid(program.status().message());
  if (options.mode == Mode::kPlan) {
    // Plan mode runs the CUDA backend too: on a real GPU a fault ends the worker as in diff
    // mode (on the fake driver, whose kernels compute nothing, any failure does).
    Outcome o = PlanMode(*program, options);
    o.device_lost = o.kind == Outcome::kFail && GetBackend(Device::kCUDA).ok() && !DeviceUsable();
    return o;
  }
  Outcome o = DiffMode(*program, options);
  // A fault anywhere (a rerun's too: seed 16017929 faulted in its second rerun, and the
  // worker went on to fail 35 programs on the dead context) ends the worker process.
  o.device_lost = o.kind == Outcome::kFail && options.device == Device::kCUDA &&
                  options.simulate == 0 && !DeviceUsable();
  return o;
}

}  // namespace tessel::fuzz
