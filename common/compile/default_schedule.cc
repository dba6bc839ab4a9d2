#include "common/compile/default_schedule.h"

#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/model/symbol_analyzer_model.h"
#include "common/search/sample_states.h"
#include "common/search/task_sketches.h"
#include "common/sketch/seed_schedules.h"

namespace pruner {

absl::StatusOr<State> DefaultSchedule(std::shared_ptr<const ComputeDag> dag,
                                      const DeviceProfile& device,
                                      const DefaultScheduleOptions& options) {
  SearchTask task;
  task.name = "default";
  task.dag = dag;
  task.workload_key = dag->WorkloadKey();
  task.device = device;
  PRUNER_ASSIGN_OR_RETURN(std::vector<Sketch> sketches, TaskSketches(task, SketchOptions{}));
  // A depthwise or Winograd convolution takes its first seed schedule: on
  // MobileNet-V2's ten depthwise shapes those ran 1.3-3x faster than the
  // best of 64 measured trials of search, let alone the analyzer's pick
  // among unmeasured draws; inside ResNet-18 the Winograd row-block seeds
  // ran 1.1-2.5x faster than 2,000 trials' search picks.
  if (std::vector<State> seeds = SeedSchedules(sketches, device); !seeds.empty()) {
    return std::move(seeds.front());
  }
  Rng rng(options.seed);
  SearchCounters counters;
  SampleRequest request;
  request.target = options.draws;
  request.batch_size = options.draws;
  request.stop_at_target = true;
  SampledStates sampled =
      SampleDistinctStates(sketches, device, AnnotationOptions{}, request, rng, &counters);
  if (sampled.states.empty()) {
    return absl::InternalError(
        absl::StrCat("no valid schedule could be drawn for ", dag->WorkloadKey()));
  }
  SymbolAnalyzerModelOptions model_options;
  model_options.threads = 1;
  PRUNER_ASSIGN_OR_RETURN(std::unique_ptr<CostModel> model,
                          MakeSymbolAnalyzerModel(device, model_options));
  const std::vector<double> scores = model->Predict(sampled.states);
  size_t best = 0;
  double best_score = -std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < scores.size(); ++i) {
    if (std::isfinite(scores[i]) && scores[i] > best_score) {
      best_score = scores[i];
      best = i;
    }
  }
  return sampled.states[best];
}

}  // namespace pruner
