// Sketch generation (ansor.md §2.1-2.3): the loop-structure skeletons that
// random annotation fills in.
//
// Sketches are derived by rules from properties of the stages (data reuse,
// reductions, element-wise consumers), never from per-operator templates.
// A derivation walks the stages from the last (outputs) to the first, so
// every consumer is decided before its producers, and each rule may fork the
// walk into several sketches.
#ifndef PRUNER_COMMON_SKETCH_SKETCH_H_
#define PRUNER_COMMON_SKETCH_SKETCH_H_

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/device/device_profile.h"
#include "common/ir/compute_dag.h"
#include "common/schedule/state.h"
#include "common/schedule/step.h"

namespace pruner {

// What the derivation knows about the stages it transformed. Stages are
// named by tensor id (Op::id), which, unlike stage indices, survives the
// stage insertions of later cache and rfactor steps.
struct SketchRecord {
  // Multi-level tiled stages: the SP steps that split their spatial axes,
  // in iterator order. Cooperative fetching follows these (FFSP).
  std::map<int, std::vector<int>> tiled;
  // Consumers that follow a tiled producer's spatial splits (tiling with
  // fusion), with the producer's SP steps they follow.
  std::map<int, std::vector<int>> followers;
  // Stages created by a rule's cache_write (the "C.local" stages).
  std::set<int> cache_writes;
  // The SP steps whose single length is left for annotation to choose: the
  // split that an rfactor step factors (the "rfactor hack", §1.3).
  std::vector<int> rfactor_splits;
  // "RuleName@stage" for every rule applied, in order (for debugging).
  std::vector<std::string> trace;

  bool IsMultiLevelTiled(int tensor_id) const {
    return tiled.count(tensor_id) > 0 || followers.count(tensor_id) > 0;
  }
};

struct Sketch {
  std::shared_ptr<const ComputeDag> dag;
  DeviceKind device_kind = DeviceKind::kCpu;
  // The sentence, with the split lengths annotation must choose left open
  // (std::nullopt), the rfactor splits included.
  std::vector<Step> steps;
  SketchRecord record;
  // The derived state. Its rfactor splits have length 1 (the state cannot
  // be built with them open); everything else matches `steps`.
  State state;

  // Multi-line description: the rule trace, the sentence and the loop nest.
  std::string ToString() const;
};

// Knobs of the rules; the defaults are Ansor's.
struct SketchOptions {
  std::string cpu_structure = "SSRSRS";
  std::string gpu_structure = "SSSRRSRS";
  std::vector<int> cpu_fusion_levels = {1, 2};
  std::vector<int> gpu_fusion_levels = {3};
  // The search measures seed_schedules.h's schedules (depthwise and
  // Winograd convolutions, matrix products) first: not Ansor's; off for
  // the random policy (random_policy.h).
  bool seed_schedules = true;
};

// All sketches of `dag` for the device's kind (cpu or gpu rule set).
absl::StatusOr<std::vector<Sketch>> GenerateSketches(std::shared_ptr<const ComputeDag> dag,
                                                     const DeviceProfile& device,
                                                     const SketchOptions& options = {});

}  // namespace pruner

#endif  // PRUNER_COMMON_SKETCH_SKETCH_H_
