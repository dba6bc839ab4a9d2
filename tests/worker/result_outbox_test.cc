// ResultOutbox: reports stay until answered, are handed to one sender at a
// time, can be dropped when revoked, and expire after the retention.
#include "worker/result_outbox.h"

#include <chrono>

#include "gtest/gtest.h"

namespace pruner {
namespace {

using std::chrono::minutes;

v1::ReportRequest Report(const std::string& lease_id, int results) {
  v1::ReportRequest report;
  report.set_lease_id(lease_id);
  for (int i = 0; i < results; ++i) {
    report.add_results()->set_measurement_id(lease_id + "/" + std::to_string(i));
  }
  return report;
}

TEST(WorkerOutboxTest, ReportStaysUntilTheServerAnswers) {
  ResultOutbox outbox(minutes(10));
  outbox.Add(Report("a", 2));
  outbox.Add(Report("b", 1));
  std::vector<v1::ReportRequest> ready = outbox.TakeReady();
  ASSERT_EQ(ready.size(), 2u);
  EXPECT_EQ(ready[0].lease_id(), "a");  // oldest first
  EXPECT_EQ(ready[0].results_size(), 2);
  EXPECT_EQ(ready[1].lease_id(), "b");
  // In flight: a second flusher gets nothing.
  EXPECT_TRUE(outbox.TakeReady().empty());

  outbox.Unanswered("a");
  outbox.Answered("b");
  EXPECT_EQ(outbox.size(), 1u);
  ready = outbox.TakeReady();
  ASSERT_EQ(ready.size(), 1u);
  EXPECT_EQ(ready[0].lease_id(), "a");
  outbox.Answered("a");
  EXPECT_EQ(outbox.size(), 0u);
}

TEST(WorkerOutboxTest, RevokedLeaseIsDroppedAndNotSent) {
  ResultOutbox outbox(minutes(10));
  outbox.Add(Report("a", 1));
  outbox.Add(Report("b", 1));
  EXPECT_TRUE(outbox.Drop("a"));
  EXPECT_FALSE(outbox.Drop("a"));
  const std::vector<v1::ReportRequest> ready = outbox.TakeReady();
  ASSERT_EQ(ready.size(), 1u);
  EXPECT_EQ(ready[0].lease_id(), "b");
}

TEST(WorkerOutboxTest, SecondReportForALeaseReplacesTheFirst) {
  ResultOutbox outbox(minutes(10));
  outbox.Add(Report("a", 1));
  outbox.Add(Report("a", 3));
  const std::vector<v1::ReportRequest> ready = outbox.TakeReady();
  ASSERT_EQ(ready.size(), 1u);
  EXPECT_EQ(ready[0].results_size(), 3);
}

TEST(WorkerOutboxTest, ReportsOlderThanTheRetentionAreGivenUp) {
  ResultOutbox outbox(minutes(10));
  const auto t0 = ResultOutbox::Clock::now();
  outbox.Add(Report("old", 1), t0);
  outbox.Add(Report("new", 1), t0 + minutes(6));
  EXPECT_TRUE(outbox.ExpireOld(t0 + minutes(9)).empty());
  EXPECT_EQ(outbox.ExpireOld(t0 + minutes(11)), (std::vector<std::string>{"old"}));
  const std::vector<v1::ReportRequest> ready = outbox.TakeReady();
  ASSERT_EQ(ready.size(), 1u);
  EXPECT_EQ(ready[0].lease_id(), "new");
}

TEST(WorkerOutboxTest, ReportBeingSentIsNotExpiredUnderTheSender) {
  ResultOutbox outbox(minutes(10));
  const auto t0 = ResultOutbox::Clock::now();
  outbox.Add(Report("a", 1), t0);
  ASSERT_EQ(outbox.TakeReady().size(), 1u);
  EXPECT_TRUE(outbox.ExpireOld(t0 + minutes(11)).empty());
  outbox.Unanswered("a");
  EXPECT_EQ(outbox.ExpireOld(t0 + minutes(11)).size(), 1u);
}

}  // namespace
}  // namespace pruner
