// bench_tune: the tuning loop end to end on this CPU (issue 4).
//
// Tunes dense 1024^3 (W stored [N,K]) and conv2d (1,64,56,56)x(64,64,3,3)
// fp32, one TuningJob each with the chosen strategy (Ansor's evolutionary
// search guided by XGBoost by default) for --trials trials, printing one
// line of the tuning curve per round with where that round's time went.
//
// Then the final figures. The tuner's own best times were taken minutes
// apart, in sandbox children, while the machine's other tenants came and
// went; on these shared machines one kernel's time drifts by up to ~45%
// over minutes, so neither they nor a library time taken at another moment
// compare. So the top --finalists distinct records of each job are rebuilt
// in this process, checked against the reference, and timed interleaved
// with the library (OpenBLAS sgemm NT / oneDNN convolution) for --repeats
// rounds; the ratio is best finalist median / library median (and the same
// with minimums).
//
// Process rule: tuning forks sandbox children (from the measurer's own
// thread); the re-measurement runs OpenMP kernels in the main thread. So
// every job and the measurer are gone before the first in-process kernel
// runs, and nothing forks after it.
//
// Last, the Pruner paper's Table 1: how the tuning wall time split into
// search, model training, building, running and the database.
//
// Usage: bench_tune [--trials N] [--per-round N] [--strategy S] [--population N]
//                   [--finalists N] [--repeats N] [--db PATH] [--keep-db]
//                   [--only dense|conv] [--quick] [--backend llvm|gcc]
//                   [--hopeless-factor F]
#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "bench/inprocess_kernel.h"
#include "common/measure/interleaved_timing.h"
#include "bench/measure_baselines.h"
#include "bench/tune_phase.h"
#include "common/base/status_macros.h"
#include "common/device/device_profile.h"
#include "common/schedule/state.h"
#include "common/schedule/step.h"

namespace pruner::bench {
namespace {

struct Options {
  TuneSettings tune;
  int finalists = 5;
  int repeats = 30;
  std::string db;  // empty: a temporary file
  bool keep_db = false;
  std::string only;  // "", "dense" or "conv"
};

// ---- Re-measurement ---------------------------------------------------------

struct Remeasured {
  std::string label;
  std::string sentence;     // empty for the library
  double tuned_s = 0;       // the tuner's own mean (0 for the library)
  InterleavedTimes times;
};

struct FinalReport {
  std::vector<Remeasured> rows;  // finalists (best median first), then the library
  std::string library_name;
  std::string library_error;
  double best_gflops = 0;     // best finalist, median
  double best_gflops_min = 0;  // best finalist, minimum
  double library_gflops = 0;  // median
  double library_gflops_min = 0;
  double library_alone_gflops = 0;  // before the interleaving, best call
  double seconds = 0;
};

// A finalist rebuilt from its sentence, checked and loaded.
absl::StatusOr<ReadyKernel> Rebuild(const Workload& w, const std::string& sentence,
                                    const DeviceProfile& device, const CpuBuildOptions& build,
                                    const std::string& dir) {
  PRUNER_ASSIGN_OR_RETURN(std::vector<Step> steps, ParseSteps(sentence));
  PRUNER_ASSIGN_OR_RETURN(State state, State::Replay(w.dag, steps));
  const Candidate c = Prepare(state, device, "");
  PRUNER_ASSIGN_OR_RETURN(BuiltModule mod, BuildCandidate(c, build, dir));
  absl::StatusOr<ReadyKernel> kernel = ReadyKernel::Load(mod, *c.program, w);
  // dlopen keeps the mapping; the file is no longer needed.
  std::error_code ec;
  std::filesystem::remove(mod.path, ec);
  return kernel;
}

FinalReport Remeasure(const Workload& w, const TuneOutcome& tuned, LibraryKernel library,
                      const DeviceProfile& device, const CpuBuildOptions& build,
                      const std::string& dir, int repeats) {
  FinalReport rep;
  auto t0 = Clock::now();
  std::vector<ReadyKernel> kernels;
  std::vector<Contender> contenders;
  for (size_t i = 0; i < tuned.finalists.size(); ++i) {
    const Finalist& f = tuned.finalists[i];
    absl::StatusOr<ReadyKernel> k = Rebuild(w, f.sentence, device, build, dir);
    if (!k.ok()) {
      std::printf("  finalist %zu skipped: %s\n", i + 1,
                  std::string(k.status().message()).substr(0, 300).c_str());
      continue;
    }
    kernels.push_back(*std::move(k));
    rep.rows.push_back({absl::StrCat("finalist ", i + 1), f.sentence, f.tuned_s, {}});
  }
  // Calls go through pointers into `kernels`, which no longer grows.
  for (size_t i = 0; i < kernels.size(); ++i) {
    const ReadyKernel* k = &kernels[i];
    contenders.push_back({rep.rows[i].label, [k] { k->Call(); }});
  }
  rep.library_name = library.available ? library.name : "library";
  if (library.available) {
    // Timed alone first (best call over >= 1 s), which also checks its
    // output: the one library figure that is not interleaved, printed for
    // comparison with bench_measure.
    const BaselineResult alone = TimeLibraryKernel(library, 10);
    const Measured check = CheckBaseline(alone, w);
    rep.library_alone_gflops = check.ok ? check.gflops : 0;
    if (check.ok) {
      contenders.push_back({library.name, library.call});
      rep.rows.push_back({library.name, "", 0, {}});
    } else {
      rep.library_error = check.error;
    }
  } else {
    rep.library_error = library.error;
  }
  if (contenders.empty()) return rep;

  InterleaveOptions io;
  io.rounds = repeats;
  std::vector<InterleavedTimes> times = TimeInterleaved(contenders, io);
  for (size_t i = 0; i < times.size(); ++i) rep.rows[i].times = times[i];
  const bool has_library = rep.library_error.empty();
  const size_t n_finalists = kernels.size();
  std::sort(rep.rows.begin(), rep.rows.begin() + n_finalists,
            [](const Remeasured& a, const Remeasured& b) {
              return a.times.median_s < b.times.median_s;
            });
  auto gflops = [&](double s) { return s > 0 ? w.flops / s / 1e9 : 0.0; };
  if (n_finalists > 0) {
    rep.best_gflops = gflops(rep.rows[0].times.median_s);
    double best_min = 1e30;
    for (size_t i = 0; i < n_finalists; ++i) best_min = std::min(best_min, rep.rows[i].times.min_s);
    rep.best_gflops_min = gflops(best_min);
  }
  if (has_library) {
    rep.library_gflops = gflops(rep.rows.back().times.median_s);
    rep.library_gflops_min = gflops(rep.rows.back().times.min_s);
  }
  rep.seconds = Since(t0);
  return rep;
}

double Ratio(double a, double b) { return b > 0 ? a / b : 0.0; }

void PrintFinal(const Workload& w, const FinalReport& rep, int repeats) {
  std::printf("\n%s re-measured in process: %d interleaved rounds, each the best of >= 3 calls "
              "and >= 20 ms (%.1f s)\n", w.name.c_str(), repeats, rep.seconds);
  std::printf("  %-58s %10s %10s %9s %10s %9s %8s\n", "", "tuned ms", "median ms", "GFLOP/s",
              "min ms", "GFLOP/s", "vs lib");
  const double lib_median_s = rep.library_gflops > 0 ? w.flops / rep.library_gflops / 1e9 : 0;
  for (const Remeasured& r : rep.rows) {
    const std::string label = r.label.size() > 58 ? r.label.substr(0, 55) + "..." : r.label;
    const std::string tuned = r.tuned_s > 0 ? absl::StrFormat("%.3f", r.tuned_s * 1e3) : "-";
    std::printf("  %-58s %10s %10.3f %9.1f %10.3f %9.1f", label.c_str(), tuned.c_str(),
                r.times.median_s * 1e3, w.flops / r.times.median_s / 1e9, r.times.min_s * 1e3,
                w.flops / r.times.min_s / 1e9);
    if (lib_median_s > 0) std::printf(" %7.1f%%", 100 * lib_median_s / r.times.median_s);
    std::printf("\n");
  }
  if (!rep.library_error.empty()) {
    std::printf("  %s: not measured: %s\n", rep.library_name.c_str(), rep.library_error.c_str());
  } else {
    std::printf("  (the library alone just before, best call over 1 s: %.1f GFLOP/s)\n",
                rep.library_alone_gflops);
  }
  if (!rep.rows.empty() && !rep.rows[0].sentence.empty()) {
    std::printf("  best finalist: %s\n", rep.rows[0].sentence.c_str());
  }
  std::printf("  => best finalist %.1f GFLOP/s vs library %.1f GFLOP/s: %.3f (medians), "
              "%.3f (minimums)\n", rep.best_gflops, rep.library_gflops,
              Ratio(rep.best_gflops, rep.library_gflops),
              Ratio(rep.best_gflops_min, rep.library_gflops_min));
}

// ---- Flags ------------------------------------------------------------------

void Usage(const char* argv0) {
  std::fprintf(stderr,
               "usage: %s [--trials N] [--per-round N] [--strategy S] [--population N]\n"
               "          [--finalists N] [--repeats N] [--db PATH] [--keep-db]\n"
               "          [--only dense|conv] [--quick] [--backend llvm|gcc]\n"
               "          [--hopeless-factor F]\n", argv0);
}

bool ParseFlags(int argc, char** argv, Options* opt) {
  bool quick = false;
  std::set<std::string> given;
  for (int i = 1; i < argc; ++i) {
    auto next = [&]() -> const char* {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", argv[i]);
        std::exit(2);
      }
      given.insert(argv[i]);
      return argv[++i];
    };
    const std::string a = argv[i];
    if (a == "--trials") opt->tune.trials = std::atoll(next());
    else if (a == "--per-round") opt->tune.per_round = std::atoi(next());
    else if (a == "--strategy") opt->tune.strategy = next();
    else if (a == "--population") opt->tune.population = std::atoi(next());
    else if (a == "--finalists") opt->finalists = std::max(1, std::atoi(next()));
    else if (a == "--repeats") opt->repeats = std::max(1, std::atoi(next()));
    else if (a == "--db") opt->db = next();
    else if (a == "--keep-db") opt->keep_db = true;
    else if (a == "--only") opt->only = next();
    else if (a == "--hopeless-factor") opt->tune.hopeless_factor = std::atof(next());
    else if (a == "--quick") quick = true;
    else if (a == "--backend") {
      std::optional<CpuBackend> backend = ParseCpuBackend(next());
      if (!backend) return false;
      opt->tune.backend = *backend;
    }
    else return false;
  }
  if (!opt->only.empty() && opt->only != "dense" && opt->only != "conv") return false;
  // A smoke run: a few rounds, so the curve, the model's training and the
  // re-measurement all show, in a few minutes. Explicit flags still win.
  if (quick) {
    if (!given.count("--trials")) opt->tune.trials = 64;
    if (!given.count("--per-round")) opt->tune.per_round = 16;
    if (!given.count("--population")) opt->tune.population = 256;
    if (!given.count("--finalists")) opt->finalists = 3;
    if (!given.count("--repeats")) opt->repeats = 10;
  }
  return true;
}

std::atomic<bool> g_stop{false};
void OnSignal(int) { g_stop.store(true); }

// ---- Main -------------------------------------------------------------------

int Main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // progress shows when piped to a file
  auto t_start = Clock::now();
  Options opt;
  if (!ParseFlags(argc, argv, &opt)) {
    Usage(argv[0]);
    return 2;
  }
  if (absl::Status st = ValidateTuningOptions(MakeTuningOptions(opt.tune)); !st.ok()) {
    std::fprintf(stderr, "%s\n", std::string(st.message()).c_str());
    return 2;
  }
  absl::StatusOr<DeviceProfile> device = GetDeviceProfile("cpu");
  if (!device.ok()) {
    std::fprintf(stderr, "device: %s\n", std::string(device.status().message()).c_str());
    return 1;
  }
  const bool temp_db = opt.db.empty();
  if (temp_db) opt.db = MakeWorkDir("pruner_bench_tune") + "/records.db";
  const double load_start = LoadAverage();
  std::printf("bench_tune: %s, %u hardware threads, load average %.2f at start%s\n",
              device->description.c_str(), std::thread::hardware_concurrency(), load_start,
              load_start > 0.5 ? " (NOISY: other work is running; numbers may be low)" : "");
  std::printf("backend %s, strategy %s, hopeless factor %g, %lld trials per workload, %d per round, "
              "population %d, %d finalists x %d interleaved rounds, db %s\n\n",
              CpuBackendName(opt.tune.backend), opt.tune.strategy.c_str(), opt.tune.hopeless_factor,
              static_cast<long long>(opt.tune.trials),
              opt.tune.per_round, opt.tune.population, opt.finalists, opt.repeats,
              opt.db.c_str());

  std::vector<TuneRequest> specs;
  if (opt.only != "conv") specs.push_back({"dense", "dense:M=1024,K=1024,N=1024"});
  if (opt.only != "dense") {
    specs.push_back({"conv2d", "conv2d:N=1,C=64,H=56,W=56,K=64,R=3,S=3,stride=1,pad=1"});
  }

  // ---- Phase 1: tuning (sandbox children are forked; no kernel runs here).
  std::signal(SIGINT, OnSignal);
  std::signal(SIGTERM, OnSignal);
  // TuneAll's store, jobs and measurer thread are gone when it returns.
  const std::vector<TuneOutcome> tuned =
      TuneAll(specs, *device, opt.tune, opt.db, opt.finalists, &g_stop);
  // A second Ctrl-C ends the benchmark.
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);

  // ---- Phase 2: in-process re-measurement (OpenMP in this thread; no forks).
  // First the machine's fp32 FMA peak, the ceiling the ratios below use.
  const FmaPeak peak = MeasureFmaPeak(static_cast<int>(std::thread::hardware_concurrency()), 1.0);
  std::printf("\nfp32 FMA peak (measured, all hardware threads): %.1f GFLOP/s\n", peak.gflops);
  const std::string dir = MakeWorkDir("pruner_bench_tune_build");
  const CpuBuildOptions build = MakeTuningOptions(opt.tune).measure.build;
  std::vector<FinalReport> finals;
  for (size_t i = 0; i < specs.size(); ++i) {
    if (!tuned[i].ok) {
      finals.emplace_back();
      continue;
    }
    const Workload w = MakeWorkload(specs[i].name, specs[i].spec);
    LibraryKernel lib = specs[i].name == "dense"
                            ? PrepareOpenBlasSgemm(w.inputs[0], w.inputs[1], /*trans_b=*/true)
                            : PrepareOneDnnConv2d(w.inputs[0], w.inputs[1], 1, 1);
    finals.push_back(Remeasure(w, tuned[i], std::move(lib), *device, build, dir, opt.repeats));
    PrintFinal(w, finals.back(), opt.repeats);
  }
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);

  // ---- Where the tuning time went.
  std::printf("\n");
  const TimeTotals totals = PrintTimeBreakdown(tuned);

  if (temp_db && !opt.keep_db) {
    std::filesystem::remove_all(std::filesystem::path(opt.db).parent_path(), ec);
  } else {
    std::printf("records kept in %s\n", opt.db.c_str());
  }
  const double load_end = LoadAverage();
  std::printf("load average at end %.2f%s; whole benchmark %.0f s\n", load_end,
              load_end > 0.5 ? " (NOISY: other work was running)" : "", Since(t_start));

  static const FinalReport kNone;
  const FinalReport* dp = &kNone;
  const FinalReport* cp = &kNone;
  for (size_t i = 0; i < specs.size(); ++i) {
    (specs[i].name == "dense" ? dp : cp) = &finals[i];
  }
  const FinalReport& d = *dp;
  const FinalReport& c = *cp;
  int64_t trials = 0;
  for (const TuneOutcome& t : tuned) trials += t.trials;
  std::printf(
      "RESULT tune dense_gflops=%.1f openblas_gflops=%.1f dense_vs_openblas=%.3f "
      "dense_vs_openblas_min=%.3f conv_gflops=%.1f onednn_gflops=%.1f conv_vs_onednn=%.3f "
      "conv_vs_onednn_min=%.3f trials=%lld wall_s=%.1f search_frac=%.3f train_frac=%.3f "
      "build_frac=%.3f run_frac=%.3f db_frac=%.3f total_s=%.1f load=%.2f backend=%s "
      "peak_gflops=%.1f dense_vs_peak=%.3f conv_vs_peak=%.3f trials_per_hour=%.0f "
      "hopeless_factor=%g\n",
      d.best_gflops, d.library_gflops, Ratio(d.best_gflops, d.library_gflops),
      Ratio(d.best_gflops_min, d.library_gflops_min), c.best_gflops, c.library_gflops,
      Ratio(c.best_gflops, c.library_gflops), Ratio(c.best_gflops_min, c.library_gflops_min),
      static_cast<long long>(trials), totals.wall_s, totals.Frac(totals.time.search_s),
      totals.Frac(totals.time.train_s), totals.Frac(totals.BuildWall()),
      totals.Frac(totals.time.run_s), totals.Frac(totals.time.db_s), Since(t_start),
      std::max(load_start, load_end), CpuBackendName(opt.tune.backend), peak.gflops,
      Ratio(d.best_gflops, peak.gflops), Ratio(c.best_gflops, peak.gflops),
      totals.wall_s > 0 ? static_cast<double>(trials) / totals.wall_s * 3600 : 0.0,
      opt.tune.hopeless_factor);
  // Non-zero when a workload could not be tuned (an interrupt is not a failure).
  for (const TuneOutcome& t : tuned) {
    if (!t.ok && !t.interrupted) return 1;
  }
  return 0;
}

}  // namespace
}  // namespace pruner::bench

int main(int argc, char** argv) { return pruner::bench::Main(argc, argv); }
