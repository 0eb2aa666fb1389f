#include "tools/fuzz/campaign.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <map>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "tessel.h"
#include "tools/fuzz/generator.h"

namespace tessel::fuzz {
namespace {

using Clock = std::chrono::steady_clock;

// SIGINT or SIGTERM: stop as at the time limit, and report what finished.
volatile sig_atomic_t g_stop_requested = 0;
void RequestStop(int) { g_stop_requested = 1; }

const char* ModeName(Mode mode) { return mode == Mode::kPlan ? "plan" : "diff"; }

void Emit(const std::string& line) {
  std::fwrite(line.data(), 1, line.size(), stdout);
  std::fputc('\n', stdout);
  std::fflush(stdout);
}

struct Failure {
  std::string signature;
  std::string detail;
};

struct Worker {
  pid_t pid = -1;
  int fd = -1;
  std::string buffer;
  uint64_t next = 0, end = 0;  // seeds left: [next, end)
  int64_t current = -1;        // started and not finished
  Clock::time_point last;
  bool hung = false;
};

class Supervisor {
 public:
  explicit Supervisor(const Campaign& c) : c_(c) {}

  int64_t Run() {
    start_ = Clock::now();
    std::signal(SIGINT, RequestStop);
    std::signal(SIGTERM, RequestStop);
    const int jobs = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(c_.jobs, c_.count)));
    workers_.resize(jobs);
    const uint64_t per = (c_.count + jobs - 1) / jobs;
    for (int j = 0; j < jobs; ++j) {
      Worker& w = workers_[j];
      w.next = c_.first_seed + j * per;
      w.end = std::min<uint64_t>(w.next + per, c_.first_seed + c_.count);
      if (w.next < w.end) Spawn(w);
    }
    while (Loop()) {
    }
    Report(std::chrono::duration<double>(Clock::now() - start_).count());
    return static_cast<int64_t>(failures_.size());
  }

 private:
  void Spawn(Worker& w) {
    int fds[2];
    if (pipe(fds) != 0) {
      std::perror("pipe");
      std::exit(2);
    }
    std::vector<std::string> args = {c_.self, "worker", absl::StrCat("--first=", w.next),
                                     absl::StrCat("--count=", w.end - w.next)};
    for (const std::string& flag : CheckFlags(c_.check)) args.push_back(flag);
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    const pid_t pid = fork();
    if (pid == 0) {
      dup2(fds[1], STDOUT_FILENO);
      close(fds[0]);
      close(fds[1]);
      execv(c_.self.c_str(), argv.data());
      _exit(127);
    }
    close(fds[1]);
    w.pid = pid;
    w.fd = fds[0];
    w.current = -1;
    w.hung = false;
    w.last = Clock::now();
  }

  // One round of waiting; false when every worker is done.
  bool Loop() {
    const double elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
    if (elapsed - last_progress_ >= 30) {  // a killed run still leaves its counts behind
      last_progress_ = elapsed;
      std::printf("progress: %lld passed, %lld failed, %.0f s\n", static_cast<long long>(passed_),
                  static_cast<long long>(failures_.size()), elapsed);
      std::fflush(stdout);
    }
    const bool out_of_time = c_.time_limit_seconds > 0 && elapsed > c_.time_limit_seconds;
    if ((out_of_time || g_stop_requested) && !stopped_) {
      stopped_ = true;  // the programs under way do not count
      for (Worker& w : workers_) {
        if (w.fd >= 0) kill(w.pid, SIGKILL);
        w.current = -1;
        w.end = w.next;
      }
    }
    std::vector<pollfd> fds;
    std::vector<Worker*> owners;
    for (Worker& w : workers_) {
      if (w.fd < 0) continue;
      fds.push_back({w.fd, POLLIN, 0});
      owners.push_back(&w);
    }
    if (fds.empty()) return false;
    poll(fds.data(), fds.size(), 1000);
    for (size_t i = 0; i < fds.size(); ++i) {
      Worker& w = *owners[i];
      if (fds[i].revents != 0) Read(w);
      if (w.fd >= 0 && w.current >= 0 &&
          Clock::now() - w.last > std::chrono::seconds(c_.timeout_seconds)) {
        w.hung = true;
        kill(w.pid, SIGKILL);
      }
    }
    return true;
  }

  void Read(Worker& w) {
    char chunk[65536];
    const ssize_t n = read(w.fd, chunk, sizeof(chunk));
    if (n > 0) {
      w.buffer.append(chunk, n);
      size_t newline;
      while ((newline = w.buffer.find('\n')) != std::string::npos) {
        Handle(w, w.buffer.substr(0, newline));
        w.buffer.erase(0, newline + 1);
      }
      return;
    }
    close(w.fd);
    w.fd = -1;
    int status = 0;
    waitpid(w.pid, &status, 0);
    if (stopped_) w.current = -1;
    if (w.current >= 0) {
      const std::string why =
          w.hung                ? absl::StrCat("hang: no progress in ", c_.timeout_seconds, " s")
          : WIFSIGNALED(status) ? absl::StrCat("crash: signal ", WTERMSIG(status))
                                : absl::StrCat("crash: exit ", WEXITSTATUS(status));
      failures_[w.current] = Failure{why, "the worker process died on this program"};
      std::printf("failed: seed=%lld: %s\n", static_cast<long long>(w.current), why.c_str());
      std::fflush(stdout);
      w.next = w.current + 1;
    }
    if (w.next < w.end) Spawn(w);
  }

  void Handle(Worker& w, absl::string_view line) {
    w.last = Clock::now();
    std::vector<absl::string_view> f = absl::StrSplit(line, absl::MaxSplits(' ', 2));
    uint64_t seed = 0;
    if (f.size() >= 2) absl::SimpleAtoi(f[1], &seed);
    if (f[0] == "@start") {
      w.current = static_cast<int64_t>(seed);
    } else if (f[0] == "@pass") {
      ++passed_;
      std::vector<absl::string_view> counts = absl::StrSplit(f.size() > 2 ? f[2] : "", ' ');
      int64_t a = 0, b = 0;
      if (counts.size() == 2 && absl::SimpleAtoi(counts[0], &a) &&
          absl::SimpleAtoi(counts[1], &b)) {
        compared_ += a;
        fragile_ += b;
      }
    } else if (f[0] == "@fail") {
      failures_[seed] = Failure{std::string(f.size() > 2 ? f[2] : ""), ""};
      last_failure_ = &failures_[seed];
      std::printf("failed: seed=%llu: %s\n", static_cast<unsigned long long>(seed),
                  last_failure_->signature.c_str());
      std::fflush(stdout);
    } else if (f[0] == "|" && last_failure_ != nullptr) {
      absl::StrAppend(&last_failure_->detail, absl::StripPrefix(line, "| "), "\n");
    } else if (f[0] == "@done") {
      w.current = -1;
      w.next = seed + 1;
      last_failure_ = nullptr;
    }
  }

  void Report(double seconds) {
    for (const auto& [seed, f] : failures_) {
      std::printf("\nFAIL seed=%llu: %s\n", static_cast<unsigned long long>(seed),
                  f.signature.c_str());
      std::string text;
      try {
        text = GenerateProgram(seed, GeneratorFor(c_.check));
      } catch (const std::exception& e) {
        text = absl::StrCat("(the generator failed: ", e.what(), ")\n");
      }
      std::printf("%s", text.c_str());
      int lines = 0;
      for (absl::string_view l : absl::StrSplit(f.detail, '\n')) {
        if (++lines > 40) {
          std::printf("  ...\n");
          break;
        }
        if (!l.empty()) std::printf("  %.*s\n", static_cast<int>(l.size()), l.data());
      }
      std::printf(
          "  reproduce: fuzz run --mode=%s --seed=%llu; shrink: fuzz minimize --mode=%s "
          "--seed=%llu\n",
          ModeName(c_.check.mode), static_cast<unsigned long long>(seed), ModeName(c_.check.mode),
          static_cast<unsigned long long>(seed));
    }
    const int64_t failed = static_cast<int64_t>(failures_.size());
    std::printf("\nfuzz %s: seeds %llu..%llu, %.1f s, %d processes", ModeName(c_.check.mode),
                static_cast<unsigned long long>(c_.first_seed),
                static_cast<unsigned long long>(c_.first_seed + c_.count - 1), seconds,
                static_cast<int>(workers_.size()));
    if (stopped_) {
      std::printf("; stopped early (time limit or signal) after %lld programs",
                  static_cast<long long>(passed_ + failed));
    }
    if (c_.check.mode == Mode::kDiff) {
      std::printf("; %lld elements compared, %.3f%% left out as fragile",
                  static_cast<long long>(compared_),
                  100.0 * fragile_ / std::max<int64_t>(1, compared_ + fragile_));
    }
    std::printf("\n%lld passed, %lld failed\n", static_cast<long long>(passed_),
                static_cast<long long>(failed));
    std::fflush(stdout);
  }

  Campaign c_;
  Clock::time_point start_;
  bool stopped_ = false;  // the time limit passed, or a stop was requested
  double last_progress_ = 0;
  std::vector<Worker> workers_;
  std::map<uint64_t, Failure> failures_;
  Failure* last_failure_ = nullptr;
  int64_t passed_ = 0, compared_ = 0, fragile_ = 0;
};

}  // namespace

int64_t RunCampaign(const Campaign& c) { return Supervisor(c).Run(); }

int RunWorker(const CheckOptions& check, uint64_t first, int64_t count) {
  for (uint64_t seed = first; seed < first + static_cast<uint64_t>(count); ++seed) {
    Emit(absl::StrCat("@start ", seed));
    Outcome o;
    try {
      const std::string text = GenerateProgram(seed, GeneratorFor(check));
      CheckOptions options = check;
      options.data_seed = seed;
      options.twice = check.twice && seed % 2 == 0;
      o = CheckProgram(text, options);
      // A generated program always replays: a refusal is a bug of the fuzzer or graph text.
      if (o.kind == Outcome::kInvalid) {
        o.kind = Outcome::kFail;
        o.signature = Signature("replay", o.detail);
      }
    } catch (const std::exception& e) {
      o.kind = Outcome::kFail;
      o.signature = Signature("generate", e.what());
      o.detail = e.what();
    }
    if (o.kind == Outcome::kPass) {
      Emit(absl::StrCat("@pass ", seed, " ", o.compared, " ", o.fragile));
    } else {
      Emit(absl::StrCat("@fail ", seed, " ", o.signature));
      for (absl::string_view l : absl::StrSplit(o.detail, '\n')) Emit(absl::StrCat("| ", l));
    }
    Emit(absl::StrCat("@done ", seed));
    if (o.device_lost) return 3;
  }
  return 0;
}

}  // namespace tessel::fuzz
