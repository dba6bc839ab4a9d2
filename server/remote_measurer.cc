#include "server/remote_measurer.h"

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/schedule/step.h"
#include "proto/wire_convert.h"

namespace pruner {

RemoteMeasurer::RemoteMeasurer(Dispatcher* dispatcher, int64_t job_id,
                               const MeasureOptions& options,
                               std::map<std::string, TaskLabel> task_of_workload)
    : dispatcher_(dispatcher),
      job_id_(job_id),
      options_(MeasureOptionsToWire(options)),
      task_of_workload_(std::move(task_of_workload)) {}

absl::StatusOr<std::vector<MeasureResult>> RemoteMeasurer::Measure(
    const std::vector<MeasureInput>& inputs) {
  if (inputs.empty()) return std::vector<MeasureResult>();
  // A round measures one task: every input shares the DAG and the device.
  const MeasureInput& first = inputs.front();
  BatchSpec spec;
  spec.job_id = job_id_;
  auto task = task_of_workload_.find(first.dag->WorkloadKey());
  const bool known = task != task_of_workload_.end();
  spec.workload = WorkloadToWire(*first.dag, known ? task->second.name : "");
  spec.task_index = known ? task->second.index : -1;
  spec.target = DeviceToWire(first.device);
  spec.options = options_;
  spec.flops = first.dag->FlopCount();
  spec.peak_gflops = first.device.peak_gflops;
  spec.avoid_worker = first.avoid_worker;
  std::vector<std::string> sentences;
  sentences.reserve(inputs.size());
  for (const MeasureInput& input : inputs) {
    if (input.dag != first.dag) {
      return absl::InvalidArgumentError("a remote batch must hold candidates of one workload");
    }
    sentences.push_back(StepsToString(input.steps));
  }
  PRUNER_ASSIGN_OR_RETURN(auto batch, dispatcher_->Submit(spec, sentences));
  PRUNER_ASSIGN_OR_RETURN(auto dispatched, dispatcher_->Wait(batch));

  std::vector<MeasureResult> results;
  results.reserve(dispatched.size());
  double wait_sum = 0;
  for (const DispatchedResult& d : dispatched) {
    wait_sum += d.result.queue_wait_s();
    auto r = MeasureResultFromWire(d.result);
    if (!r.ok()) {
      // A worker that sends nonsense is an infrastructure fault, but the
      // candidate has used its lease; record it as a run error that says so
      // rather than trusting the numbers.
      MeasureResult bad;
      bad.error = MeasureError::kRunError;
      bad.phase = "dispatch";
      bad.message = absl::StrCat("worker ", d.result.measured_by(),
                                 " sent an invalid result: ", r.status().message());
      bad.measured_by = d.result.measured_by();
      results.push_back(std::move(bad));
      continue;
    }
    r->measured_by = d.result.measured_by();
    results.push_back(*std::move(r));
  }
  last_queue_wait_s_.store(wait_sum / static_cast<double>(dispatched.size()));
  return results;
}

}  // namespace pruner
