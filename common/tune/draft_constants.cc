#include "common/tune/draft_constants.h"

#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <numeric>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/analysis/symbol_analyzer.h"
#include "common/base/parallel_for.h"
#include "common/base/rank_correlation.h"
#include "common/base/status_macros.h"
#include "common/lower/lower.h"
#include "common/schedule/state.h"
#include "common/schedule/step.h"

namespace pruner {

absl::StatusOr<std::optional<CpuIssueConstants>> LoadDraftConstants(
    const RecordsStore& store, const std::string& device_key) {
  absl::StatusOr<std::string> text = store.LatestCheckpoint(kDraftConstantsModel, device_key);
  if (absl::IsNotFound(text.status())) return std::optional<CpuIssueConstants>();
  if (!text.ok()) return text.status();
  absl::StatusOr<CpuIssueConstants> parsed = CpuIssueConstants::Parse(*text);
  if (!parsed.ok()) {
    return absl::DataLossError(absl::StrCat("the stored draft constants of ", device_key,
                                            " do not parse (", parsed.status().message(),
                                            "); run `pruner calibrate` again"));
  }
  return std::optional<CpuIssueConstants>(*parsed);
}

absl::StatusOr<CpuIssueConstants> DraftConstantsFor(const RecordsStore* store,
                                                    const std::string& device_key, bool* stored) {
  if (stored != nullptr) *stored = false;
  if (store == nullptr) return CpuIssueConstants{};
  PRUNER_ASSIGN_OR_RETURN(std::optional<CpuIssueConstants> loaded,
                          LoadDraftConstants(*store, device_key));
  if (!loaded.has_value()) return CpuIssueConstants{};
  if (stored != nullptr) *stored = true;
  return *loaded;
}

absl::Status SaveDraftConstants(RecordsStore& store, const std::string& device_key,
                                const CpuIssueConstants& constants, int64_t num_records) {
  return store.PutCheckpoint(kDraftConstantsModel, device_key, constants.Encode(), num_records);
}

absl::StatusOr<DraftCalibration> CalibrateDraft(const RecordsStore& store,
                                                const DeviceProfile& device,
                                                const std::string& device_key,
                                                const DraftCalibrationOptions& options) {
  if (device.IsGpu()) {
    return absl::FailedPreconditionError(
        absl::StrCat(device_key, " is a GPU: the calibrated issue model is the CPU draft's"));
  }
  if (options.folds < 1) {
    return absl::InvalidArgumentError(absl::StrCat("folds must be >= 1, got ", options.folds));
  }
  DraftCalibration out;
  PRUNER_ASSIGN_OR_RETURN(out.before, DraftConstantsFor(&store, device_key, &out.before_stored));
  // The records as the dataset metrics read them (bench/dataset/
  // dataset_loader.h): ok, measured on a quiet host, and one latency per
  // schedule, its latest measurement.
  PRUNER_ASSIGN_OR_RETURN(std::vector<std::string> keys, store.ListWorkloadKeys());
  std::vector<IssueWorkload> data;
  std::vector<std::vector<State>> states;  // parallel to data's schedules
  std::vector<std::pair<int, int>> items;  // (workload, schedule)
  int64_t all_records = 0;
  for (const std::string& key : keys) {
    PRUNER_ASSIGN_OR_RETURN(std::vector<StoredRecord> records, store.ListRecords(key, device_key));
    all_records += static_cast<int64_t>(records.size());
    std::map<std::string, size_t> index_of_steps;
    std::vector<const StoredRecord*> latest;
    for (const StoredRecord& r : records) {  // in id order
      if (!r.result.ok() || !(r.result.mean_s > 0)) continue;
      if (r.result.host_busy_cores > options.max_host_busy_cores) {
        ++out.busy;
        continue;
      }
      auto [it, added] = index_of_steps.emplace(r.steps, latest.size());
      if (added) {
        latest.push_back(&r);
      } else {
        latest[it->second] = &r;
      }
    }
    if (latest.size() < 3) continue;
    PRUNER_ASSIGN_OR_RETURN(ComputeDag dag, store.GetWorkload(key));
    auto shared = std::make_shared<const ComputeDag>(std::move(dag));
    IssueWorkload w;
    std::vector<State> replayed;
    for (const StoredRecord* r : latest) {
      absl::StatusOr<std::vector<Step>> steps = ParseSteps(r->steps);
      absl::StatusOr<State> state =
          steps.ok() ? State::Replay(shared, *steps) : absl::StatusOr<State>(steps.status());
      if (!state.ok()) {
        ++out.skipped;
        continue;
      }
      w.latency_s.push_back(r->result.mean_s);
      replayed.push_back(*std::move(state));
    }
    if (replayed.size() < 3) continue;
    w.schedules.resize(replayed.size());
    for (size_t j = 0; j < replayed.size(); ++j) {
      items.emplace_back(static_cast<int>(data.size()), static_cast<int>(j));
    }
    out.schedules += static_cast<int64_t>(replayed.size());
    data.push_back(std::move(w));
    states.push_back(std::move(replayed));
  }
  out.workloads = static_cast<int>(data.size());
  if (data.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "no workload of ", device_key, " has 3 or more quiet, valid schedules to rank (",
        all_records, " records in all)"));
  }

  AnalyzerOptions analyzer_options = AnalyzerOptions::Calibrated(out.before);
  analyzer_options.cpu_codegen = options.codegen;
  PRUNER_ASSIGN_OR_RETURN(SymbolAnalyzer analyzer, SymbolAnalyzer::Create(device, analyzer_options));
  std::vector<char> failed(items.size(), 0);
  ParallelFor(static_cast<int>(items.size()), options.threads > 0 ? options.threads : HardwareThreads(),
              [&](int i) {
                const auto [w, j] = items[i];
                absl::StatusOr<Program> program = Lower(states[w][j], device);
                absl::StatusOr<LatencyEstimate> estimate =
                    program.ok() ? analyzer.Analyze(*program)
                                 : absl::StatusOr<LatencyEstimate>(program.status());
                if (!estimate.ok()) {
                  failed[i] = 1;  // ranks last (IssueEstimates)
                  return;
                }
                data[w].schedules[j] = IssueRowsOf(*estimate, analyzer.machine());
              });
  out.skipped += std::accumulate(failed.begin(), failed.end(), int64_t{0});

  std::vector<int> all(data.size());
  std::iota(all.begin(), all.end(), 0);
  out.before_rho = MeanIssueSpearman(data, all, out.before);
  out.held_out_rho = std::numeric_limits<double>::quiet_NaN();
  if (options.folds >= 2 && out.workloads >= options.folds) {
    double sum = 0;
    int n = 0;
    for (int f = 0; f < options.folds; ++f) {
      std::vector<int> train, test;
      for (int w : all) (w % options.folds == f ? test : train).push_back(w);
      const IssueFit fit = FitIssueConstants(data, train, out.before);
      for (int w : test) {
        const double rho = SpearmanCorrelation(IssueEstimates(data[w], fit.constants),
                                               data[w].latency_s);
        if (std::isnan(rho)) continue;
        sum += rho;
        ++n;
      }
    }
    if (n > 0) out.held_out_rho = sum / n;
  }
  out.fit = FitIssueConstants(data, all, out.before);
  return out;
}

}  // namespace pruner
