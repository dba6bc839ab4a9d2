// The draft model's device constants in the records database
// (common/tune/draft_constants.h): fitted on a device's measured records,
// stored exactly, and picked up by the next draft-then-verify job on that
// device only; bad stored text and unusable records are refused.
#include "common/tune/draft_constants.h"

#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "common/measure/measurer.h"
#include "common/store/records_store.h"
#include "common/tune/tuning_job.h"
#include "gtest/gtest.h"
#include "tests/tune/tune_test_util.h"

namespace pruner {
namespace {

std::vector<SearchTask> TwoTasks() {
  return {OperatorTask("matmul:M=32,K=32,N=32"), OperatorTask("dense:M=16,K=64,N=32,bias=1")};
}

TEST(DraftConstantsTest, FittedOnRecordsStoredAndUsedByTheNextJobOnTheDevice) {
  auto store = RecordsStore::Open(":memory:");
  ASSERT_TRUE(store.ok()) << store.status();
  // Real measurements of random schedules on this CPU: 12 per task.
  TuningOptions collect = QuickOptions("random", 24, 8);
  auto measurer = MakeLocalMeasurer(collect.measure);
  auto source = TuningJob::Create(store->get(), measurer.get(), TwoTasks(), LocalCpu(), collect);
  ASSERT_TRUE(source.ok()) << source.status();
  ASSERT_TRUE((*source)->Run().ok());
  bool stored = true;
  EXPECT_EQ((*source)->DraftConstants(&stored), CpuIssueConstants{});
  EXPECT_FALSE(stored);

  DraftCalibrationOptions options;
  options.folds = 2;
  options.max_host_busy_cores = 1e9;  // other tests may share the machine
  auto cal = CalibrateDraft(**store, LocalCpu(), LocalCpu().name, options);
  ASSERT_TRUE(cal.ok()) << cal.status();
  EXPECT_EQ(cal->workloads, 2);
  // Every distinct schedule with a valid record (a best measured a second
  // time counts once).
  int64_t valid = 0;
  for (const SearchTask& task : TwoTasks()) {
    auto records = (*store)->ListRecords(task.workload_key, LocalCpu().name);
    ASSERT_TRUE(records.ok()) << records.status();
    std::set<std::string> steps;
    for (const StoredRecord& r : *records) {
      if (r.result.ok() && r.result.mean_s > 0) steps.insert(r.steps);
    }
    valid += static_cast<int64_t>(steps.size());
  }
  EXPECT_GE(valid, 6);
  EXPECT_EQ(cal->schedules, valid);
  EXPECT_EQ(cal->busy, 0);
  EXPECT_FALSE(cal->before_stored);
  EXPECT_EQ(cal->before, CpuIssueConstants{});
  // The coordinate search keeps only changes that raise the objective.
  EXPECT_GE(cal->fit.spearman, cal->before_rho);
  EXPECT_FALSE(std::isnan(cal->fit.spearman));
  EXPECT_FALSE(std::isnan(cal->held_out_rho));

  ASSERT_TRUE(SaveDraftConstants(**store, LocalCpu().name, cal->fit.constants, cal->schedules).ok());
  auto loaded = LoadDraftConstants(**store, LocalCpu().name);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  ASSERT_TRUE(loaded->has_value());
  EXPECT_EQ(**loaded, cal->fit.constants);  // exactly, not to 6 digits

  // Fitted on g++'s code instead (records of a --cpu-backend gcc farm):
  // the same schedules, ranked by the other code model.
  DraftCalibrationOptions gcc_options = options;
  gcc_options.codegen = CpuBackend::kGcc;
  auto gcc = CalibrateDraft(**store, LocalCpu(), LocalCpu().name, gcc_options);
  ASSERT_TRUE(gcc.ok()) << gcc.status();
  EXPECT_EQ(gcc->schedules, cal->schedules);
  EXPECT_FALSE(std::isnan(gcc->fit.spearman));
  EXPECT_GE(gcc->fit.spearman, gcc->before_rho);

  // The next draft-then-verify job on the device drafts with them ...
  TuningOptions tune = QuickOptions("lse-xgb", 8, 4);
  auto job = TuningJob::Create(store->get(), measurer.get(), TwoTasks(), LocalCpu(), tune);
  ASSERT_TRUE(job.ok()) << job.status();
  EXPECT_EQ((*job)->DraftConstants(&stored), cal->fit.constants);
  EXPECT_TRUE(stored);
  ASSERT_TRUE((*job)->Run().ok());
  EXPECT_EQ((*job)->trials(), 8);
  // ... and a recalibration starts from them.
  auto again = CalibrateDraft(**store, LocalCpu(), LocalCpu().name, options);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_TRUE(again->before_stored);
  EXPECT_EQ(again->before, cal->fit.constants);

  // Another device keeps the defaults.
  DeviceProfile other = LocalCpu();
  other.name = "cpu-another-host";
  auto elsewhere = TuningJob::Create(store->get(), measurer.get(), TwoTasks(), other, tune);
  ASSERT_TRUE(elsewhere.ok()) << elsewhere.status();
  EXPECT_EQ((*elsewhere)->DraftConstants(&stored), CpuIssueConstants{});
  EXPECT_FALSE(stored);
}

TEST(DraftConstantsTest, NothingStoredIsNotAnError) {
  auto store = RecordsStore::Open(":memory:");
  ASSERT_TRUE(store.ok());
  auto loaded = LoadDraftConstants(**store, LocalCpu().name);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_FALSE(loaded->has_value());
  bool stored = true;
  auto constants = DraftConstantsFor(nullptr, LocalCpu().name, &stored);
  ASSERT_TRUE(constants.ok());
  EXPECT_EQ(*constants, CpuIssueConstants{});
  EXPECT_FALSE(stored);
}

TEST(DraftConstantsTest, UnreadableStoredConstantsStopTheJobWithAReason) {
  auto store = RecordsStore::Open(":memory:");
  ASSERT_TRUE(store.ok());
  ASSERT_TRUE((*store)->PutDevice(LocalCpu()).ok());
  ASSERT_TRUE((*store)->PutCheckpoint(kDraftConstantsModel, LocalCpu().name, "load=abc", 0).ok());
  auto loaded = LoadDraftConstants(**store, LocalCpu().name);
  EXPECT_TRUE(absl::IsDataLoss(loaded.status())) << loaded.status();
  EXPECT_NE(loaded.status().message().find("pruner calibrate"), std::string::npos);

  TuningOptions tune = QuickOptions("lse-xgb", 8, 4);
  auto measurer = MakeLocalMeasurer(tune.measure);
  auto job = TuningJob::Create(store->get(), measurer.get(), TwoTasks(), LocalCpu(), tune);
  EXPECT_TRUE(absl::IsDataLoss(job.status())) << job.status();
}

TEST(DraftConstantsTest, CalibrationRefusesGpusAndDevicesWithoutRecords) {
  auto store = RecordsStore::Open(":memory:");
  ASSERT_TRUE(store.ok());
  auto none = CalibrateDraft(**store, LocalCpu(), LocalCpu().name);
  EXPECT_TRUE(absl::IsFailedPrecondition(none.status())) << none.status();
  auto a100 = GetDeviceProfile("a100");
  ASSERT_TRUE(a100.ok());
  auto gpu = CalibrateDraft(**store, *a100, a100->name);
  EXPECT_TRUE(absl::IsFailedPrecondition(gpu.status())) << gpu.status();
  DraftCalibrationOptions zero;
  zero.folds = 0;
  EXPECT_TRUE(absl::IsInvalidArgument(CalibrateDraft(**store, LocalCpu(), "x", zero).status()));
}

}  // namespace
}  // namespace pruner
