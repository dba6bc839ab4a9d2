#include "common/model/symbol_analyzer_model.h"

#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"
#include "common/analysis/symbol_analyzer.h"
#include "common/base/status_macros.h"

namespace pruner {
namespace {

class SymbolAnalyzerModel final : public CostModel {
 public:
  SymbolAnalyzerModel(SymbolAnalyzer analyzer, int threads)
      : analyzer_(std::move(analyzer)), threads_(threads) {}

  std::string Name() const override { return "psa"; }

  absl::Status Update(const std::vector<MeasuredState>&) override { return absl::OkStatus(); }

  std::vector<double> Predict(const std::vector<State>& states) override {
    const std::vector<absl::StatusOr<double>> latencies = analyzer_.EstimateStates(states, threads_);
    std::vector<double> scores(states.size(), -std::numeric_limits<double>::infinity());
    for (size_t i = 0; i < states.size(); ++i) {
      if (!latencies[i].ok()) continue;
      const double score = 1.0 / *latencies[i];
      if (std::isfinite(score) && score > 0) scores[i] = score;
    }
    return scores;
  }

  int64_t NumTrainingRecords() const override { return 0; }

  absl::StatusOr<std::string> Save() const override { return std::string(); }

  absl::Status Load(std::string_view blob) override {
    if (!blob.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("psa model: expected an empty checkpoint, got ", blob.size(), " bytes"));
    }
    return absl::OkStatus();
  }

 private:
  SymbolAnalyzer analyzer_;
  int threads_ = 0;
};

}  // namespace

absl::StatusOr<std::unique_ptr<CostModel>> MakeSymbolAnalyzerModel(
    const DeviceProfile& device, const SymbolAnalyzerModelOptions& options) {
  PRUNER_ASSIGN_OR_RETURN(SymbolAnalyzer analyzer,
                          SymbolAnalyzer::Create(device, options.analyzer));
  return std::unique_ptr<CostModel>(
      std::make_unique<SymbolAnalyzerModel>(std::move(analyzer), options.threads));
}

}  // namespace pruner
