// Sample random schedules of a workload (or take one given sentence), lower
// them, run them in the program interpreter and compare with the naive
// reference; with `run`, also build each one with the CPU compiler and run it
// in the measurement sandbox, whose own reference check decides. This is what
// `pruner check` and `pruner demo` print: the engine's end-to-end sanity check
// of lowering (interpreter) and of code generation (build and run).
#ifndef PRUNER_CLIENT_SCHEDULE_CHECK_H_
#define PRUNER_CLIENT_SCHEDULE_CHECK_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "common/codegen/cpu_compiler.h"
#include "common/device/device_profile.h"
#include "common/ir/compute_dag.h"

namespace pruner {

struct ScheduleCheckOptions {
  int num_schedules = 20;
  uint64_t seed = 1;
  bool show_example = false;  // print one sentence and its lowered program
  // Check this one sentence instead of sampling (num_schedules is ignored).
  std::string steps;
  // Check the task's seed schedules (common/sketch/seed_schedules.h), the
  // ones the search measures first, instead of sampling.
  bool seeds = false;
  // Also build and run every schedule that lowered, on this machine's CPU
  // (the device must be the local CPU's profile).
  bool run = false;
  int num_threads = 1;  // OpenMP threads of the kernels that run
  // -march for the builds; empty: the compiler's default for measurement
  // ("native"). Another CPU's code generation can be checked here when this
  // CPU runs its instructions ("sapphirerapids" on an AVX-512 EPYC).
  std::string march;
  double build_timeout_s = 15;  // per build, as tuning uses
  CpuBackend backend = CpuBackend::kLlvm;
  // How many failing sentences the report keeps (to replay with --steps).
  int max_failed_sentences = 5;
};

struct ScheduleCheckReport {
  std::string workload_key;
  double gflop = 0;
  int num_sketches = 0;
  int sampled = 0;
  int lowered = 0;
  int matched = 0;  // the interpreter's output matches the reference
  // Failure message → count, for every stage that can fail.
  std::map<std::string, int> failures;
  // With `run`: schedules built and run, those whose run matched the
  // reference, and "<error> [<phase>]: <message>" → count for the others.
  int ran = 0;
  int run_matched = 0;
  std::map<std::string, int> run_failures;
  // With `run` and one given sentence: its mean time over the measurer's
  // repeats (warm, number/repeat as tuning measures), 0 if it failed.
  double run_mean_s = 0;
  // With `run` and `seeds`: each seed's sentence and mean time (0: failed).
  std::vector<std::pair<std::string, double>> timed_seeds;
  // Sentences that failed anywhere, each with why, the first few only.
  std::vector<std::string> failed_sentences;
  std::string example;  // sentence + program, when requested
};

absl::StatusOr<ScheduleCheckReport> CheckSchedules(std::shared_ptr<const ComputeDag> dag,
                                                   const DeviceProfile& device,
                                                   const ScheduleCheckOptions& options);

// The same for an operator spec (`pruner ops`).
absl::StatusOr<ScheduleCheckReport> CheckRandomSchedules(const std::string& op_spec,
                                                         const DeviceProfile& device,
                                                         const ScheduleCheckOptions& options);

}  // namespace pruner

#endif  // PRUNER_CLIENT_SCHEDULE_CHECK_H_
