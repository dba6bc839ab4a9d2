// Shared set-up of the tuning-loop tests: small real workloads and quick
// measurement options (one short repeat; these tests check the loop, not
// the timings).
#ifndef PRUNER_TESTS_TUNE_TUNE_TEST_UTIL_H_
#define PRUNER_TESTS_TUNE_TUNE_TEST_UTIL_H_

#include <memory>
#include <string>
#include <vector>

#include "common/device/device_profile.h"
#include "common/ir/ops.h"
#include "common/search/search_policy.h"
#include "common/tune/tuning_options.h"
#include "gtest/gtest.h"

namespace pruner {

inline SearchTask OperatorTask(const std::string& spec, double weight = 1) {
  auto dag = BuildOperator(spec);
  EXPECT_TRUE(dag.ok()) << dag.status();
  SearchTask task;
  task.name = spec;
  task.dag = std::make_shared<const ComputeDag>(*std::move(dag));
  task.workload_key = task.dag->WorkloadKey();
  task.weight = weight;
  return task;
}

inline TuningOptions QuickOptions(const std::string& strategy, int64_t budget, int per_round) {
  TuningOptions o;
  o.strategy = strategy;
  o.trial_budget = budget;
  o.measures_per_round = per_round;
  o.population = 64;
  o.num_iters = 1;
  o.measure.number = 1;
  o.measure.repeat = 2;
  o.measure.min_repeat_ms = 0;
  o.measure.run_timeout_s = 5;
  return o;
}

inline DeviceProfile LocalCpu() {
  auto cpu = GetDeviceProfile("cpu");
  EXPECT_TRUE(cpu.ok());
  return *cpu;
}

}  // namespace pruner

#endif  // PRUNER_TESTS_TUNE_TUNE_TEST_UTIL_H_
