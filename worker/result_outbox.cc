#include "worker/result_outbox.h"

#include <algorithm>
#include <utility>

namespace pruner {

void ResultOutbox::Add(v1::ReportRequest report, Clock::time_point now) {
  std::lock_guard<std::mutex> lock(mu_);
  std::string lease_id = report.lease_id();
  entries_[std::move(lease_id)] = Entry{std::move(report), now, next_order_++, false};
}

std::vector<v1::ReportRequest> ResultOutbox::TakeReady() {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<Entry*> ready;
  for (auto& [lease_id, entry] : entries_) {
    if (!entry.in_flight) ready.push_back(&entry);
  }
  std::sort(ready.begin(), ready.end(),
            [](const Entry* a, const Entry* b) { return a->order < b->order; });
  std::vector<v1::ReportRequest> out;
  out.reserve(ready.size());
  for (Entry* entry : ready) {
    entry->in_flight = true;
    out.push_back(entry->report);
  }
  return out;
}

void ResultOutbox::Answered(const std::string& lease_id) {
  std::lock_guard<std::mutex> lock(mu_);
  entries_.erase(lease_id);
}

void ResultOutbox::Unanswered(const std::string& lease_id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = entries_.find(lease_id);
  if (it != entries_.end()) it->second.in_flight = false;
}

bool ResultOutbox::Drop(const std::string& lease_id) {
  std::lock_guard<std::mutex> lock(mu_);
  return entries_.erase(lease_id) > 0;
}

std::vector<std::string> ResultOutbox::ExpireOld(Clock::time_point now) {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> expired;
  for (auto it = entries_.begin(); it != entries_.end();) {
    if (!it->second.in_flight && now - it->second.added > retention_) {
      expired.push_back(it->first);
      it = entries_.erase(it);
    } else {
      ++it;
    }
  }
  return expired;
}

size_t ResultOutbox::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return entries_.size();
}

}  // namespace pruner
