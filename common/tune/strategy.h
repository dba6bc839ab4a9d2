// Builds a job's strategy (parsed by strategy_spec.h) from its parts: the
// cost model the job's tasks share, and one search policy per task. The
// tuning loop knows only the CostModel and SearchPolicy interfaces; a new
// strategy is a row in KnownStrategySpecs() and, when it brings a new model
// or search, a case here.
#ifndef PRUNER_COMMON_TUNE_STRATEGY_H_
#define PRUNER_COMMON_TUNE_STRATEGY_H_

#include <memory>

#include "absl/status/statusor.h"
#include "common/analysis/analyzer_options.h"
#include "common/model/cost_model.h"
#include "common/search/search_policy.h"
#include "common/store/records_store.h"
#include "common/tune/strategy_spec.h"
#include "common/tune/tuning_options.h"

namespace pruner {

// The shared model, or nullptr for strategies without one ("random").
// `store` (may be null) is where pretrained checkpoints come from
// (moa-pruner, pruner-offline): the latest "pacm" checkpoint of
// options.pretrained_device.
absl::StatusOr<std::unique_ptr<CostModel>> MakeStrategyModel(const TuningOptions& options,
                                                             const DeviceProfile& device,
                                                             int num_tasks,
                                                             const RecordsStore* store = nullptr);

// The analyzer a draft-then-verify job drafts with: the CPU issue model
// with `draft_constants`, counting the code of the compiler that builds
// the job's kernels (options.measure.build.backend: LLVM's, or g++'s for
// `--backend gcc`; a service job's workers build with LLVM unless started
// with --cpu-backend gcc, which the server does not see).
AnalyzerOptions DraftAnalyzerOptions(const TuningOptions& options,
                                     const CpuIssueConstants& draft_constants);

// The policy of one task. `model` may be nullptr when the strategy has none.
// `draft_constants`: the CPU issue model's constants LSE drafts with
// (draft-then-verify strategies; draft_constants.h gives a device's).
absl::StatusOr<std::unique_ptr<SearchPolicy>> MakeStrategyPolicy(
    const TuningOptions& options, const SearchTask& task, CostModel* model, uint64_t seed,
    const CpuIssueConstants& draft_constants = {});

}  // namespace pruner

#endif  // PRUNER_COMMON_TUNE_STRATEGY_H_
