// What every policy that searches a task's sketches shares: the task, its
// sketches (generated on the first round), the set of states proposed and
// measured, the counters, the seeded generator, and the propose loop (check
// n and the policy's preconditions, generate the sketches once, run up to
// 1 + RetriesOnEmpty() rounds until one proposes something). A policy
// supplies one round; random, evolutionary and draft-then-verify search are
// each one SearchOneRound.
#ifndef PRUNER_COMMON_SEARCH_SKETCH_SEARCH_POLICY_H_
#define PRUNER_COMMON_SEARCH_SKETCH_SEARCH_POLICY_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/search/measured_states.h"
#include "common/search/search_counters.h"
#include "common/search/search_policy.h"
#include "common/sketch/random.h"
#include "common/sketch/sketch.h"

namespace pruner {

class SketchSearchPolicy : public SearchPolicy {
 public:
  absl::StatusOr<std::vector<State>> Propose(int n) final;
  // Results join the measured set (never proposed again) and, when ok,
  // the seeds of later rounds.
  void Record(const std::vector<MeasuredState>& results) override;
  SearchCounters Counters() const override { return counters_; }

  const SearchTask& task() const { return task_; }
  // States proposed or recorded so far (the de-duplication set).
  size_t num_known() const { return measured_.size(); }

 protected:
  SketchSearchPolicy(SearchTask task, SketchOptions sketch_options, uint64_t seed);

  // Checked at the start of every Propose: a missing model, options out of
  // range. OK by default.
  virtual absl::Status CheckReady() const { return absl::OkStatus(); }
  // Rounds tried again when one proposes nothing (Ansor's
  // retry_search_one_round_on_empty); 0 by default.
  virtual int RetriesOnEmpty() const { return 0; }
  // Up to n states nobody proposed or recorded before; empty when the round
  // found none. counters_.rounds and counters_.proposed are kept by Propose.
  virtual absl::StatusOr<std::vector<State>> SearchOneRound(int n) = 0;
  // After a round that proposed nothing, before its retry.
  virtual void OnEmptyRound() {}

  SearchTask task_;
  std::vector<Sketch> sketches_;  // filled before the first SearchOneRound
  MeasuredStates measured_;
  SearchCounters counters_;
  Rng rng_;

 private:
  // The first round's seed_schedules.h schedules, proposed ahead of the
  // policy's own picks (sketch_options_.seed_schedules).
  std::vector<State> TakeSeedSchedules(int n);

  SketchOptions sketch_options_;
  bool have_sketches_ = false;
  bool seeds_offered_ = false;
};

}  // namespace pruner

#endif  // PRUNER_COMMON_SEARCH_SKETCH_SEARCH_POLICY_H_
