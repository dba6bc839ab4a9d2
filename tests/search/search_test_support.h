// Tasks and helpers shared by the search tests.
#ifndef PRUNER_TESTS_SEARCH_SEARCH_TEST_SUPPORT_H_
#define PRUNER_TESTS_SEARCH_SEARCH_TEST_SUPPORT_H_

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "common/device/device_profile.h"
#include "common/ir/ops.h"
#include "common/model/cost_model.h"
#include "common/search/search_policy.h"
#include "gtest/gtest.h"
#include "tests/support/pinned_cpus.h"

namespace pruner::testing {

// "cpu" is the pinned EPYC profile (tests/support/pinned_cpus.h: the
// sketches and the annotations depend on the CPU, and these tests run no
// kernels); any other name is a built-in profile ("a100").
inline SearchTask MakeTask(const std::string& spec, const std::string& device_name) {
  SearchTask task;
  task.name = spec;
  auto dag = BuildOperator(spec);
  EXPECT_TRUE(dag.ok()) << spec << ": " << dag.status();
  if (dag.ok()) {
    task.dag = std::make_shared<const ComputeDag>(*std::move(dag));
    task.workload_key = task.dag->WorkloadKey();
  }
  if (device_name == "cpu") {
    task.device = PinnedEpycCpu();
    return task;
  }
  auto device = GetDeviceProfile(device_name);
  EXPECT_TRUE(device.ok()) << device_name << ": " << device.status();
  if (device.ok()) task.device = *device;
  return task;
}

inline std::set<std::string> Strs(const std::vector<State>& states) {
  std::set<std::string> out;
  for (const State& s : states) out.insert(s.ToStr());
  return out;
}

// A measurement result for a state (the time is made up by the test).
inline MeasuredState Measured(const State& state, const SearchTask& task, double cost_s,
                              bool ok = true) {
  return MeasuredState{state, task.workload_key, cost_s, ok};
}

// Two policies built alike (same task, model, options and seed) propose
// the same schedules, in the same order.
inline void ExpectSameProposals(SearchPolicy& a, SearchPolicy& b, int n) {
  auto x = a.Propose(n);
  auto y = b.Propose(n);
  ASSERT_TRUE(x.ok() && y.ok());
  ASSERT_EQ(x->size(), y->size());
  for (size_t i = 0; i < x->size(); ++i) EXPECT_EQ((*x)[i].ToSentence(), (*y)[i].ToSentence());
}

}  // namespace pruner::testing

#endif  // PRUNER_TESTS_SEARCH_SEARCH_TEST_SUPPORT_H_
