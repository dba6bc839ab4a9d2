// The search-policy interface of the tuning loop (../shared/specs/ansor.md §3.2): each
// round the loop asks a task's policy for up to n new schedules, measures
// them, and tells the policy (and the shared cost model) what came out.
//
// The loop owns measurement, the records store and the cost model's
// training; a policy owns only how candidates are drafted and picked. That
// is the seam where Pruner's LSE drafting and PaCM verification plug in
// without touching the loop.
#ifndef PRUNER_COMMON_SEARCH_SEARCH_POLICY_H_
#define PRUNER_COMMON_SEARCH_SEARCH_POLICY_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/device/device_profile.h"
#include "common/ir/compute_dag.h"
#include "common/model/cost_model.h"
#include "common/schedule/state.h"
#include "common/search/search_counters.h"

namespace pruner {

// One tuning task: a workload on a device, with its weight in the job's
// objective (how many times the subgraph occurs in the network).
struct SearchTask {
  std::string name;  // "conv2d_bias_relu_56x56x64" or the operator spec
  std::shared_ptr<const ComputeDag> dag;
  std::string workload_key;  // dag->WorkloadKey()
  DeviceProfile device;
  double weight = 1;
};

class SearchPolicy {
 public:
  virtual ~SearchPolicy() = default;

  // "random", "evolutionary", ...
  virtual std::string Name() const = 0;

  // Up to `n` concrete states to measure next, none of which this policy has
  // proposed or been told about before (de-duplicated by State::ToStr). An
  // empty vector means the policy found nothing new: the task's space is
  // exhausted for this policy. Errors are real failures (no sketch applies).
  virtual absl::StatusOr<std::vector<State>> Propose(int n) = 0;

  // Measured programs of this task: the results of Propose(), or records
  // restored from the database when a job resumes. They join the measured
  // set (never proposed again) and, when ok, seed the next population.
  virtual void Record(const std::vector<MeasuredState>& results) = 0;

  // Cumulative time and work breakdown (search_counters.h); policies that
  // do not keep counters report zeros.
  virtual SearchCounters Counters() const { return {}; }

  // What the last Propose() did in Pruner's draft-then-verify terms (how
  // many states the drafter and the verifier scored, and their time), for
  // the job's round report; std::nullopt for policies that do not draft.
  virtual std::optional<DraftVerifyRoundStats> LastDraftVerifyRound() const {
    return std::nullopt;
  }
};

}  // namespace pruner

#endif  // PRUNER_COMMON_SEARCH_SEARCH_POLICY_H_
