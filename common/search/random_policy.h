// The baseline policy: random schedules from the task's sketches, no cost
// model. Propose(n) draws batches of max(n, 128) random annotations until it
// has n states never proposed or recorded before; after 5 batches in a row
// that find nothing new it returns what it has, and an empty answer means
// the space is (very probably) exhausted.
#ifndef PRUNER_COMMON_SEARCH_RANDOM_POLICY_H_
#define PRUNER_COMMON_SEARCH_RANDOM_POLICY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "common/search/sketch_search_policy.h"
#include "common/sketch/annotate.h"
#include "common/sketch/sketch.h"

namespace pruner {

struct RandomPolicyOptions {
  int min_batch = 128;             // draws per batch: max(n, min_batch)
  int max_fruitless_batches = 5;
  AnnotationOptions annotation;
  // Uniform draws only: the random baseline, and the datasets of random
  // schedules drawn with it (dataset_collection.h), hold no hand-shaped
  // seed schedules.
  SketchOptions sketch{.seed_schedules = false};
};

class RandomSearchPolicy : public SketchSearchPolicy {
 public:
  RandomSearchPolicy(SearchTask task, uint64_t seed, RandomPolicyOptions options = {});

  std::string Name() const override { return "random"; }

 private:
  absl::StatusOr<std::vector<State>> SearchOneRound(int n) override;

  RandomPolicyOptions options_;
};

}  // namespace pruner

#endif  // PRUNER_COMMON_SEARCH_RANDOM_POLICY_H_
