// The vocabulary of the measurement layer: what to measure, how, and what
// came out (error classes with the phase that produced them, raw repeat
// times).
//
// Error classes (Ansor's error codes, §6.2 of the spec, plus a wrong-result
// class that auto_scheduler defines but never produces):
// - kInvalidSchedule: replay, lowering or a resource check rejected the
//   schedule (phase "lower", "codegen" or "build").
// - kBuildError / kBuildTimeout: the compiler failed / outlived its deadline.
// - kRunError: the sandboxed run crashed (signal), wrote outside its buffers,
//   returned an error code, or its child sent back a garbled reply.
// - kRunTimeout: the sandboxed run outlived its deadline and was killed.
// - kWrongResult: the first run's outputs differ from the reference's.
// - kDeviceError: no device to run on (no CUDA driver/device), or the device
//   failed outside the kernel (context creation, module load).
// None of them is fatal to the calling process.
#ifndef PRUNER_COMMON_MEASURE_MEASURE_TYPES_H_
#define PRUNER_COMMON_MEASURE_MEASURE_TYPES_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "common/codegen/cpu_compiler.h"
#include "common/device/device_profile.h"
#include "common/ir/compute_dag.h"
#include "common/ir/tensor.h"
#include "common/schedule/step.h"

namespace pruner {

enum class MeasureError {
  kNone,
  kInvalidSchedule,
  kBuildError,
  kBuildTimeout,
  kRunError,
  kRunTimeout,
  kWrongResult,
  kDeviceError,
};

// "none", "invalid schedule", "build error", "build timeout", "run error",
// "run timeout", "wrong result", "device error".
std::string_view MeasureErrorName(MeasureError error);
// The inverse, for records that store the class by name (so the database
// reads well and does not depend on the enum's numbering): std::nullopt for
// any other text.
std::optional<MeasureError> ParseMeasureErrorName(std::string_view name);

struct MeasureInput {
  std::shared_ptr<const ComputeDag> dag;
  std::vector<Step> steps;  // replayed onto dag
  DeviceProfile device;
  // A second measurement: not on this worker when the farm has another of
  // the device (a local measurer has no other and ignores it).
  std::string avoid_worker;
};

struct MeasureResult {
  MeasureError error = MeasureError::kNone;
  // Where it happened: "lower", "codegen", "build", "run" or "check"
  // ("" when error == kNone).
  std::string phase;
  std::string message;
  // One entry per repeat: the repeat's duration divided by its `number` of
  // calls, in seconds. Empty on error.
  std::vector<double> repeat_costs_s;
  double mean_s = 0;  // mean of repeat_costs_s; 0 on error
  double build_s = 0;  // compiler wall time
  double run_s = 0;    // sandbox wall time (fork to reap), all repeats included
  int64_t binary_bytes = 0;
  // CPU cores kept busy by other work while the kernel ran (host_load.h):
  // records measured under contention can be filtered out of a dataset.
  // Negative: not sampled (GPU runs, failures before the run, old records).
  double host_busy_cores = -1;
  // The worker that measured it; empty: whoever the caller is (a local
  // measurer leaves it empty).
  std::string measured_by;

  bool ok() const { return error == MeasureError::kNone; }
  // "run error [run]: killed by signal SIGSEGV ..." for logs and tests.
  std::string Describe() const;
};

struct MeasureOptions {
  // TVM time-evaluator semantics (§6.4): one or more untimed warm-up calls,
  // then `repeat` repeats of `number` back-to-back calls. A repeat shorter
  // than min_repeat_ms is timed again with number raised to
  // max(min_repeat_ms / per-call + 1, 1.618 * number), and the raised number
  // carries over to later repeats. Defaults follow Ansor's LocalRunner
  // (number 3, min_repeat_ms 100) with repeat 3 so that the spread is known.
  int number = 3;
  int repeat = 3;
  double min_repeat_ms = 100;
  int warmup = 1;
  // Hopeless candidates (CPU): when > 0, a candidate whose first call (the
  // checked one) and the up to two calls right after it all took longer
  // than hopeless_factor times the fastest mean already measured for its
  // workload in the same batch is timed by the fastest of those calls
  // alone: no warm-up, one repeat (the first call alone is cold: see
  // cpu_runner.cc). A schedule that slow cannot be the best, and its
  // warm-up and repeats were most of the run time of a tuner's first,
  // random rounds (dense 1024^3: 100-500 ms a call). 0: every candidate
  // gets the full protocol.
  double hopeless_factor = 0;
  // Before every timed repeat, write a buffer larger than the last-level
  // cache so that inputs come from DRAM (meaningful with number = 1 and
  // min_repeat_ms = 0, as TVM's LocalRunner forces; here the caller decides).
  bool flush_cache = false;

  // OpenMP threads of a CPU kernel's parallel loops; 0 keeps the runtime's
  // default (every hardware thread). 1 gives timings that another busy
  // process cannot stall at the kernel's barriers (on a loaded 2-core
  // machine a 2-thread kernel's time snaps to scheduler ticks).
  int num_threads = 0;

  double build_timeout_s = 15;  // per build (Ansor LocalBuilder default)
  double run_timeout_s = 10;    // per run, whole sandbox child (LocalRunner)
  int max_parallel_builds = 2;

  // Correctness check of the first run against the reference executor
  // (CheckKernelOutput): |got - want| <= atol * max(1, rms(want)) +
  // rtol * |want|.
  double rtol = 1e-3;  // FMA contraction and vector reductions reorder sums
  double atol = 1e-4;
  uint64_t seed = 1;  // RandomInputs seed: non-zero values in [0.1, 1] in magnitude

  // Compiler, flags and resource limits; its timeout is replaced by
  // build_timeout_s.
  CpuBuildOptions build;
  // Where sources and .so files go. Empty: a fresh directory under $TMPDIR
  // (or /tmp), removed when MeasureBatch returns.
  std::string work_dir;
};

// The correctness check of one kernel output against the reference's:
// CheckAllClose with rtol and atol * max(1, rms(want)). Reordered float sums
// err in proportion to the partial sums, which grow with the output's scale,
// not with each element: a 128-channel Winograd F(4x4, 3x3) convolution
// whose outputs have an rms of 12 errs by up to 1e-4 on its outputs near
// zero, where a fixed atol of 1e-4 would call a correct kernel wrong. A
// wrong index or a missing term errs by the scale of an input product
// (0.01 at least for the check's inputs), far above this bound.
absl::Status CheckKernelOutput(const Tensor& got, const Tensor& want, const MeasureOptions& options);

}  // namespace pruner

#endif  // PRUNER_COMMON_MEASURE_MEASURE_TYPES_H_
