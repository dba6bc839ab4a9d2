#include "common/model/pacm_pretrain.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include "common/base/status_macros.h"
#include "common/model/pacm_checkpoint.h"
#include "common/model/pacm_symbols.h"
#include "common/model/pacm_training_set.h"

namespace pruner {
namespace {

// Record indices of each workload, in the order given.
std::map<std::string, std::vector<int>> RecordsByWorkload(const std::vector<CostRecord>& records) {
  std::map<std::string, std::vector<int>> out;
  for (int i = 0; i < static_cast<int>(records.size()); ++i) {
    out[records[i].workload_key].push_back(i);
  }
  return out;
}

// Fraction of the pairs with different labels that `scores` orders the same
// way; -1 when there is no such pair.
double PairwiseAccuracy(const std::vector<double>& scores, const std::vector<float>& labels) {
  int64_t agree = 0, total = 0;
  for (size_t i = 0; i < scores.size(); ++i) {
    for (size_t j = i + 1; j < scores.size(); ++j) {
      if (labels[i] == labels[j]) continue;
      ++total;
      if ((scores[i] - scores[j]) * (labels[i] - labels[j]) > 0) ++agree;
    }
  }
  return total == 0 ? -1.0 : static_cast<double>(agree) / total;
}

}  // namespace

absl::StatusOr<PaCMPretrainResult> PretrainPaCM(const std::vector<MeasuredState>& records,
                                                const DeviceProfile& device,
                                                const PaCMPretrainOptions& options) {
  PaCMTrainingSet data;
  const std::optional<SymbolAnalyzer> analyzer =
      options.network.symbol_hidden > 0 ? PaCMSymbolAnalyzer(device) : std::nullopt;
  data.Add(records, device, options.featurize_threads, analyzer ? &*analyzer : nullptr);

  std::vector<int> train, holdout;
  std::map<std::string, std::vector<int>> holdout_by_workload;
  for (auto& [workload, indices] : RecordsByWorkload(data.records())) {
    std::reverse(indices.begin(), indices.end());
    const size_t held = static_cast<size_t>(
        std::floor(static_cast<double>(indices.size()) * options.holdout_fraction));
    const size_t trained = indices.size() - held;
    train.insert(train.end(), indices.begin(), indices.begin() + trained);
    holdout_by_workload[workload].assign(indices.begin() + trained, indices.end());
  }

  PRUNER_ASSIGN_OR_RETURN(std::unique_ptr<PaCMNetwork> network,
                          PaCMNetwork::Create(options.network, options.training.schedule.seed));
  const PaCMLabeledBatch train_data = data.Batch(&train);
  absl::StatusOr<FitReport> fit = network->Train(train_data.batch, train_data.labels,
                                                    options.training, &train_data.workload);
  if (!fit.ok()) return fit.status();

  PaCMPretrainResult result;
  result.train_programs = train_data.batch.num_programs;
  result.unfeaturized_records = data.num_unfeaturized();
  result.fit = *fit;
  double accuracy_sum = 0;
  for (const auto& [workload, indices] : holdout_by_workload) {
    const PaCMLabeledBatch held = data.Batch(&indices);
    result.holdout_programs += held.batch.num_programs;
    const double accuracy = PairwiseAccuracy(network->Score(held.batch, options.training.num_threads),
                                             held.labels);
    if (accuracy < 0) continue;
    accuracy_sum += accuracy;
    ++result.holdout_workloads;
  }
  if (result.holdout_workloads > 0) {
    result.holdout_pairwise_accuracy = accuracy_sum / result.holdout_workloads;
  }

  PaCMCheckpointContents contents;
  contents.device = device.name;
  contents.records = result.train_programs;
  contents.predictor = network.get();
  absl::StatusOr<std::string> checkpoint = EncodePaCMCheckpoint(contents);
  if (!checkpoint.ok()) return checkpoint.status();
  result.checkpoint = *std::move(checkpoint);
  return result;
}

}  // namespace pruner
