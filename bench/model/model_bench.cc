// bench_model: whole models exported by PyTorch, compiled by Pruner, against
// PyTorch running the same model the fastest way a CPU user deploys it.
//
// For each model (ResNet-18, MobileNet-V2, a BERT-style encoder at sequence
// 128, batch 1; scripts/export_models.py --set bench writes them):
//   1. tune its tasks for --trials trials (0: skip) with `pruner tune` in
//      its own process, timed (--db: records already there count too);
//   2. compile it twice: default schedules only, and with the tuned records;
//   3. load both libraries through their C API, and PyTorch's frozen
//      TorchScript export with torch::jit::optimize_for_inference, all in
//      this process with the same thread count;
//   4. check every output against PyTorch's saved output;
//   5. time the three interleaved (common/measure/interleaved_timing.h): each visit
//      first settles (its calls uncounted) until the runtime that ran
//      before has gone quiet, then counts its calls. The figure is the
//      median over every counted call (the latency a user running the
//      model back to back sees); the median of each visit's best call
//      (the quiet-moment figure) is printed beside it. Before each round a
//      probe times a cache line's round trip between two threads
//      (common/measure/thread_round_trip.h), and the medians are printed
//      again for the rounds with the two vCPUs on separate L3s and for the
//      others (RESULT: *_split_rounds, *_split_l3_speedup,
//      *_shared_l3_speedup): on this project's VM that placement moves
//      ResNet-18's latency by a third.
// With several models, each runs in a process of its own (this binary again,
// one model): LibTorch timed the encoder 5-8x slower in some processes that
// had run the other two models first (bench/README.md, session 21), and a
// model's figures should not depend on what ran before it.
// Speed-up = PyTorch latency / ours (medians of calls). Ends with
//   RESULT model resnet18_speedup=... mobilenet_v2_speedup=... encoder_speedup=... ...

#include <atomic>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "common/measure/interleaved_timing.h"
#include "common/measure/thread_round_trip.h"
#include "bench/measure_baselines.h"
#include "common/compile/compiled_model.h"
#include "common/compile/model_compiler.h"
#include "common/device/device_profile.h"
#include "client/torchscript_baseline.h"
#include "common/graph/onnx_import.h"
#include "common/ir/npy.h"
#include "common/store/records_store.h"
#include "common/tune/job_tasks.h"

namespace pruner::bench {
namespace {

using Clock = std::chrono::steady_clock;

double Since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

struct Settings {
  std::vector<std::string> models = {"resnet18", "mobilenet_v2", "bert_s128"};
  std::string models_dir = "bench-models";
  std::string work_dir = "bench-model-work";
  int64_t trials = 0;
  int threads = 2;
  int rounds = 30;
  // Each contender's visit per round: first settle_ms of calls that do not
  // count, long enough that the other runtime's idle threads have gone to
  // sleep (PyTorch's OpenBLAS workers yield-spin about 0.1 s after each of
  // its calls, its OpenMP threads a few ms; either takes a core from
  // whatever runs next, which it would never do to a model run alone),
  // then at least visit_ms of counted calls.
  double settle_ms = kModelSettleSeconds * 1e3;
  double visit_ms = kModelVisitSeconds * 1e3;
  std::string strategy = "ansor-xgb";
  std::string db;  // a records database to tune into / take records from; "" = a fresh one
  std::string tune_args;  // extra `pruner tune` arguments (e.g. cold-cache timing)
  std::string layout = kDefaultModelLayout;  // of the convolutions, tuned and compiled
  int profile_steps = 8;  // in-model steps printed, the largest first
  // Set by the parent for the process of one model: where to write its
  // outcome, and the FMA peak the parent measured (one peak for all).
  std::string outcome_file;
  double peak_gflops = 0;
};

// The RESULT key of a model: bert_s128 is the "BERT-style encoder"
// and reports as "encoder"; the others by name.
std::string Key(const std::string& model) { return model == "bert_s128" ? "encoder" : model; }

struct ModelOutcome {
  std::string name;
  bool ok = false;
  std::string error;
  int64_t trials = 0;  // records of its tasks the tuned build chose from
  double tune_s = 0;
  double torch_ms = 0, default_ms = 0, tuned_ms = 0;  // medians of calls
  double torch_best_ms = 0, tuned_best_ms = 0;        // medians of each visit's best
  // Rounds whose probe found the two vCPUs on separate last-level caches
  // (thread_round_trip.h), and the speed-ups by medians of calls in those
  // rounds and in the others (0 where a class has no round).
  int split_rounds = 0;
  double split_speedup = 0, shared_speedup = 0;
  double gflop = 0;
};

// Tunes every task of the model for `trials` trials with `pruner tune`, in
// its own process as a user runs it: this process then times the compiled
// models without the tuner's threads (XGBoost's OpenMP pool, the measurer)
// beside them. Returns the wall time.
absl::StatusOr<double> Tune(const std::string& onnx, const Settings& s, const std::string& db) {
  const std::string log = (std::filesystem::path(s.work_dir) / "tune.log").string();
  const std::string cmd = absl::StrCat(PRUNER_CLI_BIN, " tune --model ", onnx, " --db ", db,
                                       " --trials ", s.trials, " --strategy ", s.strategy,
                                       " --layout ", s.layout, " ",
                                       s.tune_args,
                                       " --threads ", s.threads, " --quiet > ", log, " 2>&1");
  const auto start = Clock::now();
  if (std::system(cmd.c_str()) != 0) {
    return absl::InternalError(absl::StrCat("`", cmd, "` failed; see ", log));
  }
  const double seconds = Since(start);
  std::string last;
  if (FILE* f = std::fopen(log.c_str(), "r")) {
    char line[512];
    while (std::fgets(line, sizeof(line), f) != nullptr) {
      if (std::strncmp(line, "finished job", 12) == 0) last = line;
    }
    std::fclose(f);
  }
  std::printf("    %s", last.c_str());
  return seconds;
}

// Records in `store` for the model's tasks on `device`: what the tuned
// build chose from.
int64_t RecordsOfModel(const RecordsStore& store, const std::vector<SearchTask>& tasks,
                       const std::string& device) {
  int64_t n = 0;
  for (const SearchTask& t : tasks) {
    absl::StatusOr<std::vector<StoredRecord>> records = store.ListRecords(t.workload_key, device);
    if (records.ok()) n += static_cast<int64_t>(records->size());
  }
  return n;
}

// The timing split by where the hypervisor had put the two vCPUs in each
// round (thread_round_trip.h): medians of the calls of the rounds whose
// probe found them on separate last-level caches, and of the others.
// Contenders in `times`: PyTorch, Pruner default, Pruner tuned.
void PrintByPlacement(const std::vector<InterleavedTimes>& times,
                      const std::vector<double>& round_trip_ns, ModelOutcome* out) {
  auto median_of = [&](const InterleavedTimes& t, bool split) {
    std::vector<double> calls;
    for (size_t i = 0; i < t.call_s.size(); ++i) {
      if ((round_trip_ns[t.call_round[i]] >= kSeparateCachesRoundTripNs) == split) {
        calls.push_back(t.call_s[i]);
      }
    }
    return Median(std::move(calls)) * 1e3;
  };
  out->split_rounds = 0;
  for (double ns : round_trip_ns) out->split_rounds += ns >= kSeparateCachesRoundTripNs ? 1 : 0;
  std::printf("  thread round trip per round (ns):");
  for (double ns : round_trip_ns) std::printf(" %.0f", ns);
  std::printf("\n");
  for (const bool split : {false, true}) {
    const int rounds = split ? out->split_rounds
                             : static_cast<int>(round_trip_ns.size()) - out->split_rounds;
    const char* where = split ? "on separate L3s" : "sharing an L3";
    if (rounds == 0) {
      std::printf("  vCPUs %s (round trip %s %.0f ns): no round\n", where, split ? ">=" : "<",
                  kSeparateCachesRoundTripNs);
      continue;
    }
    const double torch = median_of(times[0], split);
    const double tuned = median_of(times[2], split);
    std::printf("  vCPUs %s (round trip %s %.0f ns) in %d rounds: PyTorch %.3f ms, Pruner default "
                "%.3f ms, Pruner tuned %.3f ms (%.2fx)\n",
                where, split ? ">=" : "<", kSeparateCachesRoundTripNs, rounds, torch,
                median_of(times[1], split), tuned, torch / tuned);
    (split ? out->split_speedup : out->shared_speedup) = torch / tuned;
  }
  std::printf("\n");
}

// Where the tuned model's time goes as it runs (not as each kernel was
// measured alone, warm): each step's fastest time over 20 runs, the largest
// first, with its fraction of the FMA peak.
void PrintInModelProfile(CompiledModel& model, const Tensor& input, double peak_gflops,
                         int max_steps) {
  absl::StatusOr<std::vector<CompiledModel::StepTime>> steps = model.Profile({input}, 20);
  if (!steps.ok()) {
    std::printf("  profile: %s\n", std::string(steps.status().message()).c_str());
    return;
  }
  double total = 0, moves = 0;
  for (const CompiledModel::StepTime& t : *steps) {
    total += t.seconds;
    if (t.kind != "kernel") moves += t.seconds;
  }
  std::vector<CompiledModel::StepTime> sorted = *steps;
  std::sort(sorted.begin(), sorted.end(),
            [](const auto& a, const auto& b) { return a.seconds > b.seconds; });
  std::printf("  tuned model, per step in the model (fastest of 20 runs): %.3f ms in %zu steps, "
              "%.3f ms of it data movement; the largest:\n",
              total * 1e3, steps->size(), moves * 1e3);
  for (size_t i = 0; i < sorted.size() && static_cast<int>(i) < max_steps; ++i) {
    const CompiledModel::StepTime& t = sorted[i];
    const double gflops = t.seconds > 0 ? t.flops / t.seconds * 1e-9 : 0;
    std::printf("    %5.1f%%  %8.3f ms  %6.1f GFLOP/s (%4.1f%% of peak)  %s\n",
                total > 0 ? 100 * t.seconds / total : 0, t.seconds * 1e3, gflops,
                100 * gflops / peak_gflops, t.name.c_str());
  }
}

ModelOutcome RunModel(const std::string& name, const Settings& s, const std::string& db,
                      const DeviceProfile& device, double peak_gflops) {
  ModelOutcome out;
  out.name = name;
  const std::string base = (std::filesystem::path(s.models_dir) / name).string();
  absl::StatusOr<OnnxImportOptions> import = ImportOptionsFromFlags({}, s.layout);
  if (!import.ok()) {
    out.error = std::string(import.status().message());
    return out;
  }
  absl::StatusOr<OnnxModel> model = ImportOnnxFile(base + ".onnx", *import);
  absl::StatusOr<Tensor> input = ReadNpy(base + ".input.npy");
  absl::StatusOr<Tensor> want = ReadNpy(base + ".output.npy");
  if (!model.ok() || !input.ok() || !want.ok()) {
    out.error = std::string(!model.ok() ? model.status().message()
                            : !input.ok() ? input.status().message()
                                          : want.status().message());
    return out;
  }
  absl::StatusOr<std::vector<SearchTask>> tasks = TasksOfGraph(model->graph);
  if (tasks.ok()) {
    for (const SearchTask& t : *tasks) out.gflop += t.weight * t.dag->FlopCount() * 1e-9;
  }
  std::printf("%s: %d nodes, %.3f GFLOP in tuned tasks\n", name.c_str(), model->graph.num_nodes(),
              out.gflop);
  if (s.trials > 0) {
    std::printf("  tuning %lld trials (%s), in its own process\n", static_cast<long long>(s.trials),
                s.strategy.c_str());
    std::fflush(stdout);
    absl::StatusOr<double> tuned_s = Tune(base + ".onnx", s, db);
    if (!tuned_s.ok()) {
      out.error = absl::StrCat("tuning: ", tuned_s.status().message());
      return out;
    }
    out.tune_s = *tuned_s;
  }
  absl::StatusOr<std::unique_ptr<RecordsStore>> opened = RecordsStore::Open(db);
  if (!opened.ok()) {
    out.error = std::string(opened.status().message());
    return out;
  }
  RecordsStore* store = opened->get();
  if (tasks.ok()) out.trials = RecordsOfModel(*store, *tasks, device.name);
  std::printf("  %lld records of its tasks in %s\n", static_cast<long long>(out.trials), db.c_str());
  std::filesystem::create_directories(s.work_dir);
  std::map<std::string, std::unique_ptr<CompiledModel>> ours;
  for (const bool with_records : {false, true}) {
    const std::string label = with_records ? "tuned" : "default";
    CompileModelOptions options;
    options.out_path = (std::filesystem::path(s.work_dir) / (name + "_" + label + ".so")).string();
    options.device = device;
    const TunedSchedules schedules =
        with_records ? TunedSchedulesFrom(*store, device.name) : NoTunedSchedules();
    absl::StatusOr<CompileReport> report = CompileModel(*model, schedules, options);
    if (!report.ok()) {
      out.error = absl::StrCat("compile (", label, "): ", report.status().message());
      return out;
    }
    int tuned_kernels = 0;
    for (const CompiledKernel& k : report->kernels) tuned_kernels += k.tuned ? 1 : 0;
    std::printf("  compiled %s: %zu kernels (%d tuned), arena %.2f MB, %.1f s\n", label.c_str(),
                report->kernels.size(), tuned_kernels, report->arena_bytes / 1e6, report->seconds);
    if (with_records && tuned_kernels > 0) {
      // Where the tuned model's time goes, by the records: each kernel's
      // measured time x runs, its share, and its fraction of the FMA peak.
      std::vector<CompiledKernel> ks = report->kernels;
      double total = 0;
      for (const CompiledKernel& k : ks) total += k.occurrences * k.tuned_mean_s;
      std::sort(ks.begin(), ks.end(), [](const CompiledKernel& a, const CompiledKernel& b) {
        return a.occurrences * a.tuned_mean_s > b.occurrences * b.tuned_mean_s;
      });
      std::printf("    by the records: %.3f ms in kernels; the largest shares:\n", total * 1e3);
      for (size_t i = 0; i < ks.size() && i < 8; ++i) {
        const CompiledKernel& k = ks[i];
        const double gflops = k.tuned_mean_s > 0 ? k.flops / k.tuned_mean_s * 1e-9 : 0;
        std::printf("    %5.1f%%  %2d x %8.3f ms  %6.1f GFLOP/s (%4.1f%% of peak)  %s\n",
                    total > 0 ? 100 * k.occurrences * k.tuned_mean_s / total : 0, k.occurrences,
                    k.tuned_mean_s * 1e3, gflops, 100 * gflops / peak_gflops, k.name.c_str());
      }
    }
    absl::StatusOr<std::unique_ptr<CompiledModel>> loaded =
        CompiledModel::Load(std::filesystem::absolute(options.out_path).string(), s.threads);
    if (!loaded.ok()) {
      out.error = std::string(loaded.status().message());
      return out;
    }
    absl::StatusOr<std::vector<Tensor>> got = (*loaded)->Run({*input});
    if (!got.ok()) {
      out.error = std::string(got.status().message());
      return out;
    }
    const absl::Status close = CheckAllClose((*got)[0], *want, 1e-3, 1e-4);
    std::printf("  %s output vs PyTorch's: %s\n", label.c_str(),
                close.ok() ? "match (rtol 1e-3, atol 1e-4)" : std::string(close.message()).c_str());
    if (!close.ok()) {
      out.error = absl::StrCat(label, " output differs from PyTorch's");
      return out;
    }
    ours[label] = std::move(*loaded);
  }

  // PyTorch: frozen TorchScript, optimized for inference at load (the
  // baseline of `pruner run --torchscript`).
  absl::StatusOr<std::unique_ptr<TorchScriptBaseline>> torch =
      LoadTorchScript(base + ".torchscript.pt", {*input}, s.threads);
  if (!torch.ok()) {
    out.error = std::string(torch.status().message());
    return out;
  }
  absl::StatusOr<Tensor> torch_out = (*torch)->Run();
  if (!torch_out.ok()) {
    out.error = std::string(torch_out.status().message());
    return out;
  }
  const absl::Status torch_close = CheckAllClose(*torch_out, *want, 1e-3, 1e-4);
  std::printf("  PyTorch (LibTorch, optimize_for_inference) output vs its export's: %s\n",
              torch_close.ok() ? "match" : std::string(torch_close.message()).c_str());

  std::vector<Contender> contenders = {
      {"pytorch", [&] { (void)(*torch)->Run(); }},
      {"pruner-default", [&] { (void)ours["default"]->Run({*input}); }},
      {"pruner-tuned", [&] { (void)ours["tuned"]->Run({*input}); }},
  };
  InterleaveOptions timing;
  timing.rounds = s.rounds;
  timing.min_visit_s = s.visit_ms / 1e3;
  timing.settle_s = s.settle_ms / 1e3;
  std::vector<double> round_trip_ns(s.rounds, 0);
  timing.before_round = [&](int r) { round_trip_ns[r] = ThreadRoundTripNs(); };
  const std::vector<InterleavedTimes> times = TimeInterleaved(contenders, timing);
  out.torch_ms = times[0].median_call_s * 1e3;
  out.default_ms = times[1].median_call_s * 1e3;
  out.tuned_ms = times[2].median_call_s * 1e3;
  out.torch_best_ms = times[0].median_s * 1e3;
  out.tuned_best_ms = times[2].median_s * 1e3;
  std::printf("  latency, median of the calls of %d interleaved rounds (each visit: %.0f ms "
              "settling, then >= %.0f ms counted; %zu / %zu / %zu calls), %d threads: "
              "PyTorch %.3f ms, Pruner default %.3f ms (%.2fx), Pruner tuned %.3f ms (%.2fx)\n",
              s.rounds, s.settle_ms, s.visit_ms, times[0].call_s.size(), times[1].call_s.size(),
              times[2].call_s.size(), s.threads, out.torch_ms, out.default_ms,
              out.torch_ms / out.default_ms, out.tuned_ms, out.torch_ms / out.tuned_ms);
  std::printf("  quiet moments, median of each visit's fastest call: PyTorch %.3f ms, Pruner "
              "default %.3f ms, Pruner tuned %.3f ms (%.2fx)\n",
              out.torch_best_ms, times[1].median_s * 1e3, out.tuned_best_ms,
              out.torch_best_ms / out.tuned_best_ms);
  PrintByPlacement(times, round_trip_ns, &out);
  PrintInModelProfile(*ours["tuned"], *input, peak_gflops, s.profile_steps);
  out.ok = true;
  return out;
}

// One shell word: `v` in single quotes (the command runs through
// std::system, like the tuner's).
std::string ShellQuote(const std::string& v) {
  std::string q = "'";
  for (const char c : v) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// The outcome of one model crosses from its process to the parent as a
// line of numbers and a line of error text.
absl::Status WriteOutcome(const ModelOutcome& o, const std::string& path) {
  FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) return absl::InternalError(absl::StrCat("cannot write ", path));
  std::fprintf(f, "%d %lld %.17g %.17g %.17g %.17g %.17g %.17g %.17g %d %.17g %.17g\n%s\n",
               o.ok ? 1 : 0, static_cast<long long>(o.trials), o.tune_s, o.torch_ms, o.default_ms,
               o.tuned_ms, o.torch_best_ms, o.tuned_best_ms, o.gflop, o.split_rounds,
               o.split_speedup, o.shared_speedup, o.error.c_str());
  return std::fclose(f) == 0 ? absl::OkStatus()
                             : absl::InternalError(absl::StrCat("cannot write ", path));
}

ModelOutcome ReadOutcome(const std::string& name, const std::string& path) {
  ModelOutcome o;
  o.name = name;
  FILE* f = std::fopen(path.c_str(), "r");
  if (f == nullptr) {
    o.error = absl::StrCat("its process left no outcome in ", path);
    return o;
  }
  int ok = 0;
  long long trials = 0;
  if (std::fscanf(f, "%d %lld %lf %lf %lf %lf %lf %lf %lf %d %lf %lf\n", &ok, &trials,
                  &o.tune_s, &o.torch_ms, &o.default_ms, &o.tuned_ms, &o.torch_best_ms,
                  &o.tuned_best_ms, &o.gflop, &o.split_rounds, &o.split_speedup,
                  &o.shared_speedup) != 12) {
    o.error = absl::StrCat("unreadable outcome in ", path);
  } else {
    o.ok = ok == 1;
    o.trials = trials;
    char line[1024] = {0};
    if (std::fgets(line, sizeof(line), f) != nullptr) {
      o.error = line;
      if (!o.error.empty() && o.error.back() == '\n') o.error.pop_back();
    }
  }
  std::fclose(f);
  return o;
}

// Runs this binary again for one model and reads back its outcome; the
// child prints its own section to the same stdout.
ModelOutcome RunModelInOwnProcess(const std::string& name, const Settings& s, const std::string& db,
                                  double peak_gflops) {
  const std::string outcome =
      (std::filesystem::path(s.work_dir) / (name + ".outcome")).string();
  std::filesystem::remove(outcome);
  const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  std::string cmd = ShellQuote(self);
  const std::vector<std::pair<std::string, std::string>> args = {
      {"--models", name},
      {"--models-dir", s.models_dir},
      {"--work-dir", s.work_dir},
      {"--trials", absl::StrCat(s.trials)},
      {"--threads", absl::StrCat(s.threads)},
      {"--rounds", absl::StrCat(s.rounds)},
      {"--visit-ms", absl::StrFormat("%.17g", s.visit_ms)},
      {"--settle-ms", absl::StrFormat("%.17g", s.settle_ms)},
      {"--strategy", s.strategy},
      {"--tune-args", s.tune_args},
      {"--db", db},
      {"--layout", s.layout},
      {"--profile-steps", absl::StrCat(s.profile_steps)},
      {"--peak-gflops", absl::StrFormat("%.17g", peak_gflops)},
      {"--outcome-file", outcome},
  };
  for (const auto& [flag, v] : args) absl::StrAppend(&cmd, " ", flag, " ", ShellQuote(v));
  std::fflush(stdout);
  const int rc = std::system(cmd.c_str());
  ModelOutcome o = ReadOutcome(name, outcome);
  if (rc != 0 && o.error.empty()) o.error = absl::StrCat("its process exited with ", rc);
  return o;
}

int Main(int argc, char** argv) {
  Settings s;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--models") s.models = absl::StrSplit(value(), ',');
    else if (a == "--models-dir") s.models_dir = value();
    else if (a == "--work-dir") s.work_dir = value();
    else if (a == "--trials") s.trials = std::atoll(value().c_str());
    else if (a == "--threads") s.threads = std::atoi(value().c_str());
    else if (a == "--rounds") s.rounds = std::atoi(value().c_str());
    else if (a == "--visit-ms") s.visit_ms = std::atof(value().c_str());
    else if (a == "--settle-ms") s.settle_ms = std::atof(value().c_str());
    else if (a == "--strategy") s.strategy = value();
    else if (a == "--tune-args") s.tune_args = value();
    else if (a == "--db") s.db = value();
    else if (a == "--layout") s.layout = value();
    else if (a == "--profile-steps") s.profile_steps = std::atoi(value().c_str());
    else if (a == "--outcome-file") s.outcome_file = value();
    else if (a == "--peak-gflops") s.peak_gflops = std::atof(value().c_str());
    else {
      std::fprintf(stderr,
                   "usage: bench_model [--models resnet18,mobilenet_v2,bert_s128] "
                   "[--models-dir DIR] [--work-dir DIR] [--trials N per model] [--threads 2] "
                   "[--rounds 30] [--visit-ms 100] [--settle-ms 150] [--strategy ansor-xgb] [--db FILE: keep or reuse "
                   "records]\n"
                   "       [--layout nchw|nhwc|nhwc-winograd|nhwc-winograd2|nhwc-winograd4] "
                   "[--profile-steps 8]\n"
                   "       [--tune-args \"--flush-cache --number 1 --min-repeat-ms 0 ...\"]\n");
      return 2;
    }
  }
  absl::StatusOr<DeviceProfile> cpu = GetDeviceProfile("cpu");
  if (!cpu.ok()) return 1;
  const DeviceProfile device = WithStableCpuKey(*cpu);
  std::filesystem::create_directories(s.work_dir);

  // The process of one model, started by the parent below.
  if (!s.outcome_file.empty()) {
    const ModelOutcome o = RunModel(s.models.at(0), s, s.db, device, s.peak_gflops);
    return WriteOutcome(o, s.outcome_file).ok() ? 0 : 1;
  }

  // The models come from PyTorch's exporter; export them once.
  for (const std::string& m : s.models) {
    if (!std::filesystem::exists(std::filesystem::path(s.models_dir) / (m + ".torchscript.pt"))) {
      const std::string cmd = absl::StrCat("/usr/bin/python3 scripts/export_models.py --set bench --out ",
                                           s.models_dir, " >/dev/null 2>&1");
      std::printf("exporting the bench models with PyTorch: %s\n", cmd.c_str());
      if (std::system(cmd.c_str()) != 0) {
        std::fprintf(stderr, "bench_model: the export failed (run it from the repository root)\n");
        return 1;
      }
      break;
    }
  }
  std::string db = s.db;
  if (db.empty()) {
    db = (std::filesystem::path(s.work_dir) / "bench_model.db").string();
    std::filesystem::remove(db);
  }
  const FmaPeak peak = MeasureFmaPeak(s.threads, 0.3);
  std::printf("bench_model: %s, %d threads, FMA peak %.1f GFLOP/s, %lld trials per model%s\n\n",
              device.name.c_str(), s.threads, peak.gflops, static_cast<long long>(s.trials),
              s.models.size() > 1 ? ", each model in a process of its own" : "");

  std::string result = "RESULT model";
  std::string extra;
  for (const std::string& m : s.models) {
    const ModelOutcome o = s.models.size() > 1 ? RunModelInOwnProcess(m, s, db, peak.gflops)
                                               : RunModel(m, s, db, device, peak.gflops);
    const std::string k = Key(m);
    if (!o.ok) {
      std::printf("  %s: %s\n\n", m.c_str(), o.error.c_str());
      absl::StrAppend(&result, " ", k, "_speedup=0");
      continue;
    }
    absl::StrAppend(&result, " ", k, "_speedup=", absl::StrFormat("%.3f", o.torch_ms / o.tuned_ms));
    absl::StrAppend(&extra, " ", k, "_default_speedup=",
                    absl::StrFormat("%.3f", o.torch_ms / o.default_ms), " ", k, "_torch_ms=",
                    absl::StrFormat("%.3f", o.torch_ms), " ", k, "_tuned_ms=",
                    absl::StrFormat("%.3f", o.tuned_ms), " ", k, "_default_ms=",
                    absl::StrFormat("%.3f", o.default_ms), " ", k, "_best_speedup=",
                    absl::StrFormat("%.3f", o.torch_best_ms / o.tuned_best_ms), " ", k,
                    "_trials=", o.trials, " ", k,
                    "_tune_s=", absl::StrFormat("%.0f", o.tune_s), " ", k, "_vs_peak=",
                    absl::StrFormat("%.3f", o.gflop / (o.tuned_ms * 1e-3) / peak.gflops), " ", k,
                    "_split_rounds=", o.split_rounds, " ", k, "_shared_l3_speedup=",
                    absl::StrFormat("%.3f", o.shared_speedup), " ", k, "_split_l3_speedup=",
                    absl::StrFormat("%.3f", o.split_speedup));
  }
  std::printf("%s%s threads=%d peak_gflops=%.1f strategy=%s layout=%s\n", result.c_str(),
              extra.c_str(), s.threads, peak.gflops, s.strategy.c_str(), s.layout.c_str());
  return 0;
}

}  // namespace
}  // namespace pruner::bench

int main(int argc, char** argv) { return pruner::bench::Main(argc, argv); }
