#include "common/measure/cpu_runner.h"

#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/codegen/cpu_codegen.h"
#include "common/codegen/cpu_kernel.h"
#include "common/codegen/cpu_runtime.h"
#include "common/measure/guarded_buffer.h"
#include "common/measure/sandbox.h"

namespace pruner {
namespace {

using Clock = std::chrono::steady_clock;

// Writing (not just reading) a buffer twice the LLC evicts the arguments
// and leaves dirty lines of our own, as inference between layers would.
class CacheFlusher {
 public:
  explicit CacheFlusher(const DeviceProfile& device) {
    const int64_t llc = std::max({device.l3_cache_bytes, device.l2_cache_bytes, int64_t{8} << 20});
    buffer_.assign(static_cast<size_t>(2 * llc), 0);
  }
  void Flush() {
    ++round_;
    // Every 64-byte line once; volatile so the stores are not elided.
    volatile char* p = buffer_.data();
    for (size_t i = 0; i < buffer_.size(); i += 64) p[i] = static_cast<char>(round_ + i);
  }

 private:
  std::vector<char> buffer_;
  unsigned round_ = 0;
};

struct KernelArgs {
  std::vector<GuardedBuffer> buffers;  // inputs then outputs
  std::vector<float*> pointers;
  std::vector<std::string> names;
};

absl::StatusOr<KernelArgs> PrepareArgs(const Program& program, const std::vector<Tensor>& inputs) {
  if (inputs.size() != program.inputs.size()) {
    return absl::InvalidArgumentError(absl::StrCat("the program takes ", program.inputs.size(),
                                                   " inputs, got ", inputs.size()));
  }
  KernelArgs args;
  auto add = [&](int id) -> absl::StatusOr<float*> {
    const Buffer& b = program.buffer(id);
    PRUNER_ASSIGN_OR_RETURN(auto buffer, GuardedBuffer::Allocate(b.num_elements()));
    args.buffers.push_back(std::move(buffer));
    args.pointers.push_back(args.buffers.back().data());
    args.names.push_back(b.name);
    return args.pointers.back();
  };
  for (size_t i = 0; i < inputs.size(); ++i) {
    PRUNER_ASSIGN_OR_RETURN(std::vector<float> values,
                            InputInBufferLayout(program.buffer(program.inputs[i]), inputs[i]));
    PRUNER_ASSIGN_OR_RETURN(auto data, add(program.inputs[i]));
    std::copy(values.begin(), values.end(), data);
  }
  for (int id : program.outputs) {
    PRUNER_ASSIGN_OR_RETURN(auto data, add(id));
    std::fill(data, data + program.buffer(id).num_elements(),
              std::numeric_limits<float>::quiet_NaN());
  }
  return args;
}

absl::Status CheckCanaries(const KernelArgs& args) {
  for (size_t i = 0; i < args.buffers.size(); ++i) {
    if (!args.buffers[i].CanaryIntact()) {
      return absl::InternalError(absl::StrCat("the kernel wrote just outside buffer ",
                                              args.names[i], " (canary overwritten)"));
    }
  }
  return absl::OkStatus();
}

absl::Status CallKernel(const LoadedKernel& kernel, const KernelArgs& args) {
  const int rc = kernel.entry()(args.pointers.data());
  if (rc == 0) return absl::OkStatus();
  if (rc == kCpuErrorOutOfMemory) return absl::InternalError("the kernel could not allocate its buffers");
  return absl::InternalError(absl::StrCat("the kernel returned ", rc));
}

absl::Status CompareOutputs(const Program& program, const KernelArgs& args, size_t first_output,
                            const std::vector<Tensor>& expected, const MeasureOptions& options) {
  for (size_t k = 0; k < program.outputs.size(); ++k) {
    const Buffer& b = program.buffer(program.outputs[k]);
    Tensor got = Tensor::Zeros(b.shape, b.dtype);
    const float* data = args.pointers[first_output + k];
    std::copy(data, data + got.num_elements(), got.data.begin());
    const absl::Status close = CheckKernelOutput(got, expected[k], options);
    if (!close.ok()) return absl::InternalError(absl::StrCat("output ", b.name, ": ", close.message()));
  }
  return absl::OkStatus();
}

// TVM's time evaluator (spec §6.4). Returns seconds per call for each repeat.
absl::StatusOr<std::vector<double>> TimeRepeats(const LoadedKernel& kernel, const KernelArgs& args,
                                                const MeasureOptions& options,
                                                CacheFlusher* flusher) {
  for (int i = 0; i < options.warmup; ++i) {
    PRUNER_RETURN_IF_ERROR(CallKernel(kernel, args));
  }
  std::vector<double> costs;
  double number = std::max(options.number, 1);
  while (static_cast<int>(costs.size()) < std::max(options.repeat, 1)) {
    if (flusher != nullptr) flusher->Flush();
    const int64_t calls = static_cast<int64_t>(number);
    const Clock::time_point start = Clock::now();
    for (int64_t i = 0; i < calls; ++i) {
      PRUNER_RETURN_IF_ERROR(CallKernel(kernel, args));
    }
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    const double per_call = seconds / static_cast<double>(calls);
    if (seconds * 1e3 < options.min_repeat_ms) {
      // Too short to trust: time this repeat again with more calls. The run
      // deadline bounds the total, however slow a call turns out.
      const double wanted = options.min_repeat_ms / 1e3 / std::max(per_call, 1e-9) + 1;
      number = std::min(std::max(wanted, number * 1.618), 1e9);
      continue;
    }
    costs.push_back(per_call);
  }
  return costs;
}

// Calls after the first that may clear a candidate of being hopeless.
constexpr int kHopelessConfirmCalls = 2;

// The child's whole job; every failure is a RunOutcome, never a crash of
// its own (the kernel's crashes are the sandbox's business).
RunOutcome RunInChild(const BuiltModule& module, const Program& program,
                      const std::vector<Tensor>& inputs, const std::vector<Tensor>& expected,
                      const MeasureOptions& options, const DeviceProfile& device,
                      double hopeless_after_s) {
  auto kernel = LoadedKernel::Load(module);
  if (!kernel.ok()) {
    return RunOutcome::Failure(MeasureError::kRunError, "run", std::string(kernel.status().message()));
  }
  // LLVM kernels' parallel loops run on the runtime's pool.
  SetCpuRuntimeThreads(options.num_threads);
  if (options.num_threads > 0) {
    // The kernel's libgomp is loaded by now (RTLD_GLOBAL); the setting is
    // this thread's, and this thread runs every call below.
    using SetThreads = void (*)(int);
    if (auto set = reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "omp_set_num_threads"))) {
      set(options.num_threads);
    }
  }
  auto args = PrepareArgs(program, inputs);
  if (!args.ok()) {
    return RunOutcome::Failure(MeasureError::kRunError, "run", std::string(args.status().message()));
  }
  const Clock::time_point first_start = Clock::now();
  absl::Status s = CallKernel(*kernel, *args);
  // The first call in this fresh process is cold: it starts the runtime's
  // threads and faults in the kernel's buffers, which on a virtual machine
  // costs 1-3 ms whatever the kernel. Judged by that call alone, nearly
  // every candidate of a task whose best takes under 0.2 ms looked hopeless
  // (one of 64 timed in full). So a candidate is hopeless only when its
  // next calls, made at once while the threads are awake, are slow too.
  double quick_call_s = std::chrono::duration<double>(Clock::now() - first_start).count();
  for (int i = 0; s.ok() && hopeless_after_s > 0 && quick_call_s > hopeless_after_s &&
                  i < kHopelessConfirmCalls;
       ++i) {
    const Clock::time_point start = Clock::now();
    s = CallKernel(*kernel, *args);
    quick_call_s =
        std::min(quick_call_s, std::chrono::duration<double>(Clock::now() - start).count());
  }
  if (s.ok()) s = CheckCanaries(*args);
  if (!s.ok()) return RunOutcome::Failure(MeasureError::kRunError, "run", std::string(s.message()));
  if (expected.size() != program.outputs.size()) {
    return RunOutcome::Failure(MeasureError::kRunError, "check",
                               absl::StrCat(expected.size(), " expected outputs for ",
                                            program.outputs.size(), " program outputs"));
  }
  s = CompareOutputs(program, *args, inputs.size(), expected, options);
  if (!s.ok()) return RunOutcome::Failure(MeasureError::kWrongResult, "check", std::string(s.message()));

  if (hopeless_after_s > 0 && quick_call_s > hopeless_after_s) {
    RunOutcome outcome;
    outcome.repeat_costs_s = {quick_call_s};
    return outcome;
  }
  std::unique_ptr<CacheFlusher> flusher;
  if (options.flush_cache) flusher = std::make_unique<CacheFlusher>(device);
  auto costs = TimeRepeats(*kernel, *args, options, flusher.get());
  if (costs.ok()) s = CheckCanaries(*args);
  if (!costs.ok() || !s.ok()) {
    return RunOutcome::Failure(MeasureError::kRunError, "run",
                               std::string((costs.ok() ? s : costs.status()).message()));
  }
  RunOutcome outcome;
  outcome.repeat_costs_s = *std::move(costs);
  return outcome;
}

}  // namespace

RunOutcome RunCpuModuleSandboxed(const BuiltModule& module, const Program& program,
                                 const std::vector<Tensor>& inputs,
                                 const std::vector<Tensor>& expected,
                                 const MeasureOptions& options, const DeviceProfile& device,
                                 double hopeless_after_s) {
  const SandboxReply reply = RunInSandbox(
      [&] {
        return EncodeRunOutcome(
            RunInChild(module, program, inputs, expected, options, device, hopeless_after_s));
      },
      options.run_timeout_s);
  return OutcomeFromSandboxReply(reply);
}

}  // namespace pruner
