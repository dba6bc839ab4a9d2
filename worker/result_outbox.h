// Results of finished leases that have not reached the server yet.
//
// A report leaves the outbox when the server answered it (any reply: it
// accepted the results, found them duplicate, or did not know the lease),
// when the server revoked its lease while it was being measured, or when it
// has waited longer than the retention (the server re-queued that work long ago). Until then it is
// re-sent after every failed attempt; the server ignores duplicates, so a
// reply lost after the server stored the results costs nothing.
//
// The worker_id of a stored report is filled at send time: after a server
// restart the worker registers again under a new id, and only that one is
// known to the server.
//
// Thread-safe. An entry being sent is "in flight" and not handed to a
// second sender, so that two threads flushing at once do not send it twice.
#ifndef PRUNER_WORKER_RESULT_OUTBOX_H_
#define PRUNER_WORKER_RESULT_OUTBOX_H_

#include <chrono>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "pruner/v1/worker_service.pb.h"

namespace pruner {

class ResultOutbox {
 public:
  using Clock = std::chrono::steady_clock;

  explicit ResultOutbox(std::chrono::milliseconds retention) : retention_(retention) {}

  // Keeps `report` (its lease_id must be set) until answered. A second
  // report for the same lease replaces the first.
  void Add(v1::ReportRequest report, Clock::time_point now = Clock::now());

  // The reports not in flight, now marked in flight, oldest first.
  std::vector<v1::ReportRequest> TakeReady();
  // The server answered: forget the lease's report.
  void Answered(const std::string& lease_id);
  // No answer: the report is ready to be sent again.
  void Unanswered(const std::string& lease_id);
  // The lease was revoked: its results must not be reported. False if the
  // outbox did not hold it.
  bool Drop(const std::string& lease_id);
  // Forgets reports older than the retention; returns their lease ids.
  std::vector<std::string> ExpireOld(Clock::time_point now = Clock::now());

  size_t size() const;

 private:
  struct Entry {
    v1::ReportRequest report;
    Clock::time_point added;
    uint64_t order = 0;
    bool in_flight = false;
  };

  const std::chrono::milliseconds retention_;
  mutable std::mutex mu_;
  std::map<std::string, Entry> entries_;  // by lease id
  uint64_t next_order_ = 0;
};

}  // namespace pruner

#endif  // PRUNER_WORKER_RESULT_OUTBOX_H_
