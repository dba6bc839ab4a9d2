// How Pruner's drafter ranks the schedules the tuners found. Reads a
// bench_search_efficiency state directory (--state-dir) and, per workload,
// scores every run's improvements (each schedule that became some run's
// best, with the tuner's own time) with LSE as a draft-then-verify job of
// those settings drafts: the local CPU limited to the runs' kernel threads
// (WithThreadLimit), the calibrated analyzer with default constants. Prints
// the schedules fastest first with LSE's estimate and its rank among them,
// the Spearman of estimate against measured time, and where LSE puts each
// run's final best. A drafter that ranks the fastest schedules low keeps
// the search away from them: this is how to tell. Run by hand:
//   build/bench/search_efficiency/bench_drafter_probe --state-dir DIR [--workload I] [--all]
//       [--explain K] [--constants "chain_step=4 ..."]
// Ends with "RESULT drafter_probe runs=N spearman_w0=… …" (one per workload
// shown). --all lists every improvement; by default the 12 fastest and each run's
// final. --explain K prints the lowered program and LSE's rows of the K-th
// fastest (with --workload). --constants prices the issue model with
// other constants (names left out keep the defaults).
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "bench/search_efficiency/run_trace_json.h"
#include "bench/search_efficiency/workload_set.h"
#include "common/analysis/analyzer_options.h"
#include "common/analysis/symbol_analyzer.h"
#include "common/base/rank_correlation.h"
#include "common/device/device_profile.h"
#include "common/device/thread_limit.h"
#include "common/lower/lower.h"
#include "common/schedule/step.h"
#include <nlohmann/json.hpp>

namespace pruner::bench {
namespace {

// One schedule some run kept as its best, with LSE's view of it.
struct Found {
  std::string run;  // "strategy/seed"
  int point = 0;
  double self_s = 0;
  double lse_s = 0;  // 0: did not replay or lower
  bool final = false;
  std::string sentence;
};

int Main(int argc, char** argv) {
  std::string dir;
  int only = -1;
  bool all = false;
  int explain = 0;
  CpuIssueConstants constants;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--state-dir") && i + 1 < argc) {
      dir = argv[++i];
    } else if (!std::strcmp(argv[i], "--workload") && i + 1 < argc) {
      only = std::atoi(argv[++i]);
    } else if (!std::strcmp(argv[i], "--explain") && i + 1 < argc) {
      explain = std::atoi(argv[++i]);
    } else if (!std::strcmp(argv[i], "--constants") && i + 1 < argc) {
      auto parsed = CpuIssueConstants::Parse(argv[++i]);
      if (!parsed.ok()) {
        std::fprintf(stderr, "--constants: %s\n", std::string(parsed.status().message()).c_str());
        return 2;
      }
      constants = *parsed;
    } else if (!std::strcmp(argv[i], "--all")) {
      all = true;
    } else {
      std::fprintf(stderr, "usage: %s --state-dir DIR [--workload I] [--all] [--explain K] "
                   "[--constants TEXT]\n",
                   argv[0]);
      return 2;
    }
  }
  if (dir.empty()) {
    std::fprintf(stderr, "--state-dir is required\n");
    return 2;
  }
  const nlohmann::json settings =
      nlohmann::json::parse(ReadStateFile(dir + "/settings.json"), nullptr,
                            /*allow_exceptions=*/false);
  if (settings.is_discarded() || !settings.contains("workloads")) {
    std::fprintf(stderr, "%s/settings.json: not a bench_search_efficiency state\n", dir.c_str());
    return 1;
  }
  const int threads = settings.value("threads", 1);
  auto tasks = ParseWorkloads(settings["workloads"].get<std::string>());
  if (!tasks.ok()) {
    std::fprintf(stderr, "workloads: %s\n", std::string(tasks.status().message()).c_str());
    return 1;
  }
  auto local = GetDeviceProfile("cpu");
  if (!local.ok()) return 1;
  const DeviceProfile device = WithThreadLimit(WithStableCpuKey(*local), threads);
  auto analyzer = SymbolAnalyzer::Create(device, AnalyzerOptions::Calibrated(constants));
  if (!analyzer.ok()) {
    std::fprintf(stderr, "analyzer: %s\n", std::string(analyzer.status().message()).c_str());
    return 1;
  }

  std::vector<RunTrace> runs;
  std::vector<std::string> paths;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("run_", 0) == 0 && entry.path().extension() == ".json") {
      paths.push_back(entry.path().string());
    }
  }
  std::sort(paths.begin(), paths.end());
  for (const std::string& p : paths) {
    auto run = RunTraceFromJson(ReadStateFile(p));
    if (run.ok()) runs.push_back(*std::move(run));
  }
  std::printf("%zu runs in %s; LSE drafts for %s on %d of %d threads; constants %s\n\n",
              runs.size(), dir.c_str(), device.name.c_str(), device.num_cores, local->num_cores,
              constants.ToString().c_str());

  std::string result = absl::StrCat("RESULT drafter_probe runs=", runs.size());
  for (size_t w = 0; w < tasks->size(); ++w) {
    if (only >= 0 && static_cast<int>(w) != only) continue;
    const SearchTask& task = (*tasks)[w];
    std::vector<Found> found;
    std::set<std::string> seen;
    for (const RunTrace& run : runs) {
      if (w >= run.improvements.size()) continue;
      const auto& list = run.improvements[w];
      for (size_t k = 0; k < list.size(); ++k) {
        const Improvement& imp = list[k];
        if (!seen.insert(imp.sentence).second) continue;
        Found f{absl::StrCat(run.strategy, "/", run.seed), imp.point, imp.self_s, 0,
                k + 1 == list.size(), imp.sentence};
        auto steps = ParseSteps(imp.sentence);
        if (steps.ok()) {
          auto state = State::Replay(task.dag, *steps);
          if (state.ok()) {
            auto program = Lower(*state, device);
            if (program.ok()) {
              auto est = analyzer->EstimateLatency(*program);
              if (est.ok()) f.lse_s = *est;
            }
          }
        }
        found.push_back(std::move(f));
      }
    }
    std::sort(found.begin(), found.end(),
              [](const Found& a, const Found& b) { return a.self_s < b.self_s; });
    std::vector<double> self, lse;
    for (const Found& f : found) {
      if (f.lse_s <= 0) continue;
      self.push_back(f.self_s);
      lse.push_back(f.lse_s);
    }
    const std::vector<double> lse_rank = AverageRanks(lse);
    absl::StrAppend(&result, " spearman_w", w, "=",
                    absl::StrFormat("%.3f", SpearmanCorrelation(self, lse)));
    std::printf("workload %zu %s: %zu distinct schedules, Spearman(LSE, measured) %.3f\n", w,
                task.name.c_str(), found.size(), SpearmanCorrelation(self, lse));
    std::printf("  %4s %-16s %5s %10s %10s %8s  %s\n", "rank", "run", "round", "self ms",
                "LSE ms", "LSE rank", "sentence");
    size_t scored = 0;
    for (size_t i = 0; i < found.size(); ++i) {
      const Found& f = found[i];
      const bool shown = all || i < 12 || f.final;
      std::string rank = "-";
      if (f.lse_s > 0) rank = absl::StrCat(static_cast<int>(lse_rank[scored++]) + 1);
      if (!shown) continue;
      std::printf("  %4zu %-16s %5d %10.4f %10.4f %8s  %s%s\n", i + 1, f.run.c_str(), f.point + 1,
                  f.self_s * 1e3, f.lse_s * 1e3, rank.c_str(), f.final ? "[final] " : "",
                  f.sentence.c_str());
    }
    std::printf("\n");
    if (explain >= 1 && explain <= static_cast<int>(found.size())) {
      const Found& f = found[explain - 1];
      absl::StatusOr<LatencyEstimate> est = absl::NotFoundError("did not replay or lower");
      absl::StatusOr<Program> program = absl::NotFoundError("did not replay");
      if (auto steps = ParseSteps(f.sentence); steps.ok()) {
        if (auto state = State::Replay(task.dag, *steps); state.ok()) {
          program = Lower(*state, device);
          if (program.ok()) est = analyzer->Analyze(*program);
        }
      }
      if (!est.ok()) {
        std::printf("schedule %d: %s\n", explain, std::string(est.status().message()).c_str());
      } else {
        std::printf("schedule %d (%s, %.4f ms measured):\n%s\n%s\n%s\n", explain,
                    f.run.c_str(), f.self_s * 1e3, f.sentence.c_str(),
                    program->ToString().c_str(), est->ToString(*program).c_str());
        // The CPU issue model's counts, which decide the estimate.
        for (const BufferSymbols& row : est->symbols.rows) {
          const IssueCycles cycles = CpuIssueCycles(row, analyzer->options().cpu_issue);
          std::printf("%s issue: lanes=%g statements=%g loads=%g gathered=%g stores=%g "
                      "loop_iterations=%g chain_steps=%g l1_lines=%g l2_lines=%g dram_elements=%g -> compute "
                      "%g + memory %g cycles\n",
                      program->buffer(row.buffer).name.c_str(), row.issue_lanes,
                      row.issue_statements, row.issue_loads, row.issue_gathered_lanes,
                      row.issue_stores, row.issue_loop_iterations, row.issue_chain_steps,
                      row.issue_l1_lines,
                      row.issue_l2_lines, row.issue_dram_elements, cycles.compute,
                      cycles.memory);
        }
      }
    }
  }
  std::printf("%s\n", result.c_str());
  return 0;
}

}  // namespace
}  // namespace pruner::bench

int main(int argc, char** argv) { return pruner::bench::Main(argc, argv); }
