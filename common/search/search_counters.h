// Where a search policy spends its time, for the tuning loop's per-round
// breakdown (search vs. measure vs. train) and for benchmarks. Counters are
// cumulative over the policy's life; the loop takes differences per round.
#ifndef PRUNER_COMMON_SEARCH_SEARCH_COUNTERS_H_
#define PRUNER_COMMON_SEARCH_SEARCH_COUNTERS_H_

#include <chrono>
#include <cstdint>

namespace pruner {

struct SearchCounters {
  int64_t rounds = 0;    // search rounds run (a retried empty round counts twice)
  int64_t proposed = 0;  // states returned by Propose

  // Wall time, seconds.
  double total_s = 0;    // inside Propose, everything included
  double sketch_s = 0;   // generating the sketches (once per policy)
  double sample_s = 0;   // random annotation (initial population, random picks)
  double mutate_s = 0;   // building the next generations (selection + mutation)
  double predict_s = 0;  // inside CostModel::Predict

  int64_t sample_attempts = 0;   // SampleSchedule calls
  int64_t sampled_valid = 0;     // ... that gave a valid state
  int64_t mutations_ok = 0;
  int64_t mutations_failed = 0;  // invalid edits (the search just tries again)
  int64_t predict_calls = 0;
  int64_t predicted_states = 0;  // states sent to Predict (unique per round)

  SearchCounters& operator+=(const SearchCounters& o);
  // Field-wise difference: what happened between two snapshots.
  friend SearchCounters operator-(SearchCounters a, const SearchCounters& b);
};

// How the eps-greedy pick of one round filled it (eps_greedy.h).
struct PickStats {
  int from_best = 0;
  int from_random = 0;
  int skipped_known = 0;  // candidates skipped because already measured/proposed
};

// What one draft-then-verify round did (draft_verify_policy.h): how many
// states each model scored is the paper's overhead argument (the verifier
// sees hundreds, not thousands).
struct DraftVerifyRoundStats {
  int sample = 0;            // distinct random states
  bool drafted = false;      // a new S_spec this round (else the cached one)
  int draft = 0;             // |S_spec| used
  int seeds = 0;             // measured states added to the verify population
  int random_pool = 0;
  int best_found = 0;
  int64_t drafter_scored = 0;   // states the drafter scored this round
  int64_t verifier_scored = 0;  // states the verifier scored this round
  double draft_s = 0;
  double verify_s = 0;
  PickStats picks;
};

// Adds the lifetime of the object, in seconds, to *sink.
class ScopedSeconds {
 public:
  explicit ScopedSeconds(double* sink) : sink_(sink), start_(std::chrono::steady_clock::now()) {}
  ~ScopedSeconds() {
    *sink_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }
  ScopedSeconds(const ScopedSeconds&) = delete;
  ScopedSeconds& operator=(const ScopedSeconds&) = delete;

 private:
  double* sink_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace pruner

#endif  // PRUNER_COMMON_SEARCH_SEARCH_COUNTERS_H_
