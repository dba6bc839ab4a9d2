// Build time per candidate, g++ against the in-process LLVM backend (issue 14).
//
// For every task of the chosen networks, N random schedules (the tuner's
// own sampler), lowered once; each program is then built by both backends,
// one build at a time and alternating which goes first, so that both see the
// same machine: the g++ backend generates C++ and runs a compiler process to
// a .so (what measurement did before), the LLVM backend emits IR, optimizes
// it, makes machine code and links it into this process with the JIT. Both
// at -O3 for this CPU. Prints each backend's median, p95, mean and maximum
// seconds per candidate and their ratios.
//
// Usage: bench_compile [--networks resnet-50,bert-tiny] [--per-task 4]
//                      [--seed 1] [--max-tasks 0]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "bench/inprocess_kernel.h"
#include "common/codegen/cpu_build.h"
#include "common/device/device_profile.h"
#include "common/graph/networks.h"
#include "common/graph/tasks.h"
#include "common/lower/lower.h"
#include "common/sketch/annotate.h"
#include "common/sketch/random.h"
#include "common/sketch/sketch.h"

namespace pruner::bench {
namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  std::vector<std::string> networks = {"resnet-50", "bert-tiny"};
  int per_task = 4;
  uint64_t seed = 1;
  int max_tasks = 0;  // per network; 0: all
};

struct Stats {
  double median = 0, p95 = 0, mean = 0, max = 0;
};

Stats Summarize(std::vector<double> v) {
  Stats s;
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  s.median = v[v.size() / 2];
  s.p95 = v[std::min(v.size() - 1, static_cast<size_t>(0.95 * static_cast<double>(v.size())))];
  for (double x : v) s.mean += x;
  s.mean /= static_cast<double>(v.size());
  s.max = v.back();
  return s;
}

// Seconds of one build with `backend` (the wall time around the call, which
// for g++ includes writing the source and spawning the compiler), or a
// negative number when the build failed.
double TimeBuild(const Program& program, CpuBackend backend, const std::string& dir,
                 std::string* error) {
  CpuBuildOptions options;
  options.backend = backend;
  options.timeout = absl::Seconds(120);
  const auto start = Clock::now();
  absl::StatusOr<BuiltModule> module = std::move(BuildCpuPrograms({&program}, options, 1, dir)[0]);
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  if (!module.ok()) {
    if (error->empty()) *error = std::string(module.status().message()).substr(0, 200);
    return -1;
  }
  if (!module->path.empty()) {
    std::error_code ec;
    std::filesystem::remove(module->path, ec);
  }
  return seconds;
}

int Main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  Options opt;
  for (int i = 1; i < argc; ++i) {
    auto next = [&](const char* flag) -> const char* {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", flag);
        std::exit(2);
      }
      return argv[++i];
    };
    if (!std::strcmp(argv[i], "--networks")) {
      opt.networks = absl::StrSplit(next("--networks"), ',', absl::SkipEmpty());
    } else if (!std::strcmp(argv[i], "--per-task")) {
      opt.per_task = std::max(1, std::atoi(next("--per-task")));
    } else if (!std::strcmp(argv[i], "--seed")) {
      opt.seed = std::strtoull(next("--seed"), nullptr, 10);
    } else if (!std::strcmp(argv[i], "--max-tasks")) {
      opt.max_tasks = std::max(0, std::atoi(next("--max-tasks")));
    } else {
      std::fprintf(stderr,
                   "usage: %s [--networks resnet-50,bert-tiny] [--per-task 4] [--seed 1] "
                   "[--max-tasks 0]\n",
                   argv[0]);
      return 2;
    }
  }
  const DeviceProfile device = DetectLocalCpu();
  std::printf("bench_compile: %s, %d hardware threads, load average %.2f at start\n",
              device.name.c_str(), device.num_cores, LoadAverage());
  const std::string dir = MakeWorkDir("bench_compile");

  std::vector<Program> programs;
  std::vector<std::string> labels;
  for (const std::string& network : opt.networks) {
    absl::StatusOr<Graph> graph = BuildNetwork(network);
    if (!graph.ok()) {
      std::fprintf(stderr, "%s: %s\n", network.c_str(), std::string(graph.status().message()).c_str());
      return 2;
    }
    absl::StatusOr<std::vector<GraphTask>> tasks = ExtractTasks(*graph);
    if (!tasks.ok()) {
      std::fprintf(stderr, "%s: %s\n", network.c_str(), std::string(tasks.status().message()).c_str());
      return 2;
    }
    int used = 0;
    for (const GraphTask& task : *tasks) {
      if (opt.max_tasks > 0 && used >= opt.max_tasks) break;
      absl::StatusOr<std::vector<Sketch>> sketches = GenerateSketches(task.dag, device);
      if (!sketches.ok()) continue;
      Rng rng(opt.seed + used);
      for (const State& state : SampleInitPopulation(*sketches, device, opt.per_task, rng)) {
        absl::StatusOr<Program> program = Lower(state, device);
        if (!program.ok()) continue;
        programs.push_back(*std::move(program));
        labels.push_back(absl::StrCat(network, " ", task.name));
      }
      ++used;
    }
    std::printf("%s: %d tasks, %zu programs so far\n", network.c_str(), used, programs.size());
  }

  std::vector<double> gcc, llvm, ratio;
  std::string gcc_error, llvm_error;
  int gcc_failed = 0, llvm_failed = 0;
  const auto start = Clock::now();
  for (size_t i = 0; i < programs.size(); ++i) {
    // Alternate the order so that neither backend always builds second.
    const bool gcc_first = i % 2 == 0;
    double g = 0, l = 0;
    if (gcc_first) g = TimeBuild(programs[i], CpuBackend::kGcc, dir, &gcc_error);
    l = TimeBuild(programs[i], CpuBackend::kLlvm, dir, &llvm_error);
    if (!gcc_first) g = TimeBuild(programs[i], CpuBackend::kGcc, dir, &gcc_error);
    if (g < 0) ++gcc_failed;
    if (l < 0) ++llvm_failed;
    if (g >= 0) gcc.push_back(g);
    if (l >= 0) llvm.push_back(l);
    if (g >= 0 && l > 0) ratio.push_back(g / l);
    if ((i + 1) % 25 == 0 || i + 1 == programs.size()) {
      std::printf("  %zu/%zu built by both (%.0f s)\n", i + 1, programs.size(),
                  std::chrono::duration<double>(Clock::now() - start).count());
    }
  }
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);

  const Stats gs = Summarize(gcc);
  const Stats ls = Summarize(llvm);
  const Stats rs = Summarize(ratio);
  std::printf("\nseconds per candidate, one build at a time (%zu programs):\n", programs.size());
  std::printf("  %-34s %9s %9s %9s %9s %7s\n", "backend", "median", "p95", "mean", "max", "failed");
  std::printf("  %-34s %9.4f %9.4f %9.4f %9.4f %7d%s\n", "g++ -O3 -march=native (process)",
              gs.median, gs.p95, gs.mean, gs.max, gcc_failed,
              gcc_error.empty() ? "" : absl::StrCat("  first: ", gcc_error).c_str());
  std::printf("  %-34s %9.4f %9.4f %9.4f %9.4f %7d%s\n", "LLVM -O3 in process + JIT",
              ls.median, ls.p95, ls.mean, ls.max, llvm_failed,
              llvm_error.empty() ? "" : absl::StrCat("  first: ", llvm_error).c_str());
  auto div = [](double a, double b) { return b > 0 ? a / b : 0.0; };
  std::printf("  g++ / LLVM: median %.1fx, p95 %.1fx, mean %.1fx; per program: median %.1fx, "
              "min %.1fx\n",
              div(gs.median, ls.median), div(gs.p95, ls.p95), div(gs.mean, ls.mean), rs.median,
              ratio.empty() ? 0.0 : *std::min_element(ratio.begin(), ratio.end()));
  const double load = LoadAverage();
  std::printf("load average at end %.2f%s\n", load, load > 1.5 ? " (NOISY)" : "");
  std::printf(
      "RESULT compile programs=%zu gcc_median_s=%.4f gcc_p95_s=%.4f gcc_mean_s=%.4f "
      "llvm_median_s=%.4f llvm_p95_s=%.4f llvm_mean_s=%.4f median_speedup=%.2f p95_speedup=%.2f "
      "mean_speedup=%.2f per_program_median_speedup=%.2f gcc_failed=%d llvm_failed=%d load=%.2f\n",
      programs.size(), gs.median, gs.p95, gs.mean, ls.median, ls.p95, ls.mean,
      div(gs.median, ls.median), div(gs.p95, ls.p95), div(gs.mean, ls.mean), rs.median,
      gcc_failed, llvm_failed, load);
  return 0;
}

}  // namespace
}  // namespace pruner::bench

int main(int argc, char** argv) { return pruner::bench::Main(argc, argv); }
