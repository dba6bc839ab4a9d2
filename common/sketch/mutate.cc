// Mutation dispatch and the auto-unroll rule.
#include "common/sketch/mutate.h"

#include "common/sketch/annotate_validity.h"
#include "common/sketch/mutate_rules.h"

namespace pruner {

const char* MutationKindName(MutationKind kind) {
  switch (kind) {
    case MutationKind::kTileSize: return "tile_size";
    case MutationKind::kAutoUnroll: return "auto_unroll";
    case MutationKind::kComputeLocation: return "compute_location";
    case MutationKind::kParallel: return "parallel";
  }
  return "?";
}

std::vector<std::pair<MutationKind, double>> MutationWeights(const DeviceProfile& device) {
  if (device.IsGpu()) {
    return {{MutationKind::kTileSize, 0.90}, {MutationKind::kAutoUnroll, 0.10}};
  }
  return {{MutationKind::kTileSize, 0.90},
          {MutationKind::kAutoUnroll, 0.04},
          {MutationKind::kComputeLocation, 0.05},
          {MutationKind::kParallel, 0.01}};
}

absl::StatusOr<State> Mutate(const State& state, MutationKind kind, const DeviceProfile& device,
                             Rng& rng, const AnnotationOptions& options) {
  switch (kind) {
    case MutationKind::kTileSize: return MutateTileSize(state, device, rng, options);
    case MutationKind::kAutoUnroll: return MutateAutoUnroll(state, device, rng, options);
    case MutationKind::kComputeLocation:
      if (device.IsGpu()) {
        return absl::FailedPreconditionError("compute locations are fixed by GPU sketches");
      }
      return MutateComputeLocation(state, device, rng, options);
    case MutationKind::kParallel:
      if (device.IsGpu()) return absl::FailedPreconditionError("no parallel loops on a GPU");
      return MutateParallel(state, device, rng, options);
  }
  return absl::InvalidArgumentError("unknown mutation kind");
}

absl::StatusOr<State> MutateRandom(const State& state, const DeviceProfile& device, Rng& rng,
                                   const AnnotationOptions& options) {
  const auto weighted = MutationWeights(device);
  std::vector<double> weights;
  for (const auto& [kind, weight] : weighted) weights.push_back(weight);
  return Mutate(state, weighted[rng.WeightedIndex(weights)].first, device, rng, options);
}

absl::StatusOr<State> MutateAutoUnroll(const State& state, const DeviceProfile& device, Rng& rng,
                                       const AnnotationOptions& options) {
  std::vector<Step> steps = state.steps();
  std::vector<size_t> pragmas;
  for (size_t i = 0; i < steps.size(); ++i) {
    if (steps[i].kind == StepKind::kPragma) pragmas.push_back(i);
  }
  if (pragmas.empty()) return absl::FailedPreconditionError("no auto-unroll pragma to mutate");
  Step& pragma = steps[rng.Choice(pragmas)];
  std::vector<int64_t> values;
  for (int64_t v : device.IsGpu() ? options.gpu_auto_unroll : options.cpu_auto_unroll) {
    if (v != pragma.pragma_value) values.push_back(v);
  }
  if (values.empty()) return absl::FailedPreconditionError("no other auto-unroll value");
  pragma.pragma_value = rng.Choice(values);
  return ReplayValidSchedule(state.original_dag(), steps, device, options);
}

}  // namespace pruner
