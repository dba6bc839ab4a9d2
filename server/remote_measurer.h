// A job's Measurer over the dispatcher: a round's candidates become one
// batch of queued work for workers whose device matches the job's target,
// and Measure() returns when every candidate has a result. Cancelling the
// job or shutting the server down ends the wait with an error status, so the
// job records nothing of that round.
#ifndef PRUNER_SERVER_REMOTE_MEASURER_H_
#define PRUNER_SERVER_REMOTE_MEASURER_H_

#include <atomic>
#include <cstdint>
#include <map>
#include <string>

#include "common/measure/measurer.h"
#include "server/dispatcher.h"

namespace pruner {

class RemoteMeasurer : public Measurer {
 public:
  // Shown on leases (worker logs) by workload key.
  struct TaskLabel {
    int index = -1;
    std::string name;
  };
  RemoteMeasurer(Dispatcher* dispatcher, int64_t job_id, const MeasureOptions& options,
                 std::map<std::string, TaskLabel> task_of_workload);

  std::string Name() const override { return "farm"; }
  absl::StatusOr<std::vector<MeasureResult>> Measure(
      const std::vector<MeasureInput>& inputs) override;

  // The job's id is known only once TuningJob::Create has stored it; set it
  // before the job runs.
  void set_job_id(int64_t job_id) { job_id_ = job_id; }

  // Mean queue wait of the last batch, seconds.
  double last_queue_wait_s() const { return last_queue_wait_s_.load(); }

 private:
  Dispatcher* const dispatcher_;
  int64_t job_id_;
  const v1::MeasureOptions options_;
  const std::map<std::string, TaskLabel> task_of_workload_;
  std::atomic<double> last_queue_wait_s_{0};
};

}  // namespace pruner

#endif  // PRUNER_SERVER_REMOTE_MEASURER_H_
