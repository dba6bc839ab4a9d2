// MeasureLease without a server: what makes a whole lease an
// infrastructure error, what stays one candidate's error, and abandoning.
// (Real measurements of leased candidates run in worker_daemon_test.cc.)
#include "worker/lease_measurement.h"

#include <string>

#include "gtest/gtest.h"
#include "proto/wire_convert.h"
#include "tests/worker/worker_test_util.h"

namespace pruner {
namespace {

LeaseMeasurementContext Context() {
  LeaseMeasurementContext context;
  context.worker_name = "unit-worker";
  context.device_key = LocalCpuDevice().profile.name;
  return context;
}

bool Always() { return true; }

void ExpectInfrastructureError(const v1::Lease& lease, const std::string& expected_part) {
  const LeaseMeasurement m = MeasureLease(lease, Context(), Always);
  EXPECT_TRUE(m.results.empty());
  EXPECT_NE(m.infrastructure_error.find(expected_part), std::string::npos)
      << m.infrastructure_error;
  EXPECT_NE(m.infrastructure_error.find("unit-worker"), std::string::npos);
}

TEST(WorkerLeaseMeasurementTest, WorkloadWithAnotherKeyIsDataLoss) {
  v1::Lease lease = MatmulLease("l", {""});
  lease.mutable_workload()->set_key("0123");
  ExpectInfrastructureError(lease, "DATA_LOSS");
}

TEST(WorkerLeaseMeasurementTest, WorkloadTextThatDoesNotParse) {
  v1::Lease lease = MatmulLease("l", {""});
  lease.mutable_workload()->set_dag_text("not a dag");
  ExpectInfrastructureError(lease, "does not parse");
}

TEST(WorkerLeaseMeasurementTest, LeaseForAnotherDevice) {
  v1::Lease lease = MatmulLease("l", {""});
  *lease.mutable_device() = DeviceToWire(*GetDeviceProfile("a100"));
  ExpectInfrastructureError(lease, "lease targets device 'a100-40gb'");
}

TEST(WorkerLeaseMeasurementTest, DeviceWithoutProfile) {
  v1::Lease lease = MatmulLease("l", {""});
  lease.mutable_device()->clear_profile_json();
  ExpectInfrastructureError(lease, "profile_json");
}

TEST(WorkerLeaseMeasurementTest, MeasureOptionsOutOfRange) {
  v1::Lease lease = MatmulLease("l", {""});
  lease.mutable_options()->set_repeat(-1);
  ExpectInfrastructureError(lease, "measure options");
}

// hopeless_factor on the wire: 0 keeps the worker's default, negative turns
// it off, a factor below 2 is refused; the server's options survive the
// round trip, "off" included.
TEST(WorkerLeaseMeasurementTest, HopelessFactorOnTheWire) {
  MeasureOptions defaults;
  defaults.hopeless_factor = 10;
  v1::MeasureOptions w;
  EXPECT_EQ(MeasureOptionsFromWire(w, defaults)->hopeless_factor, 10);
  w.set_hopeless_factor(-1);
  EXPECT_EQ(MeasureOptionsFromWire(w, defaults)->hopeless_factor, 0);
  w.set_hopeless_factor(4);
  EXPECT_EQ(MeasureOptionsFromWire(w, defaults)->hopeless_factor, 4);
  w.set_hopeless_factor(1.5);
  EXPECT_NE(MeasureOptionsFromWire(w, defaults).status().message().find("hopeless_factor"),
            std::string::npos);
  for (double factor : {0.0, 7.0}) {
    MeasureOptions o;
    o.hopeless_factor = factor;
    EXPECT_EQ(MeasureOptionsFromWire(MeasureOptionsToWire(o), defaults)->hopeless_factor, factor);
  }
}

TEST(WorkerLeaseMeasurementTest, UnparsableSentencesAreDecidedWithoutMeasuring) {
  const v1::Lease lease = MatmulLease("l", {"SP 2 0 64 [x]", "FROB 1 2"});
  int asked = 0;
  const LeaseMeasurement m = MeasureLease(lease, Context(), [&] { return ++asked > 0; });
  EXPECT_EQ(asked, 0) << "nothing was left to build";
  EXPECT_EQ(m.infrastructure_error, "");
  EXPECT_FALSE(m.abandoned);
  ASSERT_EQ(m.results.size(), 2u);
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(m.results[i].measurement_id(), "l/" + std::to_string(i));
    EXPECT_EQ(m.results[i].result().error(), v1::MEASURE_ERROR_INVALID_SCHEDULE);
    EXPECT_EQ(m.results[i].result().phase(), "replay");
    EXPECT_EQ(m.results[i].result().measured_by(), "unit-worker");
    EXPECT_GT(m.results[i].result().measured_at_unix_ms(), 0);
  }
}

TEST(WorkerLeaseMeasurementTest, MeasuresInChunksOfBuildJobs) {
  // Sentences that parse but do not replay: MeasureBatch rejects them before
  // building anything, so the chunking shows without compiling.
  const v1::Lease lease = MatmulLease("l", std::vector<std::string>(5, "AN 99 0 parallel"));
  for (const auto& [build_jobs, chunks] : {std::pair{2, 3}, std::pair{5, 1}, std::pair{1, 5}}) {
    LeaseMeasurementContext context = Context();
    context.build_jobs = build_jobs;
    int asked = 0;
    const LeaseMeasurement m = MeasureLease(lease, context, [&] { return ++asked > 0; });
    EXPECT_EQ(asked, chunks) << "build_jobs " << build_jobs;
    ASSERT_EQ(m.results.size(), 5u);
    for (const v1::CandidateResult& r : m.results) {
      EXPECT_EQ(r.result().error(), v1::MEASURE_ERROR_INVALID_SCHEDULE);
      EXPECT_EQ(r.result().phase(), "lower");
    }
  }
}

TEST(WorkerLeaseMeasurementTest, StopBeforeTheFirstChunkAbandonsTheRest) {
  const v1::Lease lease = MatmulLease("l", {"", "garbage!", ""});
  const LeaseMeasurement m = MeasureLease(lease, Context(), [] { return false; });
  EXPECT_TRUE(m.abandoned);
  // Only the candidate decided without measuring has a result.
  ASSERT_EQ(m.results.size(), 1u);
  EXPECT_EQ(m.results[0].measurement_id(), "l/1");
  EXPECT_EQ(m.results[0].result().error(), v1::MEASURE_ERROR_INVALID_SCHEDULE);
}

}  // namespace
}  // namespace pruner
