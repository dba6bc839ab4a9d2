// SampleSchedule and SampleInitPopulation: the annotation pipeline.
#include "common/sketch/annotate.h"

#include <algorithm>
#include <unordered_set>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/lower/bound_inference.h"
#include "common/sketch/annotate_compute_location.h"
#include "common/sketch/annotate_rules.h"
#include "common/sketch/annotate_tile_size.h"
#include "common/sketch/annotate_validity.h"
#include "common/sketch/sketch_state_queries.h"

namespace pruner {
namespace {

constexpr int kMinAttemptsPerRound = 128;

}  // namespace

int64_t MaxVectorElements(const DeviceProfile& device, DType dtype,
                          const AnnotationOptions& options) {
  int64_t limit = options.max_vectorize_elements;
  if (device.vector_unit_bytes > 0) {
    // Lower() rejects vectors wider than the hardware's; Ansor's fixed 16
    // elements would exceed an AVX2 or CUDA (float4) register.
    limit = std::min<int64_t>(limit, device.vector_unit_bytes / DTypeBytes(dtype));
  }
  return std::max<int64_t>(limit, 1);
}

absl::Status AnnotateAutoUnroll(State* state, const std::vector<int64_t>& values, Rng& rng) {
  if (values.empty()) return absl::OkStatus();
  for (int stage = 0; stage < state->num_stages(); ++stage) {
    const Stage& s = state->stage(stage);
    if (s.is_placeholder() || s.compute_at == ComputeAtKind::kInlined || !HasReduceIter(s)) {
      continue;
    }
    if (absl::Status st = state->Apply(AutoUnrollPragmaStep(stage, 0, rng.Choice(values)));
        !st.ok()) {
      return st;
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<State> SampleSchedule(const Sketch& sketch, const DeviceProfile& device, Rng& rng,
                                     const AnnotationOptions& options) {
  if (sketch.device_kind != device.kind) {
    return absl::InvalidArgumentError(
        absl::StrCat("a ", std::string(DeviceKindName(sketch.device_kind)),
                     " sketch cannot be annotated for a ",
                     std::string(DeviceKindName(device.kind)), " device"));
  }
  PRUNER_ASSIGN_OR_RETURN(auto filled,
                          FillTileSizes(sketch.dag, sketch.steps, options.max_innermost_split_factor, rng));
  State state = std::move(filled);
  if (!device.IsGpu()) {
    if (options.change_compute_location) {
      PRUNER_RETURN_IF_ERROR(ChangeComputeLocations(&state, rng));
    }
    PRUNER_ASSIGN_OR_RETURN(auto inferred, InferBound(state));
    state = std::move(inferred);
    PRUNER_RETURN_IF_ERROR(AnnotateParallel(&state, device));
    PRUNER_RETURN_IF_ERROR(AnnotateAutoUnroll(&state, options.cpu_auto_unroll, rng));
    PRUNER_RETURN_IF_ERROR(AnnotateVectorization(&state, device, options, rng));
  } else {
    // Cooperative fetching needs the shared caches' regions.
    PRUNER_ASSIGN_OR_RETURN(auto inferred, InferBound(state));
    state = std::move(inferred);
    PRUNER_RETURN_IF_ERROR(BindGpuThreads(&state, sketch.record, device, options, rng));
    PRUNER_RETURN_IF_ERROR(AnnotateAutoUnroll(&state, options.gpu_auto_unroll, rng));
  }
  return ReplayValidSchedule(sketch.dag, state.steps(), device, options);
}

std::vector<State> SampleInitPopulation(const std::vector<Sketch>& sketches,
                                        const DeviceProfile& device, int n, Rng& rng,
                                        const AnnotationOptions& options) {
  std::vector<State> population;
  if (sketches.empty() || n <= 0) return population;
  std::unordered_set<std::string> seen;
  size_t target = static_cast<size_t>(n);
  int fruitless_rounds = 0;
  // Ansor draws rounds of a whole population (2048) however few states it
  // needs; a floor keeps small requests from giving up on spaces where
  // valid draws are rare (small GPU workloads).
  const int round = std::max(n, kMinAttemptsPerRound);
  while (population.size() < target) {
    const size_t before = population.size();
    for (int attempt = 0; attempt < round && population.size() < target; ++attempt) {
      const Sketch& sketch = sketches[rng.Below(sketches.size())];
      auto state = SampleSchedule(sketch, device, rng, options);
      if (!state.ok()) continue;
      if (seen.insert(state->ToStr()).second) population.push_back(*std::move(state));
    }
    if (population.size() > before) {
      fruitless_rounds = 0;
    } else if (++fruitless_rounds >= 5) {
      // The space is (nearly) exhausted: settle for less.
      target /= 2;
      fruitless_rounds = 0;
    }
  }
  return population;
}

}  // namespace pruner
