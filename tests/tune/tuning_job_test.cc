// The in-process tuning loop end to end, with real measurement of small
// workloads: a job spends exactly its budget, records everything, survives a
// stop and a restart without measuring anything twice, and rejects bad input.
#include "common/tune/tuning_job.h"

#include <atomic>
#include <chrono>
#include <map>
#include <set>
#include <thread>
#include <string>

#include "common/model/pacm_pretrain.h"
#include "common/schedule/state.h"
#include "common/schedule/step.h"
#include "common/store/records_store.h"
#include "common/measure/measurer.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/tune/tune_test_util.h"

namespace pruner {
namespace {

std::vector<SearchTask> TwoTasks() {
  return {OperatorTask("matmul:M=32,K=32,N=32", 2), OperatorTask("dense:M=16,K=64,N=32,bias=1,act=relu")};
}

TEST(TuningJobTest, SpendsTheBudgetAndRecordsEveryTrial) {
  auto store = RecordsStore::Open(":memory:");
  ASSERT_TRUE(store.ok()) << store.status();
  TuningOptions options = QuickOptions("random", 10, 4);
  auto measurer = MakeLocalMeasurer(options.measure);
  auto job = TuningJob::Create(store->get(), measurer.get(), TwoTasks(), LocalCpu(), options);
  ASSERT_TRUE(job.ok()) << job.status();
  std::vector<RoundReport> rounds;
  ASSERT_TRUE((*job)->Run([&](const RoundReport& r) { rounds.push_back(r); }).ok());

  EXPECT_EQ((*job)->trials(), 10);
  auto records = (*store)->JobRecords((*job)->id());
  ASSERT_TRUE(records.ok());
  EXPECT_EQ(records->size(), 10u);  // the last round is cut to fit the budget
  ASSERT_FALSE(rounds.empty());
  EXPECT_EQ(rounds.back().trials, 10);
  // Warm-up: each task got a round before any task got a second.
  ASSERT_GE(rounds.size(), 2u);
  EXPECT_NE(rounds[0].task, rounds[1].task);
  int ok = 0;
  for (const StoredRecord& r : *records) ok += r.result.ok() ? 1 : 0;
  EXPECT_GT(ok, 0);
  for (const TaskStatus& t : (*job)->TaskStatuses()) {
    EXPECT_GT(t.best_cost_s, 0) << t.name;
    auto best = (*store)->BestRecord(t.workload_key, LocalCpu().name);
    ASSERT_TRUE(best.ok()) << best.status();
    EXPECT_DOUBLE_EQ(TrustedCost(*best), t.best_cost_s);
  }
  // Estimated latency is the weighted sum of the best costs.
  auto statuses = (*job)->TaskStatuses();
  EXPECT_NEAR((*job)->EstimatedLatency(),
              2 * statuses[0].best_cost_s + statuses[1].best_cost_s, 1e-12);
  auto curve = (*store)->GetCurve((*job)->id());
  ASSERT_TRUE(curve.ok());
  EXPECT_EQ(curve->size(), rounds.size());
  for (size_t i = 1; i < curve->size(); ++i) {
    EXPECT_GT((*curve)[i].trials, (*curve)[i - 1].trials);
    EXPECT_GE((*curve)[i].wall_s, (*curve)[i - 1].wall_s);
  }
  // Each point says where its round's time went, as a JSON object.
  for (const auto& point : *curve) {
    const nlohmann::json time = nlohmann::json::parse(point.time_breakdown_json);
    for (const char* key : {"search_s", "train_s", "measure_s", "build_s", "run_s", "db_s"}) {
      ASSERT_TRUE(time.contains(key)) << point.time_breakdown_json;
      EXPECT_GE(time[key].get<double>(), 0) << key;
    }
  }
  auto stored_job = (*store)->GetJob((*job)->id());
  ASSERT_TRUE(stored_job.ok());
  EXPECT_EQ(stored_job->status, JobStatus::kDone);
}

// A measurer that records how many Measure calls run at once, around a real
// local measurer (every candidate is still built, run and checked).
class ConcurrencyProbe : public Measurer {
 public:
  explicit ConcurrencyProbe(Measurer* inner) : inner_(inner) {}
  std::string Name() const override { return inner_->Name(); }
  absl::StatusOr<std::vector<MeasureResult>> Measure(
      const std::vector<MeasureInput>& inputs) override {
    const int now = ++active_;
    int seen = max_active_.load();
    while (now > seen && !max_active_.compare_exchange_weak(seen, now)) {
    }
    // Long enough that the next round's search finishes meanwhile.
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    auto results = inner_->Measure(inputs);
    --active_;
    return results;
  }
  int max_active() const { return max_active_.load(); }

 private:
  Measurer* inner_;
  std::atomic<int> active_{0};
  std::atomic<int> max_active_{0};
};

TEST(TuningJobTest, OverlappedSearchKeepsTheBudgetAndMeasuresNothingTwice) {
  auto store = RecordsStore::Open(":memory:");
  ASSERT_TRUE(store.ok()) << store.status();
  TuningOptions options = QuickOptions("ansor-random", 16, 4);
  options.overlap_search = true;
  auto local = MakeLocalMeasurer(options.measure);
  ConcurrencyProbe probe(local.get());
  auto job = TuningJob::Create(store->get(), &probe, TwoTasks(), LocalCpu(), options);
  ASSERT_TRUE(job.ok()) << job.status();
  std::vector<RoundReport> rounds;
  ASSERT_TRUE((*job)->Run([&](const RoundReport& r) { rounds.push_back(r); }).ok());
  EXPECT_EQ((*job)->trials(), 16);
  auto records = (*store)->JobRecords((*job)->id());
  ASSERT_TRUE(records.ok());
  EXPECT_EQ(records->size(), 16u);
  std::set<std::pair<int, std::string>> seen;
  for (const StoredRecord& r : *records) {
    EXPECT_TRUE(seen.emplace(r.task_index, r.steps).second) << r.steps;
  }
  // Rounds of different tasks were in flight together.
  EXPECT_EQ(probe.max_active(), 2);
  for (size_t i = 1; i < rounds.size(); ++i) EXPECT_NE(rounds[i].task, rounds[i - 1].task);
  auto stored_job = (*store)->GetJob((*job)->id());
  ASSERT_TRUE(stored_job.ok());
  EXPECT_EQ(stored_job->status, JobStatus::kDone);
  auto reloaded = TuningOptionsFromJson(stored_job->options_json);
  ASSERT_TRUE(reloaded.ok());
  EXPECT_TRUE(reloaded->overlap_search);
}

TEST(TuningJobTest, SequentialByDefault) {
  auto store = RecordsStore::Open(":memory:");
  ASSERT_TRUE(store.ok()) << store.status();
  TuningOptions options = QuickOptions("random", 8, 4);
  auto local = MakeLocalMeasurer(options.measure);
  ConcurrencyProbe probe(local.get());
  auto job = TuningJob::Create(store->get(), &probe, TwoTasks(), LocalCpu(), options);
  ASSERT_TRUE(job.ok()) << job.status();
  ASSERT_TRUE((*job)->Run().ok());
  EXPECT_EQ((*job)->trials(), 8);
  EXPECT_EQ(probe.max_active(), 1);
}

TEST(TuningJobTest, StopAndResumeMeasuresNothingTwiceAndKeepsTheBudget) {
  const std::string path = testing::TempDir() + "/resume_test.db";
  std::remove(path.c_str());
  TuningOptions options = QuickOptions("ansor-random", 16, 4);
  int64_t job_id = 0;
  {
    auto store = RecordsStore::Open(path);
    ASSERT_TRUE(store.ok()) << store.status();
    auto measurer = MakeLocalMeasurer(options.measure);
    auto job = TuningJob::Create(store->get(), measurer.get(), TwoTasks(), LocalCpu(), options);
    ASSERT_TRUE(job.ok()) << job.status();
    job_id = (*job)->id();
    RunLimits limits;
    limits.max_rounds = 2;  // stop half-way
    ASSERT_TRUE((*job)->Run(nullptr, limits).ok());
    EXPECT_EQ((*job)->trials(), 8);
    auto stored = (*store)->GetJob(job_id);
    ASSERT_TRUE(stored.ok());
    EXPECT_EQ(stored->status, JobStatus::kStopped);
  }
  // A new process would do exactly this: open the file, resume by id.
  auto store = RecordsStore::Open(path);
  ASSERT_TRUE(store.ok());
  auto measurer = MakeLocalMeasurer(options.measure);
  auto job = TuningJob::Resume(store->get(), measurer.get(), job_id);
  ASSERT_TRUE(job.ok()) << job.status();
  EXPECT_EQ((*job)->trials(), 8);
  for (const TaskStatus& t : (*job)->TaskStatuses()) {
    EXPECT_EQ(t.trials, 4) << t.name;  // warm-up gave each task one round
    EXPECT_EQ(t.rounds, 1) << t.name;
  }
  ASSERT_TRUE((*job)->Run().ok());
  EXPECT_EQ((*job)->trials(), 16);

  auto records = (*store)->JobRecords(job_id);
  ASSERT_TRUE(records.ok());
  EXPECT_EQ(records->size(), 16u);
  std::set<std::pair<int, std::string>> seen;
  for (const StoredRecord& r : *records) {
    EXPECT_TRUE(seen.insert({r.task_index, r.steps}).second)
        << "measured twice: task " << r.task_index << ": " << r.steps;
  }
  auto stored = (*store)->GetJob(job_id);
  ASSERT_TRUE(stored.ok());
  EXPECT_EQ(stored->status, JobStatus::kDone);
  // Resuming a finished job runs nothing more.
  auto again = TuningJob::Resume(store->get(), measurer.get(), job_id);
  ASSERT_TRUE(again.ok());
  ASSERT_TRUE((*again)->Run().ok());
  EXPECT_EQ((*again)->trials(), 16);
  std::remove(path.c_str());
}

// Every strategy the CLI offers runs through the same loop: the learned
// models leave their warm-up after the first round and steer the second.
class EveryStrategyTest : public testing::TestWithParam<std::string> {};

TEST_P(EveryStrategyTest, RunsAJobToItsBudget) {
  auto store = RecordsStore::Open(":memory:");
  ASSERT_TRUE(store.ok());
  TuningOptions options = QuickOptions(GetParam(), 12, 4);
  auto measurer = MakeLocalMeasurer(options.measure);
  auto job = TuningJob::Create(store->get(), measurer.get(), TwoTasks(), LocalCpu(), options);
  ASSERT_TRUE(job.ok()) << job.status();
  ASSERT_TRUE((*job)->Run().ok());
  EXPECT_EQ((*job)->trials(), 12);
  for (const TaskStatus& t : (*job)->TaskStatuses()) EXPECT_GT(t.best_cost_s, 0) << t.name;
  const std::map<std::string, std::string> checkpointed = {
      {"ansor-xgb", "xgb"}, {"ansor-mlp", "mlp"}, {"pruner", "pacm"}, {"pruner-sym", "pacm"},
      {"ansor-tlp", "tlp"}, {"ansor-autotvm", "autotvm"}, {"autotvm", "autotvm"},
      {"pruner-ensemble", "ensemble"}};
  if (checkpointed.count(GetParam())) {
    // The trained model was checkpointed with the job's device.
    const std::string model = checkpointed.at(GetParam());
    auto checkpoint = (*store)->LatestCheckpoint(model, LocalCpu().name);
    ASSERT_TRUE(checkpoint.ok()) << checkpoint.status();
    EXPECT_FALSE(checkpoint->empty());
  }
}

INSTANTIATE_TEST_SUITE_P(Strategies, EveryStrategyTest,
                         testing::Values("random", "ansor-random", "ansor-xgb", "ansor-mlp",
                                         "ansor-tlp", "ansor-autotvm", "autotvm", "lse-xgb",
                                         "pruner", "pruner-sym", "pruner-ensemble"),
                         [](const testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param;
                           for (char& c : name) c = c == '-' ? '_' : c;
                           return name;
                         });

// MoA end to end: records of one device pretrain a PaCM checkpoint, which a
// moa-pruner job on another device starts from and adapts; the offline
// variant uses it as is. A job without a checkpoint is refused with a
// message that says how to make one.
TEST(TuningJobTest, MoaPrunerStartsFromACheckpointPretrainedOnAnotherDevice) {
  auto store = RecordsStore::Open(":memory:");
  ASSERT_TRUE(store.ok());
  DeviceProfile source = LocalCpu();
  source.name = "cpu-pretraining-source";

  TuningOptions missing = QuickOptions("moa-pruner", 12, 4);
  missing.pretrained_device = source.name;
  auto measurer = MakeLocalMeasurer(missing.measure);
  auto refused = TuningJob::Create(store->get(), measurer.get(), TwoTasks(), LocalCpu(), missing);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("pruner pretrain"), std::string::npos)
      << refused.status();
  TuningOptions unnamed = QuickOptions("moa-pruner", 12, 4);
  EXPECT_NE(ValidateTuningOptions(unnamed).message().find("pretrained"), std::string::npos);

  // Records on the source device.
  TuningOptions collect = QuickOptions("random", 24, 8);
  auto source_job = TuningJob::Create(store->get(), measurer.get(), TwoTasks(), source, collect);
  ASSERT_TRUE(source_job.ok()) << source_job.status();
  ASSERT_TRUE((*source_job)->Run().ok());
  auto records = (*store)->JobRecords((*source_job)->id());
  ASSERT_TRUE(records.ok());
  std::vector<MeasuredState> training;
  for (const SearchTask& task : TwoTasks()) {
    for (const StoredRecord& r : *records) {
      if (r.workload_key != task.workload_key) continue;
      auto steps = ParseSteps(r.steps);
      ASSERT_TRUE(steps.ok());
      auto state = State::Replay(task.dag, *steps);
      ASSERT_TRUE(state.ok()) << state.status();
      training.push_back(MeasuredState{*state, r.workload_key, r.result.mean_s, r.result.ok()});
    }
  }
  PaCMPretrainOptions pretrain;
  pretrain.training.schedule.max_epochs = 5;
  auto pretrained = PretrainPaCM(training, source, pretrain);
  ASSERT_TRUE(pretrained.ok()) << pretrained.status();
  ASSERT_TRUE((*store)
                  ->PutCheckpoint("pacm", source.name, pretrained->checkpoint,
                                  pretrained->train_programs)
                  .ok());

  for (const std::string strategy : {"moa-pruner", "pruner-offline"}) {
    TuningOptions options = QuickOptions(strategy, 12, 4);
    options.pretrained_device = source.name;
    auto job = TuningJob::Create(store->get(), measurer.get(), TwoTasks(), LocalCpu(), options);
    ASSERT_TRUE(job.ok()) << strategy << ": " << job.status();
    ASSERT_TRUE((*job)->Run().ok()) << strategy;
    EXPECT_EQ((*job)->trials(), 12) << strategy;
    for (const TaskStatus& t : (*job)->TaskStatuses()) {
      EXPECT_GT(t.best_cost_s, 0) << strategy << " " << t.name;
    }
  }
  // The adapted model is saved under the target device, where a later
  // moa-pruner job on it can continue.
  auto adapted = (*store)->LatestCheckpoint("pacm", LocalCpu().name);
  ASSERT_TRUE(adapted.ok()) << adapted.status();
  EXPECT_FALSE(adapted->empty());
}

// MTL-TLP's second head learns another device's records from the database;
// without naming that device the job is refused.
TEST(TuningJobTest, MtlTlpTrainsItsSecondHeadOnAnotherDevicesRecords) {
  auto store = RecordsStore::Open(":memory:");
  ASSERT_TRUE(store.ok());
  DeviceProfile other = LocalCpu();
  other.name = "cpu-second-head";
  TuningOptions unnamed = QuickOptions("ansor-mtl-tlp", 12, 4);
  EXPECT_NE(ValidateTuningOptions(unnamed).message().find("second head"), std::string::npos);

  TuningOptions collect = QuickOptions("random", 16, 8);
  auto measurer = MakeLocalMeasurer(collect.measure);
  auto source = TuningJob::Create(store->get(), measurer.get(), TwoTasks(), other, collect);
  ASSERT_TRUE(source.ok()) << source.status();
  ASSERT_TRUE((*source)->Run().ok());

  TuningOptions options = QuickOptions("ansor-mtl-tlp", 12, 4);
  options.pretrained_device = other.name;
  auto job = TuningJob::Create(store->get(), measurer.get(), TwoTasks(), LocalCpu(), options);
  ASSERT_TRUE(job.ok()) << job.status();
  ASSERT_TRUE((*job)->Run().ok());
  EXPECT_EQ((*job)->trials(), 12);
  auto checkpoint = (*store)->LatestCheckpoint("mtl-tlp", LocalCpu().name);
  ASSERT_TRUE(checkpoint.ok()) << checkpoint.status();

  options.pretrained_device = "no-such-device";
  auto refused = TuningJob::Create(store->get(), measurer.get(), TwoTasks(), LocalCpu(), options);
  EXPECT_FALSE(refused.ok());
}

// A job whose kernels run on fewer threads than the device has drafts and
// generates sketches for those threads alone, before and after a resume;
// records stay under the device's own key.
TEST(TuningJobTest, SearchesForTheThreadsItsKernelsRunOn) {
  auto store = RecordsStore::Open(":memory:");
  ASSERT_TRUE(store.ok()) << store.status();
  DeviceProfile four = LocalCpu();
  four.name = "cpu-test-4t";
  four.num_cores = 4;
  four.physical_cores = 4;
  four.peak_gflops = 400;
  TuningOptions options = QuickOptions("random", 4, 2);
  options.measure.num_threads = 1;
  auto measurer = MakeLocalMeasurer(options.measure);
  auto job = TuningJob::Create(store->get(), measurer.get(), TwoTasks(), four, options);
  ASSERT_TRUE(job.ok()) << job.status();
  EXPECT_EQ((*job)->SearchDevice().name, "cpu-test-4t");
  EXPECT_EQ((*job)->SearchDevice().num_cores, 1);
  EXPECT_DOUBLE_EQ((*job)->SearchDevice().peak_gflops, 100);
  auto resumed = TuningJob::Resume(store->get(), measurer.get(), (*job)->id());
  ASSERT_TRUE(resumed.ok()) << resumed.status();
  EXPECT_EQ((*resumed)->SearchDevice().num_cores, 1);
  ASSERT_TRUE((*resumed)->Run().ok());
  auto records = (*store)->JobRecords((*job)->id());
  ASSERT_TRUE(records.ok());
  ASSERT_EQ(records->size(), 4u);
  auto best = (*store)->BestRecord((*job)->TaskStatuses()[0].workload_key, "cpu-test-4t");
  EXPECT_TRUE(best.ok()) << best.status();

  options.measure.num_threads = 0;  // every hardware thread
  auto all = TuningJob::Create(store->get(), measurer.get(), TwoTasks(), four, options);
  ASSERT_TRUE(all.ok()) << all.status();
  EXPECT_EQ((*all)->SearchDevice().num_cores, 4);
  EXPECT_DOUBLE_EQ((*all)->SearchDevice().peak_gflops, 400);
}

TEST(TuningJobTest, BadInputIsRefusedWithAReason) {
  auto store = RecordsStore::Open(":memory:");
  ASSERT_TRUE(store.ok());
  TuningOptions options = QuickOptions("random", 1, 4);
  auto measurer = MakeLocalMeasurer(options.measure);

  auto too_small = TuningJob::Create(store->get(), measurer.get(), TwoTasks(), LocalCpu(), options);
  ASSERT_FALSE(too_small.ok());
  EXPECT_NE(too_small.status().message().find("smaller than the number of tasks"), std::string::npos)
      << too_small.status();

  options.trial_budget = 8;
  auto none = TuningJob::Create(store->get(), measurer.get(), {}, LocalCpu(), options);
  EXPECT_EQ(none.status().code(), absl::StatusCode::kInvalidArgument);

  options.strategy = "simulated-annealing";
  auto unknown = TuningJob::Create(store->get(), measurer.get(), TwoTasks(), LocalCpu(), options);
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("unknown strategy"), std::string::npos);

  auto missing = TuningJob::Resume(store->get(), measurer.get(), 12345);
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound) << missing.status();

  EXPECT_FALSE(TuningOptionsFromJson("{\"trial_budget\": -3}").ok());
  EXPECT_FALSE(TuningOptionsFromJson("{\"triall_budget\": 3}").ok());
  EXPECT_FALSE(TuningOptionsFromJson("[1,2]").ok());
}

TEST(TuningOptionsTest, RoundTripsThroughJson) {
  TuningOptions o = QuickOptions("ansor-xgb", 777, 32);
  o.name = "nightly";
  o.scheduler = "round-robin";
  o.seed = 99;
  o.measure.flush_cache = true;
  o.measure.hopeless_factor = 25;
  o.seed_schedules = false;
  auto back = TuningOptionsFromJson(TuningOptionsToJson(o));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(TuningOptionsToJson(*back), TuningOptionsToJson(o));
  EXPECT_FALSE(back->seed_schedules);
  // A job stored before the key existed keeps the default: seeds on.
  auto old = TuningOptionsFromJson("{\"strategy\": \"ansor-xgb\"}");
  ASSERT_TRUE(old.ok()) << old.status();
  EXPECT_TRUE(old->seed_schedules);
  EXPECT_EQ(back->trial_budget, 777);
  EXPECT_EQ(back->scheduler, "round-robin");
  EXPECT_TRUE(back->measure.flush_cache);
  EXPECT_EQ(back->measure.hopeless_factor, 25);
}

TEST(TuningOptionsTest, HopelessFactorIsOffOrAtLeastTwo) {
  TuningOptions o = QuickOptions("ansor-xgb", 64, 32);
  EXPECT_EQ(TuningOptions().measure.hopeless_factor, 10) << "trials give up on hopeless candidates";
  for (double ok : {0.0, 2.0, 10.0}) {
    o.measure.hopeless_factor = ok;
    EXPECT_TRUE(ValidateTuningOptions(o).ok()) << ok;
  }
  for (double bad : {-1.0, 0.5, 1.0, 1e7}) {
    o.measure.hopeless_factor = bad;
    const absl::Status s = ValidateTuningOptions(o);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_NE(s.message().find("hopeless_factor"), std::string::npos) << s;
  }
}

}  // namespace
}  // namespace pruner
