// Runs a built CPU module in a sandbox child: correctness check, then
// timing.
//
// In the child: dlopen the module, put each input and output in a
// GuardedBuffer (guard pages both sides, canaries in the slack), copy the
// inputs in, fill the outputs with NaN (an element the kernel never writes
// then fails the check), run once, check the canaries, compare each output
// with `expected` (computed by the parent before the fork, so the child
// inherits it and only a small reply crosses the pipe), then time: `warmup`
// untimed calls, then `repeat` repeats of `number` calls, a repeat shorter
// than min_repeat_ms timed again with a larger number (TVM's rule, which
// carries over), an optional cache flush before each timed repeat; the
// canaries are checked again after timing. A hopeless candidate (slower
// than hopeless_after_s on the checked call) skips the timing: that call's
// time is its one repeat.
//
// Outcomes: kNone with one cost per repeat; kRunError (signal, guard page
// hit, canary overwritten, non-zero return code, load failure, garbled
// reply), kRunTimeout (deadline run_timeout_s), kWrongResult (phase
// "check", naming the output and its first mismatching index).
#ifndef PRUNER_COMMON_MEASURE_CPU_RUNNER_H_
#define PRUNER_COMMON_MEASURE_CPU_RUNNER_H_

#include <vector>

#include "common/codegen/cpu_compiler.h"
#include "common/device/device_profile.h"
#include "common/ir/tensor.h"
#include "common/lower/program.h"
#include "common/measure/measure_types.h"
#include "common/measure/run_reply.h"

namespace pruner {

// `inputs` follow Program::inputs, `expected` Program::outputs. `device`
// gives the last-level cache size for the flush buffer. When
// `hopeless_after_s` > 0 and the checked first call took longer, up to two
// more calls follow at once; if the fastest of them all took longer too,
// it is the whole timing (one repeat; MeasureOptions::hopeless_factor).
RunOutcome RunCpuModuleSandboxed(const BuiltModule& module, const Program& program,
                                 const std::vector<Tensor>& inputs,
                                 const std::vector<Tensor>& expected,
                                 const MeasureOptions& options, const DeviceProfile& device,
                                 double hopeless_after_s);

}  // namespace pruner

#endif  // PRUNER_COMMON_MEASURE_CPU_RUNNER_H_
