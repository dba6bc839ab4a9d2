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

#include "common/sketch/annotate.h"
#include "common/sketch/random.h"
#include "common/sketch/sketch.h"
#include "common/search/measured_states.h"
#include "common/search/search_policy.h"

namespace pruner {

struct RandomPolicyOptions {
  int min_batch = 128;             // draws per batch: max(n, min_batch)
  int max_fruitless_batches = 5;
  AnnotationOptions annotation;
  SketchOptions sketch;
};

class RandomSearchPolicy : public SearchPolicy {
 public:
  RandomSearchPolicy(SearchTask task, uint64_t seed, RandomPolicyOptions options = {});

  std::string Name() const override { return "random"; }
  absl::StatusOr<std::vector<State>> Propose(int n) override;
  void Record(const std::vector<MeasuredState>& results) override;
  SearchCounters Counters() const override { return counters_; }

  const SearchTask& task() const { return task_; }
  size_t num_known() const { return measured_.size(); }

 private:
  SearchTask task_;
  RandomPolicyOptions options_;
  Rng rng_;
  bool have_sketches_ = false;
  std::vector<Sketch> sketches_;
  MeasuredStates measured_;
  SearchCounters counters_;
};

}  // namespace pruner

#endif  // PRUNER_COMMON_SEARCH_RANDOM_POLICY_H_
