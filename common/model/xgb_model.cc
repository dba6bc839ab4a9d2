#include "common/model/xgb_model.h"

#include <memory>
#include <optional>
#include <vector>

#include "common/base/status_macros.h"
#include "common/features/statement_features.h"
#include "common/lower/lower.h"
#include "common/model/pacm_symbols.h"

namespace pruner {
namespace {

// Statement rows, each followed by the program's analyzer vector (zeros
// where the analyzer cannot estimate the program, as PaCM leaves them).
StateRows StatementRowsWithSymbols(const DeviceProfile& device) {
  auto analyzer = std::make_shared<const std::optional<SymbolAnalyzer>>(PaCMSymbolAnalyzer(device));
  constexpr int kWidth = kNumStatementFeatures + kProgramSymbolWidth;
  return {kWidth, [device, analyzer](const State& state) -> absl::StatusOr<std::vector<float>> {
            PRUNER_ASSIGN_OR_RETURN(Program program, Lower(state, device));
            const ProgramFeatures rows = ExtractStatementFeatures(program, device);
            ProgramSymbolVector symbols{};
            if (analyzer->has_value()) {
              absl::StatusOr<ProgramSymbolVector> v = ProgramSymbolsOf(program, **analyzer);
              if (v.ok()) symbols = *v;
            }
            std::vector<float> out;
            out.reserve(rows.size() * kWidth);
            for (const StatementFeatures& row : rows) {
              out.insert(out.end(), row.begin(), row.end());
              out.insert(out.end(), symbols.begin(), symbols.end());
            }
            return out;
          }};
}

}  // namespace

std::unique_ptr<CostModel> MakeXgbModel(const DeviceProfile& device,
                                        const XgbModelOptions& options) {
  XgbParams params = options.xgb;
  auto make_regressor = [params] { return MakeXgbPackRegressor(params); };
  if (options.analyzer_symbols) {
    return std::make_unique<LearnedCostModel>("xgb-sym", device, options.training, make_regressor,
                                              StatementRowsWithSymbols(device));
  }
  return std::make_unique<LearnedCostModel>("xgb", device, options.training, make_regressor);
}

}  // namespace pruner
