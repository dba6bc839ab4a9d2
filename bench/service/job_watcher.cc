#include "bench/service/job_watcher.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace pruner::bench {

JobWatcher::JobWatcher(std::shared_ptr<grpc::Channel> channel)
    : stub_(v1::TuningService::NewStub(std::move(channel))) {}

JobWatcher::~JobWatcher() { Stop(); }

void JobWatcher::Watch(int64_t job_id) {
  std::lock_guard<std::mutex> lock(mu_);
  contexts_.push_back(std::make_unique<grpc::ClientContext>());
  grpc::ClientContext* context = contexts_.back().get();
  threads_.emplace_back([this, job_id, context] { Follow(job_id, context); });
}

void JobWatcher::Follow(int64_t job_id, grpc::ClientContext* context) {
  v1::WatchJobRequest request;
  request.set_job_id(job_id);
  auto reader = stub_->WatchJob(context, request);
  v1::ProgressEvent event;
  while (reader->Read(&event)) {
    // Round 0 is the snapshot sent when watching starts; the final event
    // closes the stream. Neither is a round.
    if (event.round() == 0 || event.final()) continue;
    Event e;
    e.at = std::chrono::steady_clock::now();
    e.measured = event.measured();
    e.ok = event.ok();
    e.queue_wait_s = event.time().queue_wait_s();
    e.search_s = event.time().search_s();
    e.measure_s = event.time().measure_s();
    e.db_s = event.time().db_s();
    std::lock_guard<std::mutex> lock(mu_);
    events_.push_back(e);
  }
  const grpc::Status status = reader->Finish();
  std::lock_guard<std::mutex> lock(mu_);
  if (!status.ok() && !stopping_) {
    const auto code = static_cast<absl::StatusCode>(static_cast<int>(status.error_code()));
    failures_.push_back(absl::StrCat("job ", job_id, ": ", absl::StatusCodeToString(code), " ",
                                     status.error_message()));
  }
}

void JobWatcher::Stop() {
  std::vector<std::thread> threads;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    for (auto& context : contexts_) context->TryCancel();
    threads.swap(threads_);
  }
  for (std::thread& t : threads) t.join();
}

RoundStats JobWatcher::Window(std::chrono::steady_clock::time_point from,
                              std::chrono::steady_clock::time_point to) const {
  std::lock_guard<std::mutex> lock(mu_);
  RoundStats s;
  double wait_sum = 0;
  for (const Event& e : events_) {
    if (e.at < from || e.at >= to) continue;
    ++s.rounds;
    s.measured += e.measured;
    s.not_ok += e.measured - e.ok;
    wait_sum += e.queue_wait_s * e.measured;
    s.search_ms += e.search_s * 1e3;
    s.measure_ms += e.measure_s * 1e3;
    s.db_ms += e.db_s * 1e3;
  }
  if (s.measured > 0) s.queue_wait_ms = wait_sum / static_cast<double>(s.measured) * 1e3;
  if (s.rounds > 0) {
    s.search_ms /= static_cast<double>(s.rounds);
    s.measure_ms /= static_cast<double>(s.rounds);
    s.db_ms /= static_cast<double>(s.rounds);
  }
  return s;
}

std::vector<std::string> JobWatcher::Failures() const {
  std::lock_guard<std::mutex> lock(mu_);
  return failures_;
}

}  // namespace pruner::bench
