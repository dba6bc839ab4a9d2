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
//                      [--seed 1] [--max-tasks 0] [--llvm-phases] [--opt-level 3]
//                      [--dump-ir DIR] [--llvm-default-pipeline]
//                      [--kernel-check N]
//
// --llvm-phases skips g++ and splits each LLVM compile into its phases
// (IR emission, the optimization pipeline, machine code; no JIT link) at
// --opt-level, to see where the in-process compiler spends its time;
// --dump-ir DIR also writes each program's IR before optimization to
// DIR/<index>.ll (for opt-15/llc-15 -time-passes); --llvm-default-pipeline
// optimizes with LLVM's own -O3 pipeline instead of the backend's kernel
// pipeline (cpu_llvm_pipeline.h).
//
// --kernel-check N asks whether the kernel pipeline's kernels are as fast as
// LLVM -O3's: N of the programs, spread over the list, are each compiled
// both ways, JIT-loaded, checked against the reference executor and timed
// interleaved; per program the time ratio kernel pipeline / LLVM -O3.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "bench/inprocess_kernel.h"
#include "common/measure/interleaved_timing.h"
#include "common/base/status_macros.h"
#include "common/codegen/cpu_build.h"
#include "common/codegen/cpu_llvm_codegen.h"
#include "common/codegen/cpu_llvm_jit.h"
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
  bool llvm_phases = false;
  int opt_level = 3;
  std::string dump_ir;
  bool llvm_default_pipeline = false;
  int kernel_check = 0;
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

// The --llvm-phases mode: every program compiled by CompileCpuProgramLlvm
// alone, with the medians of its phases.
int LlvmPhases(const std::vector<Program>& programs, const Options& opt) {
  const int opt_level = opt.opt_level;
  const std::string& dump_ir = opt.dump_ir;
  LlvmCpuTarget target;
  target.opt_level = opt_level;
  target.llvm_default_pipeline = opt.llvm_default_pipeline;
  std::vector<double> total, emit, optimize, codegen;
  std::vector<int64_t> instructions;
  int failed = 0;
  std::string first_error;
  if (!dump_ir.empty()) std::filesystem::create_directories(dump_ir);
  for (size_t i = 0; i < programs.size(); ++i) {
    const Program& program = programs[i];
    if (!dump_ir.empty()) {
      absl::StatusOr<std::string> ir = CpuProgramLlvmIr(program, target, /*optimized=*/false);
      if (ir.ok()) {
        std::ofstream(absl::StrCat(dump_ir, "/", i, ".ll")) << *ir;
      }
    }
    absl::StatusOr<LlvmCpuObject> object = CompileCpuProgramLlvm(program, target);
    if (!object.ok()) {
      if (failed++ == 0) first_error = std::string(object.status().message()).substr(0, 200);
      continue;
    }
    total.push_back(object->compile_seconds);
    emit.push_back(object->emit_seconds);
    optimize.push_back(object->optimize_seconds);
    codegen.push_back(object->codegen_seconds);
    instructions.push_back(object->ir_instructions);
  }
  auto sum = [](const std::vector<double>& v) {
    double s = 0;
    for (double x : v) s += x;
    return s;
  };
  const Stats t = Summarize(total), e = Summarize(emit), o = Summarize(optimize),
              c = Summarize(codegen);
  std::printf("\nLLVM -O%d (%s pipeline) phases, seconds per candidate (%zu programs, %d refused%s):\n",
              opt_level, opt.llvm_default_pipeline ? "LLVM's" : "kernel", total.size(), failed,
              first_error.empty() ? "" : absl::StrCat(", first: ", first_error).c_str());
  std::printf("  %-12s %9s %9s %9s %9s %7s\n", "phase", "median", "p95", "mean", "max", "share");
  const double all = sum(total);
  auto row = [&](const char* name, const Stats& s, const std::vector<double>& v) {
    std::printf("  %-12s %9.4f %9.4f %9.4f %9.4f %6.1f%%\n", name, s.median, s.p95, s.mean,
                s.max, all > 0 ? 100.0 * sum(v) / all : 0.0);
  };
  row("emit", e, emit);
  row("optimize", o, optimize);
  row("codegen", c, codegen);
  row("total", t, total);
  std::sort(instructions.begin(), instructions.end());
  const int64_t median_instructions = instructions.empty() ? 0 : instructions[instructions.size() / 2];
  std::printf("RESULT compile_phases programs=%zu opt_level=%d pipeline=%s median_s=%.4f p95_s=%.4f mean_s=%.4f "
              "emit_share=%.3f optimize_share=%.3f codegen_share=%.3f median_ir_instructions=%lld "
              "refused=%d load=%.2f\n",
              total.size(), opt_level, opt.llvm_default_pipeline ? "llvm" : "kernel", t.median, t.p95, t.mean, all > 0 ? sum(emit) / all : 0.0,
              all > 0 ? sum(optimize) / all : 0.0, all > 0 ? sum(codegen) / all : 0.0,
              static_cast<long long>(median_instructions), failed, LoadAverage());
  return 0;
}

// A JIT-loaded kernel of `program` built with one of the two pipelines.
absl::StatusOr<BuiltModule> BuildWithPipeline(const Program& program, bool llvm_default,
                                              double* compile_seconds) {
  LlvmCpuTarget target;
  target.llvm_default_pipeline = llvm_default;
  PRUNER_ASSIGN_OR_RETURN(LlvmCpuObject object, CompileCpuProgramLlvm(program, target));
  *compile_seconds = object.compile_seconds;
  BuiltModule module;
  module.symbol = object.symbol;
  PRUNER_ASSIGN_OR_RETURN(module.jit, LoadCpuObject(object));
  return module;
}

int KernelCheck(const std::vector<Program>& programs,
                const std::vector<std::shared_ptr<const ComputeDag>>& dags,
                const std::vector<std::string>& labels, int n) {
  std::printf("\nkernel pipeline against LLVM -O3: %d of %zu programs, checked, timed interleaved\n",
              n, programs.size());
  std::printf("  %-60s %9s %9s %10s %10s %7s\n", "program", "build k", "build O3", "ms k",
              "ms O3", "k/O3");
  std::map<const ComputeDag*, Workload> workloads;
  const size_t step = std::max<size_t>(1, programs.size() / static_cast<size_t>(n));
  std::vector<double> ratios;
  int wrong = 0, failed = 0;
  double build_kernel = 0, build_default = 0;
  InterleaveOptions timing;
  timing.rounds = 7;
  timing.calls_per_round = 1;
  timing.warmup = 1;
  for (size_t i = 0; i < programs.size() && ratios.size() + wrong + failed < static_cast<size_t>(n);
       i += step) {
    auto it = workloads.find(dags[i].get());
    if (it == workloads.end()) {
      it = workloads.emplace(dags[i].get(), MakeWorkloadFromDag(labels[i], dags[i])).first;
    }
    const Workload& w = it->second;
    double sk = 0, sd = 0;
    absl::StatusOr<BuiltModule> mk = BuildWithPipeline(programs[i], false, &sk);
    absl::StatusOr<BuiltModule> md = BuildWithPipeline(programs[i], true, &sd);
    if (!mk.ok() || !md.ok()) {
      ++failed;
      std::printf("  %-60s build failed: %s\n", labels[i].substr(0, 60).c_str(),
                  std::string((mk.ok() ? md : mk).status().message()).substr(0, 120).c_str());
      continue;
    }
    absl::StatusOr<ReadyKernel> rk = ReadyKernel::Load(*mk, programs[i], w);
    absl::StatusOr<ReadyKernel> rd = ReadyKernel::Load(*md, programs[i], w);
    if (!rk.ok() || !rd.ok()) {
      ++wrong;
      std::printf("  %-60s %s: %s\n", labels[i].substr(0, 60).c_str(),
                  rk.ok() ? "LLVM -O3" : "kernel pipeline",
                  std::string((rk.ok() ? rd : rk).status().message()).substr(0, 120).c_str());
      continue;
    }
    build_kernel += sk;
    build_default += sd;
    const std::vector<InterleavedTimes> times =
        TimeInterleaved({{"kernel", [&] { rk->Call(); }}, {"llvm-O3", [&] { rd->Call(); }}}, timing);
    const double ratio = times[0].median_s / times[1].median_s;
    ratios.push_back(ratio);
    std::printf("  %-60s %9.4f %9.4f %10.3f %10.3f %7.3f\n", labels[i].substr(0, 60).c_str(), sk,
                sd, 1e3 * times[0].median_s, 1e3 * times[1].median_s, ratio);
  }
  double log_sum = 0;
  int slower = 0;
  for (double r : ratios) {
    log_sum += std::log(r);
    if (r > 1.05) ++slower;
  }
  const double geomean = ratios.empty() ? 0.0 : std::exp(log_sum / static_cast<double>(ratios.size()));
  const double worst = ratios.empty() ? 0.0 : *std::max_element(ratios.begin(), ratios.end());
  const double best = ratios.empty() ? 0.0 : *std::min_element(ratios.begin(), ratios.end());
  std::printf("time kernel pipeline / LLVM -O3: geometric mean %.3f, best %.3f, worst %.3f, "
              "%d of %zu more than 5%% slower; build seconds %.2f against %.2f\n",
              geomean, best, worst, slower, ratios.size(), build_kernel, build_default);
  std::printf("RESULT kernel_pipeline programs=%zu geomean_time_ratio=%.3f best_time_ratio=%.3f "
              "worst_time_ratio=%.3f slower_5pct=%d wrong=%d failed=%d build_ratio=%.3f load=%.2f\n",
              ratios.size(), geomean, best, worst, slower, wrong, failed,
              build_default > 0 ? build_kernel / build_default : 0.0, LoadAverage());
  return wrong > 0 ? 1 : 0;
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
    } else if (!std::strcmp(argv[i], "--llvm-phases")) {
      opt.llvm_phases = true;
    } else if (!std::strcmp(argv[i], "--opt-level")) {
      opt.opt_level = std::clamp(std::atoi(next("--opt-level")), 0, 3);
    } else if (!std::strcmp(argv[i], "--dump-ir")) {
      opt.dump_ir = next("--dump-ir");
    } else if (!std::strcmp(argv[i], "--llvm-default-pipeline")) {
      opt.llvm_default_pipeline = true;
    } else if (!std::strcmp(argv[i], "--kernel-check")) {
      opt.kernel_check = std::max(1, std::atoi(next("--kernel-check")));
    } else {
      std::fprintf(stderr,
                   "usage: %s [--networks resnet-50,bert-tiny] [--per-task 4] [--seed 1] "
                   "[--max-tasks 0] [--llvm-phases] [--opt-level 3] [--dump-ir DIR] "
                   "[--llvm-default-pipeline] [--kernel-check N]\n",
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
  std::vector<std::shared_ptr<const ComputeDag>> dags;
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
        dags.push_back(task.dag);
      }
      ++used;
    }
    std::printf("%s: %d tasks, %zu programs so far\n", network.c_str(), used, programs.size());
  }

  if (opt.llvm_phases) return LlvmPhases(programs, opt);
  if (opt.kernel_check > 0) return KernelCheck(programs, dags, labels, opt.kernel_check);

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
