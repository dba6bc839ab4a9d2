// bench_dataset_metrics: the Pruner paper's §6.5 dataset metrics on records
// this project measured itself (a records database filled by `pruner tune`).
//
//   LSE Best_k (Eq. 3, Table 10): the analyzer variants' S_spec against a
//   random draft, with Spearman's rho of estimated vs measured latency.
//   Top_k of the learned models (Eq. 2, Table 11) on held-out workloads,
//   and Top_1 against the training fraction (Fig. 15).
//
// Nothing is timed here except model training (reported for information):
// the latencies are the database's. See bench/README.md for how the dataset
// is collected and lse_evaluation.h / model_topk.h for the protocol.
#include <algorithm>
#include <map>
#include <regex>
#include <set>
#include <cstdio>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "bench/dataset/dataset_loader.h"
#include "bench/dataset/learned_models.h"
#include "bench/dataset/lse_dump.h"
#include "bench/dataset/lse_evaluation.h"
#include "bench/dataset/metrics_report.h"
#include "bench/dataset/model_topk.h"
#include "bench/dataset/replayed_dataset.h"
#include "bench/dataset/source_dump.h"
#include "common/base/parallel_for.h"
#include "common/store/records_store.h"

namespace pruner::dataset {
namespace {

struct Flags {
  std::string db;
  std::string device;
  std::vector<int64_t> jobs;
  double max_host_busy_cores = 0.5;
  int64_t median_since_unix_ms = 0;  // DatasetQuery's: pool one build's repeats into a median
  std::string aux_device;  // MTL-TLP's second device (its records in the same database)
  std::vector<int> sizes = {50, 128, 256, 512};
  bool no_proportional = false;
  int draws = 5000;
  int folds = 4;
  std::vector<double> fractions = {0.10, 0.25, 0.50, 1.00};
  std::string split = "both";                     // workloads, networks, both
  std::vector<double> network_fractions = {1.00};
  int network_folds = 0;                  // 0: leave one network out
  int only_fold = 0;                      // k > 0: evaluate the k-th fold of each split alone
  std::vector<std::string> network_models;  // empty: --models
  std::vector<std::string> model_fractions;  // "tlp=0.07/1": tlp at 7% and 100% only
  double aux_fraction = 1.0;              // of each auxiliary workload's records
  int parallel_models = 1;                // model evaluations run at once
  std::vector<std::string> models;  // empty = every model this build has
  int threads = 1;
  int train_threads = 0;  // LibTorch threads per model; 0: each model's default (1)
  int analyzer_cores = -1;  // -1: the kernels' thread count; 0: the profile's
  int pacm_max_epochs = 0;  // 0: PaCM's default (50)
  uint64_t seed = 43;  // model initialization, batch order, training subsets
  bool skip_lse = false;
  std::string dump_sources;     // DIR: the C++ source of every schedule of one workload
  std::string dump_sources_of;  // that workload's key or name
  std::string dump_lse;  // the analyzer's rows of every schedule, for calibration
  int calibrate_folds = 2;  // CPU issue model fitted here, cross-validated
  std::string records_codegen = "llvm";  // the compiler that built the records' kernels
  bool skip_models = false;
  std::string dump_scores;  // every held-out schedule's latency and score, per model
  std::string train_matching;  // TopKSettings::train_matching
  bool fit_top1 = false;       // TopKSettings::report_fit
};

// "tlp=0.07/1" -> {"tlp": {0.07, 1}}.
absl::StatusOr<std::map<std::string, std::vector<double>>> ParseModelFractions(
    const std::vector<std::string>& items) {
  std::map<std::string, std::vector<double>> out;
  for (const std::string& item : items) {
    const size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0) {
      return absl::InvalidArgumentError(absl::StrCat("'", item, "' is not MODEL=F1/F2/..."));
    }
    std::vector<double>& fractions = out[item.substr(0, eq)];
    for (absl::string_view f : absl::StrSplit(item.substr(eq + 1), '/')) {
      double v = 0;
      if (!absl::SimpleAtod(f, &v) || v <= 0 || v > 1) {
        return absl::InvalidArgumentError(absl::StrCat("'", item, "': fractions are in (0, 1]"));
      }
      fractions.push_back(v);
    }
  }
  return out;
}

// --dump-scores: one line per held-out schedule, model and fraction of each
// split's results (splits[i] names results[i]). False, with a message, when
// the file cannot be written.
bool WriteScores(const std::string& path, const std::vector<const char*>& splits,
                 const std::vector<const std::vector<ModelTopK>*>& results,
                 const ReplayedDataset& replayed) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) {
    std::fprintf(stderr, "--dump-scores: cannot write %s\n", path.c_str());
    return false;
  }
  std::fprintf(f, "split\tmodel\tfraction\tworkload\tweight\tschedule\tlatency_s\tscore\n");
  for (size_t s = 0; s < results.size(); ++s) {
    for (const ModelTopK& r : *results[s]) {
      for (const TopKPoint& point : r.points) {
        for (size_t w = 0; w < point.scored.size(); ++w) {
          const ScoredWorkload& sw = point.scored[w];
          for (size_t i = 0; i < sw.latency_s.size() && i < sw.score.size(); ++i) {
            std::fprintf(f, "%s\t%s\t%g\t%s\t%g\t%zu\t%.9g\t%.9g\n", splits[s],
                         r.model.c_str(), point.fraction, replayed.workloads[w].name.c_str(),
                         sw.weight, i, sw.latency_s[i], sw.score[i]);
          }
        }
      }
    }
  }
  return std::fclose(f) == 0;
}

int Run(const Flags& flags) {
  auto store = RecordsStore::Open(flags.db);
  if (!store.ok()) {
    std::fprintf(stderr, "%s\n", store.status().ToString().c_str());
    return 1;
  }
  auto data = LoadDataset(**store, DatasetQuery{flags.device, flags.jobs,
                                                flags.max_host_busy_cores,
                                                flags.median_since_unix_ms});
  if (!data.ok()) {
    std::fprintf(stderr, "%s\n", data.status().ToString().c_str());
    return 1;
  }
  const ReplayedDataset replayed = ReplayDataset(*data);
  if (replayed.workloads.empty()) {
    std::fprintf(stderr, "no ok records to evaluate\n");
    return 1;
  }
  PrintDataset(*data, replayed);
  ResultFields result;
  result.Add("workloads", static_cast<double>(replayed.workloads.size()));
  result.Add("records", static_cast<double>(replayed.NumStates()));
  std::set<std::string> networks;
  for (const ReplayedWorkload& w : replayed.workloads) networks.insert(w.group);
  result.Add("networks", static_cast<double>(networks.size()));

  if (!flags.skip_lse) {
    const int cores = flags.analyzer_cores < 0 ? data->kernel_threads : flags.analyzer_cores;
    const DeviceProfile analyzer_device = AnalyzerDevice(data->device, cores);
    LseSettings settings;
    if (!(analyzer_device == data->device)) {
      // Beside the main rows: what the profile as stored would have said.
      settings.variants.push_back({absl::StrCat("LSE (paper), ", data->device.num_cores,
                                                "-core profile"),
                                   AnalyzerOptions::Paper(), "lse_stored_profile", data->device});
    }
    std::printf("\nAnalyzer's device: %s with %d core(s), peak %.1f GFLOP/s (kernels measured "
                "with %s OpenMP thread(s))\n",
                analyzer_device.name.c_str(), analyzer_device.num_cores,
                analyzer_device.peak_gflops,
                data->kernel_threads > 0 ? absl::StrCat(data->kernel_threads).c_str() : "all/unknown");
    settings.sizes = flags.sizes;
    settings.proportional_sizes = !flags.no_proportional;
    settings.draws = flags.draws;
    settings.threads = flags.threads;
    settings.calibrate_folds = flags.calibrate_folds;
    settings.codegen = ParseCpuBackend(flags.records_codegen).value();  // checked: llvm or gcc
    if (!analyzer_device.IsGpu()) {
      std::printf("The issue model counts the code of %s (--records-codegen)\n",
                  settings.codegen == CpuBackend::kGcc ? "g++" : "the LLVM backend");
    }
    if (!flags.dump_sources.empty()) {
      const absl::Status dumped = DumpWorkloadSources(replayed, analyzer_device,
                                                      flags.dump_sources_of, flags.dump_sources);
      if (!dumped.ok()) {
        std::fprintf(stderr, "--dump-sources: %s\n", dumped.ToString().c_str());
        return 1;
      }
    }
    if (!flags.dump_lse.empty()) {
      // The draft's analyzer: the issue model on CPUs, the paper's Eq. 1 on GPUs.
      AnalyzerOptions dumped_options = analyzer_device.IsGpu() ? AnalyzerOptions::Paper()
                                                               : AnalyzerOptions::Calibrated();
      dumped_options.cpu_codegen = settings.codegen;
      const absl::Status dumped = DumpLseRows(replayed, analyzer_device, dumped_options,
                                              flags.dump_lse, flags.threads);
      if (!dumped.ok()) {
        std::fprintf(stderr, "--dump-lse: %s\n", dumped.ToString().c_str());
        return 1;
      }
    }
    auto lse = EvaluateLse(replayed, analyzer_device, settings);
    if (!lse.ok()) {
      std::fprintf(stderr, "LSE: %s\n", lse.status().ToString().c_str());
      return 1;
    }
    PrintLse(*lse, replayed);
    PrintIssueFits(*lse);
    AddLseResults(*lse, &result);
  }

  if (!flags.skip_models) {
    auto model_fractions = ParseModelFractions(flags.model_fractions);
    if (!model_fractions.ok()) {
      std::fprintf(stderr, "--model-fractions: %s\n", model_fractions.status().ToString().c_str());
      return 1;
    }
    LearnedModelSettings model_settings{.featurize_threads = flags.threads,
                                        .train_threads = flags.train_threads,
                                        .seed = flags.seed,
                                        .pacm_max_epochs = flags.pacm_max_epochs,
                                        .auxiliary = nullptr};
    if (!flags.aux_device.empty()) {
      // Every quiet ok record of the other device, as replayed states.
      auto aux = LoadDataset(**store, DatasetQuery{flags.aux_device, {}, flags.max_host_busy_cores});
      if (!aux.ok()) {
        std::fprintf(stderr, "--aux-device: %s\n", aux.status().ToString().c_str());
        return 1;
      }
      auto records = std::make_shared<AuxiliaryRecords>();
      records->device = aux->device;
      for (const ReplayedWorkload& w : ReplayDataset(*aux).workloads) {
        for (int i : TrainingSubset(w, flags.aux_fraction, flags.seed)) {
          records->records.push_back({w.states[i], w.key, w.latency_s[i], true});
        }
      }
      std::printf("\nMTL-TLP's second device: %s, %zu records\n", aux->device.name.c_str(),
                  records->records.size());
      model_settings.auxiliary = std::move(records);
    }
    struct Split {
      const char* flag;
      const char* title;
      FoldBy by;
      const char* prefix;
      std::vector<double> fractions;
      std::vector<std::string> models;
    };
    const Split splits[] = {
        {"workloads", "held-out workloads", FoldBy::kWorkload, "", flags.fractions, flags.models},
        {"networks", "held-out networks", FoldBy::kGroup, "net_", flags.network_fractions,
         flags.network_models.empty() ? flags.models : flags.network_models},
    };
    // Every (split, model) evaluation is independent: with --parallel-models
    // N they run N at a time (each model's learner uses one thread), and the
    // tables print in order afterwards.
    struct Planned {
      const Split* split;
      std::vector<Fold> folds;
      TopKSettings settings;
      std::vector<LearnedModelFactory> factories;
      std::vector<ModelTopK> results;
    };
    std::vector<Planned> plan;
    struct Job {
      int planned;
      int model;
    };
    std::vector<Job> jobs;
    const std::vector<LearnedModelFactory> factories = LearnedModels(model_settings);
    for (const Split& split : splits) {
      if (flags.split != "both" && flags.split != split.flag) continue;
      Planned p;
      p.split = &split;
      p.folds = MakeFolds(replayed, flags.folds, split.by, flags.network_folds);
      if (flags.only_fold > 0 && !p.folds.empty()) {
        if (flags.only_fold > static_cast<int>(p.folds.size())) {
          std::fprintf(stderr, "--only-fold %d: the held-out %s split has %zu folds\n",
                       flags.only_fold, split.flag, p.folds.size());
          return 2;
        }
        p.folds = {p.folds[flags.only_fold - 1]};
      }
      p.settings.fractions = split.fractions;
      if (split.by == FoldBy::kWorkload) p.settings.model_fractions = *model_fractions;
      p.settings.seed = flags.seed;
      p.settings.train_matching = flags.train_matching;
      p.settings.report_fit = flags.fit_top1;
      p.settings.log = [](const std::string& line) {
        std::fflush(stdout);  // keep the tables and the progress lines in order
        std::fprintf(stderr, "  %s\n", line.c_str());
      };
      for (const LearnedModelFactory& factory : factories) {
        if (split.models.empty() ? !factory.on_request
                                 : std::find(split.models.begin(), split.models.end(),
                                             factory.name) != split.models.end()) {
          p.factories.push_back(factory);
        }
      }
      p.results.resize(p.factories.size());
      if (!p.folds.empty()) {
        for (size_t m = 0; m < p.factories.size(); ++m) {
          jobs.push_back({static_cast<int>(plan.size()), static_cast<int>(m)});
        }
      }
      plan.push_back(std::move(p));
    }
    ParallelFor(static_cast<int>(jobs.size()), std::max(1, flags.parallel_models), [&](int k) {
      Planned& p = plan[jobs[k].planned];
      p.results[jobs[k].model] =
          EvaluateModel(p.factories[jobs[k].model], replayed, data->device, p.folds, p.settings);
    });
    if (!flags.dump_scores.empty()) {
      std::vector<const std::vector<ModelTopK>*> results;
      std::vector<const char*> splits;
      for (const Planned& p : plan) {
        results.push_back(&p.results);
        splits.push_back(p.split->flag);
      }
      if (!WriteScores(flags.dump_scores, splits, results, replayed)) return 1;
    }
    for (const Planned& p : plan) {
      if (p.folds.empty()) {
        std::printf("\nLearned models on %s: not enough workloads or networks to hold out\n",
                    p.split->title);
        continue;
      }
      PrintTopK(p.split->title, p.results, p.folds, replayed);
      PrintTopOneLosses(p.split->title, p.results, replayed, /*worst=*/5);
      AddTopKResults(p.results, p.split->prefix, &result);
    }
  }
  // Models alone (Table 11 / Fig. 15) make the dataset_models line.
  std::printf("\n%s\n",
              result.Line(flags.skip_lse ? "dataset_models" : "dataset_metrics").c_str());
  return 0;
}

}  // namespace
}  // namespace pruner::dataset

int main(int argc, char** argv) {
  pruner::dataset::Flags flags;
  CLI::App app{"Pruner §6.5 dataset metrics (LSE Best_k, learned models' Top_k) on a records "
               "database"};
  app.add_option("--db", flags.db, "records database (e.g. filled by `pruner tune --strategy "
                                   "random`)")
      ->required();
  app.add_option("--device", flags.device, "device key (default: the jobs' or the only one)");
  app.add_option("--job", flags.jobs, "only these jobs' tasks and records (repeatable)");
  app.add_option("--aux-device", flags.aux_device,
                 "MTL-TLP: another device key whose records (in the same database) train a "
                 "second head");
  app.add_option("--max-host-busy", flags.max_host_busy_cores,
                 "skip records measured while more cores than this ran other work (-1: keep all)")
      ->capture_default_str();
  app.add_option("--median-since-ms", flags.median_since_unix_ms,
                 "label a schedule measured at or after this unix time (ms) by the median of "
                 "those measurements, not its latest; the time must follow the code "
                 "generator's last change (one build)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--sizes", flags.sizes, "S_spec sizes s")->delimiter(',');
  app.add_flag("--no-proportional", flags.no_proportional,
               "skip the sizes scaled to a 4,000-schedule space");
  app.add_option("--draws", flags.draws, "random-draft draws averaged (the paper: 5000)");
  app.add_option("--folds", flags.folds, "folds of the held-out-workloads split");
  app.add_option("--split", flags.split,
                 "workloads (folds by workload key), networks (leave one network out) or both")
      ->check(CLI::IsMember({"workloads", "networks", "both"}))
      ->capture_default_str();
  app.add_option("--network-fractions", flags.network_fractions,
                 "training fractions of the held-out-networks split")
      ->delimiter(',');
  app.add_option("--network-folds", flags.network_folds,
                 "held-out-networks split: folds of several whole networks (0: one per network)");
  app.add_option("--network-models", flags.network_models,
                 "models of the held-out-networks split (default: --models)")
      ->delimiter(',');
  app.add_option("--only-fold", flags.only_fold,
                 "evaluate only the k-th fold of each split (its training set is the same as "
                 "in the full run): a long model's folds as separate runs, their --dump-scores "
                 "files combined by bench/dataset/analysis/model_ensembles.py")
      ->check(CLI::Range(0, 1000));
  app.add_option("--model-fractions", flags.model_fractions,
                 "held-out-workloads split: MODEL=F1/F2 trains MODEL at these fractions only")
      ->delimiter(',');
  app.add_option("--parallel-models", flags.parallel_models,
                 "evaluate this many models at once (each trains on one thread)")
      ->check(CLI::Range(1, 64));
  app.add_option("--aux-fraction", flags.aux_fraction,
                 "MTL-TLP: the fraction of each auxiliary workload's records used")
      ->check(CLI::Range(0.0001, 1.0));
  app.add_option("--fractions", flags.fractions, "training fractions of the size curve")
      ->delimiter(',');
  const std::vector<pruner::dataset::LearnedModelFactory> available =
      pruner::dataset::LearnedModels({});
  std::vector<std::string> names;
  for (const auto& m : available) names.push_back(m.name);
  // MTL-TLP (and its log-scale variant) is offered once --aux-device names
  // its second device.
  if (std::find(names.begin(), names.end(), "tlp") != names.end()) {
    names.push_back("mtl-tlp");
    names.push_back("mtl-tlp-log");
  }
  app.add_option("--models", flags.models,
                 "learned models to evaluate (this build: " + absl::StrJoin(names, ",") + ")")
      ->delimiter(',');
  app.add_option("--threads", flags.threads, "threads for lowering, analysis, featurization");
  app.add_option("--pacm-max-epochs", flags.pacm_max_epochs,
                 "epochs of every pacm* model (0: its default, 50; early stopping still applies)")
      ->check(CLI::Range(0, 10000));
  app.add_option("--train-threads", flags.train_threads,
                 "LibTorch threads per network model (mlp, pacm, tlp, mtl-tlp) while it trains "
                 "and scores; 0: 1 (for a machine with nothing else running: cores / "
                 "--parallel-models)")
      ->check(CLI::Range(0, 256));
  app.add_option("--analyzer-cores", flags.analyzer_cores,
                 "cores the analyzer assumes (-1: the jobs' kernel threads; 0: the profile's)");
  app.add_option("--seed", flags.seed, "seed of the models and the training subsets");
  app.add_flag("--skip-lse", flags.skip_lse, "no analyzer metrics");
  app.add_option("--calibrate-folds", flags.calibrate_folds,
                 "CPUs: fit the issue model's constants on the records, cross-validated over "
                 "this many folds of workloads (0: off)")
      ->check(CLI::Range(0, 100));
  app.add_option("--records-codegen", flags.records_codegen,
                 "CPUs: the compiler that built the records' kernels, whose code the issue model "
                 "counts: llvm (the default backend since 2026-11-27) or gcc (--backend gcc, Arm "
                 "workers, records measured before then)")
      ->check(CLI::IsMember({"llvm", "gcc"}));
  app.add_option("--dump-lse", flags.dump_lse,
                 "write the analyzer's symbols, penalties and estimate of every schedule, one "
                 "line per row, beside its measured latency (tab-separated)");
  CLI::Option* sources_of = app.add_option(
      "--dump-sources-of", flags.dump_sources_of,
      "the workload (key or name) whose schedules --dump-sources writes");
  app.add_option("--dump-sources", flags.dump_sources,
                 "write DIR/j<index>.cc, the C++ source (the g++ backend's) of every schedule of "
                 "the workload --dump-sources-of names, with its measured latency, and "
                 "DIR/j<index>.s, the LLVM backend's assembly for the records' ISA level")
      ->needs(sources_of);
  app.add_flag("--skip-models", flags.skip_models, "no learned-model metrics");
  app.add_option("--train-matching", flags.train_matching,
                 "train only on workloads whose name matches this regex (the folds stay the whole "
                 "dataset's: a family's own model against the model of every family)");
  app.add_flag("--fit-top1", flags.fit_top1,
               "also log each fold model's Top_1 on its own training workloads (fit against "
               "transfer)");
  app.add_option("--dump-scores", flags.dump_scores,
                 "write every held-out schedule's measured latency and each model's score, one "
                 "line per schedule, model and training fraction (tab-separated)");
  CLI11_PARSE(app, argc, argv);
  try {
    std::regex check(flags.train_matching);
  } catch (const std::regex_error& e) {
    std::fprintf(stderr, "--train-matching '%s': %s\n", flags.train_matching.c_str(), e.what());
    return 2;
  }
  std::vector<std::string> asked = flags.models;
  asked.insert(asked.end(), flags.network_models.begin(), flags.network_models.end());
  for (const std::string& m : asked) {
    if (std::find(names.begin(), names.end(), m) == names.end()) {
      std::fprintf(stderr, "unknown model '%s' (this build: %s)\n", m.c_str(),
                   absl::StrJoin(names, ",").c_str());
      return 2;
    }
  }
  return pruner::dataset::Run(flags);
}
