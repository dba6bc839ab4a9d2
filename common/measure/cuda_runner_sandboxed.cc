#include "common/measure/cuda_runner_sandboxed.h"

#include <algorithm>
#include <memory>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/codegen/cuda_driver.h"
#include "common/codegen/cuda_runner.h"
#include "common/measure/sandbox.h"

namespace pruner {
namespace {

absl::Status CompareOutputs(const Program& program, const std::vector<Tensor>& got,
                            const std::vector<Tensor>& expected, const MeasureOptions& options) {
  if (got.size() != expected.size()) {
    return absl::InternalError(absl::StrCat(got.size(), " outputs, expected ", expected.size()));
  }
  for (size_t k = 0; k < got.size(); ++k) {
    const absl::Status close = CheckKernelOutput(got[k], expected[k], options);
    if (!close.ok()) {
      return absl::InternalError(absl::StrCat("output ", program.buffer(program.outputs[k]).name,
                                              ": ", close.message()));
    }
  }
  return absl::OkStatus();
}

RunOutcome RunOnDevice(CudaDevice& device, const CudaRunItem& item,
                       const MeasureOptions& options) {
  const Program& program = *item.program;
  auto first = RunCudaModule(device, program, *item.module, *item.image, *item.inputs);
  if (!first.ok()) {
    return RunOutcome::Failure(MeasureError::kRunError, "run", std::string(first.status().message()));
  }
  if (absl::Status s = CompareOutputs(program, first->outputs, *item.expected, options); !s.ok()) {
    return RunOutcome::Failure(MeasureError::kWrongResult, "check", std::string(s.message()));
  }
  // RunCudaModule launches once untimed before its timed launches (the
  // warm-up); each repeat is one call timing `number` launch sequences.
  RunOutcome outcome;
  double number = std::max(options.number, 1);
  while (static_cast<int>(outcome.repeat_costs_s.size()) < std::max(options.repeat, 1)) {
    auto timed = RunCudaModule(device, program, *item.module, *item.image, *item.inputs,
                               static_cast<int>(number));
    if (!timed.ok()) {
      return RunOutcome::Failure(MeasureError::kRunError, "run", std::string(timed.status().message()));
    }
    const double per_call_ms = timed->ms_per_run;
    if (per_call_ms * number < options.min_repeat_ms) {
      const double wanted = options.min_repeat_ms / std::max(per_call_ms, 1e-6) + 1;
      number = std::min(std::max(wanted, number * 1.618), 1e7);
      continue;
    }
    outcome.repeat_costs_s.push_back(per_call_ms / 1e3);
  }
  return outcome;
}

// The child's loop: items[first..] one after another on one context.
void RunItemsInChild(const std::vector<CudaRunItem>& items, size_t first,
                     const MeasureOptions& options, const SandboxEmit& emit) {
  auto device = CudaDevice::Open(0);
  for (size_t k = first; k < items.size(); ++k) {
    const RunOutcome outcome =
        device.ok() ? RunOnDevice(**device, items[k], options)
                    : RunOutcome::Failure(MeasureError::kDeviceError, "run",
                                          std::string(device.status().message()));
    emit(EncodeRunOutcome(outcome));
    // A failed launch leaves the context unusable (CUDA errors are sticky):
    // this child ends, a fresh one takes the rest.
    if (outcome.error == MeasureError::kRunError || outcome.error == MeasureError::kDeviceError) {
      return;
    }
  }
}

}  // namespace

RunOutcome ProbeCudaDevice() {
  return OutcomeFromSandboxReply(RunInSandbox(
      [] {
        auto count = CudaDeviceCount();
        if (!count.ok()) {
          return EncodeRunOutcome(RunOutcome::Failure(MeasureError::kDeviceError, "run",
                                                      std::string(count.status().message())));
        }
        if (*count < 1) {
          return EncodeRunOutcome(
              RunOutcome::Failure(MeasureError::kDeviceError, "run", "no CUDA device"));
        }
        return EncodeRunOutcome(RunOutcome{});
      },
      30));
}

std::vector<RunOutcome> RunCudaModulesSandboxed(const std::vector<CudaRunItem>& items,
                                                const MeasureOptions& options) {
  std::vector<RunOutcome> outcomes(items.size());
  size_t next = 0;
  while (next < items.size()) {
    const size_t first = next;
    SandboxStream stream = RunInSandboxStreaming(
        [&](const SandboxEmit& emit) { RunItemsInChild(items, first, options, emit); },
        options.run_timeout_s);
    for (size_t k = 0; k < stream.replies.size() && first + k < items.size(); ++k) {
      SandboxReply reply{stream.replies[k], stream.reply_wall_s[k]};
      outcomes[first + k] = OutcomeFromSandboxReply(reply);
      ++next;
    }
    if (next < items.size() && (!stream.end.ok() || stream.replies.empty())) {
      // The child died or hung on item `next` (or ended without a word):
      // that item carries the failure, a fresh child goes on after it.
      const absl::Status end = stream.end.ok()
                                   ? absl::InternalError("child exited with status 0 without a reply")
                                   : stream.end;
      outcomes[next] = OutcomeFromSandboxReply(SandboxReply{end, stream.tail_wall_s});
      ++next;
    }
  }
  return outcomes;
}

RunOutcome RunCudaModuleSandboxed(const Program& program, const CudaModuleSource& module,
                                  const std::string& image, const std::vector<Tensor>& inputs,
                                  const std::vector<Tensor>& expected,
                                  const MeasureOptions& options) {
  return RunCudaModulesSandboxed({CudaRunItem{&program, &module, &image, &inputs, &expected}},
                                 options)[0];
}

}  // namespace pruner
