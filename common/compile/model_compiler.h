// `pruner compile`: an imported model becomes one shared library that runs
// it on the CPU: every fused group's kernel (the best tuned schedule of its
// task for the device, or a default schedule, default_schedule.h), the
// model's weights (in the layouts the kernels read, transformed once here),
// a plan of steps, and the runtime of pruner_model.h behind a C API.
//
// The plan:
// - one kernel per distinct fused group (equal groups share one kernel);
// - reshape views move nothing: a view shares its input's storage;
//   transposes are copies (TRANSPOSE steps);
// - a static memory plan: every intermediate tensor gets an offset in one
//   arena, reused once the tensor is dead (first fit, by liveness over the
//   steps); inputs are copied into the arena, outputs out of it;
// - weights live in the library's read-only data, 64-byte aligned.
//
// Kernels are compiled by the LLVM backend for `llvm_cpu` and linked by the
// system C++ compiler with the runtime sources, which run on any CPU of
// that ISA level.
#ifndef PRUNER_COMMON_COMPILE_MODEL_COMPILER_H_
#define PRUNER_COMMON_COMPILE_MODEL_COMPILER_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/compile/default_schedule.h"
#include "common/device/device_profile.h"
#include "common/graph/onnx_import.h"
#include "common/store/records_store.h"

namespace pruner {

struct TunedSchedule {
  std::string steps;  // StepsToString() sentence
  double mean_s = 0;  // its measured time
};
// The tuned schedule of a workload, or NotFound.
using TunedSchedules = std::function<absl::StatusOr<TunedSchedule>(const std::string& workload_key)>;

// The best ok record of each workload on `device_key` in `store`.
TunedSchedules TunedSchedulesFrom(const RecordsStore& store, std::string device_key);

// No tuned schedules at all: every kernel gets the default.
TunedSchedules NoTunedSchedules();

struct CompileModelOptions {
  std::string out_path;         // the shared library to write
  DeviceProfile device;         // lowering and default schedules
  std::string llvm_cpu;         // LLVM CPU of the kernels; "" = the device's ISA level
  DefaultScheduleOptions defaults;
  std::function<void(const std::string&)> progress;  // one line per stage, may be empty
};

struct CompiledKernel {
  std::string name;  // the fused group's task name
  std::string workload_key;
  bool tuned = false;    // a record's schedule; false: the default
  double tuned_mean_s = 0;
  int occurrences = 0;   // groups of the model that run it
  double flops = 0;      // per run
};

struct CompileReport {
  std::vector<CompiledKernel> kernels;
  int64_t steps = 0;
  int64_t arena_bytes = 0;     // the memory plan's arena
  int64_t unshared_bytes = 0;  // what the intermediates would take without reuse
  int64_t weight_bytes = 0;
  double seconds = 0;
};

absl::StatusOr<CompileReport> CompileModel(const OnnxModel& model, const TunedSchedules& tuned,
                                           const CompileModelOptions& options);

}  // namespace pruner

#endif  // PRUNER_COMMON_COMPILE_MODEL_COMPILER_H_
