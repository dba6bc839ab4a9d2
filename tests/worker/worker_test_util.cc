#include "tests/worker/worker_test_util.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "common/ir/ops.h"
#include "common/sketch/annotate.h"
#include "common/sketch/random.h"
#include "common/sketch/sketch.h"
#include "common/schedule/step.h"
#include "gtest/gtest.h"
#include "proto/wire_convert.h"

namespace pruner {
namespace {

constexpr char kMatmul[] = "matmul:M=64,K=64,N=64";

std::shared_ptr<const ComputeDag> MatmulDag() {
  auto built = BuildOperator(kMatmul);
  EXPECT_TRUE(built.ok()) << built.status();
  return std::make_shared<const ComputeDag>(*std::move(built));
}

}  // namespace

WorkerDevice LocalCpuDevice() { return WorkerDevice{WithStableCpuKey(DetectLocalCpu()), 0}; }

std::vector<std::string> MatmulSentences(int n, uint64_t seed) {
  const DeviceProfile cpu = LocalCpuDevice().profile;
  auto sketches = GenerateSketches(MatmulDag(), cpu);
  EXPECT_TRUE(sketches.ok()) << sketches.status();
  if (!sketches.ok()) return {};
  Rng rng(seed);
  std::vector<std::string> sentences;
  for (const State& state : SampleInitPopulation(*sketches, cpu, n, rng)) {
    sentences.push_back(StepsToString(state.steps()));
  }
  EXPECT_EQ(static_cast<int>(sentences.size()), n);
  return sentences;
}

v1::Lease MatmulLease(const std::string& lease_id, const std::vector<std::string>& sentences) {
  v1::Lease lease;
  lease.set_lease_id(lease_id);
  lease.set_job_id(7);
  lease.set_task_index(1);
  *lease.mutable_workload() = WorkloadToWire(*MatmulDag(), "matmul_64x64x64");
  *lease.mutable_device() = DeviceToWire(LocalCpuDevice().profile);
  v1::MeasureOptions* options = lease.mutable_options();
  options->set_number(1);
  options->set_repeat(1);
  // Zero on the wire means "the default" (100 ms); a tiny minimum keeps a
  // single call per repeat.
  options->set_min_repeat_ms(0.001);
  options->set_num_threads(1);
  for (size_t i = 0; i < sentences.size(); ++i) {
    v1::Candidate* candidate = lease.add_candidates();
    candidate->set_measurement_id(absl::StrCat(lease_id, "/", i));
    candidate->set_sentence(sentences[i]);
  }
  return lease;
}

WorkerOptions TestWorkerOptions(const std::string& address) {
  WorkerOptions options;
  options.server_address = address;
  options.name = "test-worker";
  options.wait_ms = 200;
  options.backoff.initial = std::chrono::milliseconds(20);
  options.backoff.max = std::chrono::milliseconds(200);
  options.rpc_timeout = std::chrono::milliseconds(2000);
  options.report_timeout = std::chrono::milliseconds(2000);
  options.stop_report_timeout = std::chrono::milliseconds(500);
  return options;
}

DaemonThread::DaemonThread(WorkerOptions options, WorkerDevice device)
    : daemon_(std::make_unique<WorkerDaemon>(std::move(options), std::move(device))),
      thread_([this] { status_ = daemon_->Run(); }) {}

DaemonThread::~DaemonThread() {
  if (thread_.joinable()) StopAndJoin().IgnoreError();
}

absl::Status DaemonThread::StopAndJoin() {
  daemon_->Stop();
  return Join();
}

absl::Status DaemonThread::Join() {
  if (thread_.joinable()) thread_.join();
  return status_;
}

}  // namespace pruner
