// The dataset feature end to end, with real measurement of small BERT shapes:
// collection spends per-task schedules on each network's new tasks and
// leaves shared workloads to the first network; it stops and resumes without
// measuring a schedule twice, also across an export to shards and an import
// into another database; and bad input is refused before anything runs.
#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>

#include "common/graph/networks.h"
#include "common/measure/local_measurer.h"
#include "common/store/records_store.h"
#include "common/tune/dataset_collection.h"
#include "common/tune/dataset_remeasure.h"
#include "common/tune/dataset_shards.h"
#include "common/tune/dataset_stats.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/store/store_test_util.h"
#include "tests/tune/tune_test_util.h"

namespace pruner {
namespace {

using ::testing::HasSubstr;

// 8 tasks; the second network has 8 rows in its dense layers too, so 5 of
// its 8 tasks (layer norm and the four dense ones) are the first's.
const std::vector<std::string> kNetworks = {"bert-tiny:seq=8", "bert-tiny:batch=2,seq=4"};

DatasetCollectOptions Quick() {
  DatasetCollectOptions o;
  o.networks = kNetworks;
  o.per_task = 2;
  o.per_round = 2;
  o.measure = QuickOptions("random", 1, 1).measure;
  return o;
}

std::map<std::string, StoredJob> JobsByName(const RecordsStore& store) {
  std::map<std::string, StoredJob> jobs;
  auto list = store.ListJobs();
  EXPECT_TRUE(list.ok()) << list.status();
  for (StoredJob& j : *list) jobs[j.name] = std::move(j);
  return jobs;
}

// Every dataset record: (workload, steps) must be unique.
void ExpectNoScheduleMeasuredTwice(const RecordsStore& store) {
  std::set<std::pair<std::string, std::string>> seen;
  for (const auto& [name, job] : JobsByName(store)) {
    auto records = store.JobRecords(job.id);
    ASSERT_TRUE(records.ok());
    for (const StoredRecord& r : *records) {
      EXPECT_TRUE(seen.insert({r.workload_key, r.steps}).second) << name << ": " << r.steps;
    }
  }
}

class DatasetTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ::testing::TempDir() + "/dataset_test_" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  // Collects the first network alone (job "dataset bert-tiny:seq=8"),
  // timed by `measurer`.
  void CollectFirstNetwork(RecordsStore* store, Measurer* measurer) {
    DatasetCollectOptions one = Quick();
    one.networks = {kNetworks[0]};
    ASSERT_TRUE(CollectDataset(store, measurer, device_, one).ok());
  }

  std::string dir_;
  std::unique_ptr<Measurer> measurer_ = MakeLocalMeasurer(Quick().measure);
  DeviceProfile device_ = WithStableCpuKey(LocalCpu());
};

TEST_F(DatasetTest, EachNetworkIsAJobAndSharedWorkloadsAreCollectedOnce) {
  ASSIGN_OR_FAIL(auto store, RecordsStore::Open(":memory:"));
  ASSIGN_OR_FAIL(auto reports, CollectDataset(store.get(), measurer_.get(), device_, Quick()));
  ASSERT_EQ(reports.size(), 2u);
  EXPECT_EQ(reports[0].spec, "bert-tiny:seq=8");
  EXPECT_EQ(reports[0].new_tasks, 8);
  EXPECT_EQ(reports[1].tasks, 8);
  EXPECT_EQ(reports[1].new_tasks, 3);

  auto jobs = JobsByName(*store);
  ASSERT_EQ(jobs.size(), 2u);
  const StoredJob& first = jobs.at("dataset bert-tiny:seq=8");
  const StoredJob& second = jobs.at("dataset bert-tiny:batch=2,seq=4");
  EXPECT_EQ(first.strategy, "random");
  EXPECT_EQ(first.scheduler, "round-robin");
  EXPECT_EQ(first.status, JobStatus::kDone);
  std::set<std::string> first_keys;
  for (const StoredTask& t : first.tasks) first_keys.insert(t.workload_key);
  for (const StoredTask& t : second.tasks) EXPECT_FALSE(first_keys.count(t.workload_key)) << t.name;

  // per_task schedules of every task, each verified (ok) and with the host's
  // other work sampled.
  for (const StoredJob* job : {&first, &second}) {
    ASSIGN_OR_FAIL(auto records, store->JobRecords(job->id));
    std::map<int, int> per_task;
    for (const StoredRecord& r : records) {
      ++per_task[r.task_index];
      EXPECT_TRUE(r.result.ok()) << r.result.Describe();
      EXPECT_GE(r.result.host_busy_cores, 0);
    }
    EXPECT_EQ(per_task.size(), job->tasks.size());
    for (const auto& [task, n] : per_task) EXPECT_EQ(n, 2) << job->name << " task " << task;
  }
  ExpectNoScheduleMeasuredTwice(*store);

  ASSIGN_OR_FAIL(auto stats, ComputeDatasetStats(*store));
  ASSERT_EQ(stats.size(), 1u);
  EXPECT_EQ(stats[0].networks, 2);
  EXPECT_EQ(stats[0].trials, 22);
  EXPECT_EQ(stats[0].ok_records, 22);
  EXPECT_EQ(stats[0].workloads, 11);
  EXPECT_EQ(stats[0].families.at("dense").workloads, 4);
  EXPECT_EQ(stats[0].families.at("batch-matmul").workloads, 4);
  EXPECT_EQ(stats[0].families.at("softmax").workloads, 2);
  EXPECT_EQ(stats[0].families.at("layer-norm").workloads, 1);
  EXPECT_EQ(stats[0].quiet_records + stats[0].busy_records, 22);

  // Collecting again finds both jobs done and measures nothing.
  ASSIGN_OR_FAIL(reports, CollectDataset(store.get(), measurer_.get(), device_, Quick()));
  EXPECT_TRUE(reports[0].skipped && reports[1].skipped);
  ASSIGN_OR_FAIL(int64_t count, store->CountRecords());
  EXPECT_EQ(count, 22);
}

TEST_F(DatasetTest, AStoppedCollectionResumesInAnotherDatabaseFromItsShards) {
  ASSIGN_OR_FAIL(auto source, RecordsStore::Open(dir_ + "/source.db"));
  std::atomic<bool> stop{false};
  DatasetCollectCallbacks stop_after_two_rounds;
  int rounds = 0;
  stop_after_two_rounds.on_round = [&](const DatasetNetworkReport&, const RoundReport&) {
    if (++rounds == 2) stop.store(true);
  };
  ASSIGN_OR_FAIL(auto reports, CollectDataset(source.get(), measurer_.get(), device_, Quick(),
                                              stop_after_two_rounds, &stop));
  ASSERT_EQ(reports.size(), 1u);  // the second network never started
  EXPECT_EQ(reports[0].trials, 4);
  EXPECT_EQ(JobsByName(*source).at("dataset bert-tiny:seq=8").status, JobStatus::kStopped);

  ASSIGN_OR_FAIL(auto shards, ExportDatasetShards(*source, dir_ + "/shards"));
  ASSERT_EQ(shards.size(), 1u);
  EXPECT_EQ(shards[0].records, 4);
  EXPECT_TRUE(std::filesystem::exists(shards[0].records_path));

  ASSIGN_OR_FAIL(auto target, RecordsStore::Open(dir_ + "/target.db"));
  ASSIGN_OR_FAIL(auto imported, ImportDatasetShards(target.get(), dir_ + "/shards"));
  ASSERT_EQ(imported.size(), 1u);
  EXPECT_EQ(imported[0].device_key, device_.name);
  EXPECT_EQ(imported[0].records, 4);
  EXPECT_EQ(imported[0].jobs, 1);
  const StoredJob job = JobsByName(*target).at("dataset bert-tiny:seq=8");
  EXPECT_EQ(job.status, JobStatus::kStopped);
  ASSIGN_OR_FAIL(auto adopted, target->JobRecords(job.id));
  EXPECT_EQ(adopted.size(), 4u);  // the records are the recreated job's again
  // Importing again adds nothing.
  ASSIGN_OR_FAIL(imported, ImportDatasetShards(target.get(), dir_ + "/shards"));
  EXPECT_EQ(imported[0].records, 0);
  EXPECT_EQ(imported[0].jobs, 0);

  // The target database finishes the collection: nothing measured twice.
  ASSIGN_OR_FAIL(reports, CollectDataset(target.get(), measurer_.get(), device_, Quick()));
  ASSERT_EQ(reports.size(), 2u);
  EXPECT_EQ(reports[0].trials, 16);
  EXPECT_EQ(reports[1].trials, 6);
  ASSIGN_OR_FAIL(int64_t count, target->CountRecords());
  EXPECT_EQ(count, 22);
  ExpectNoScheduleMeasuredTwice(*target);
}

TEST_F(DatasetTest, BadInputIsRefusedBeforeAnythingIsMeasured) {
  ASSIGN_OR_FAIL(auto store, RecordsStore::Open(":memory:"));
  DatasetCollectOptions o = Quick();
  o.networks.push_back("vgg-19");
  auto unknown = CollectDataset(store.get(), measurer_.get(), device_, o);
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(unknown.status().message()), HasSubstr("vgg-19"));
  o = Quick();
  o.networks = {"bert-tiny:seq=8,image=224"};
  EXPECT_EQ(CollectDataset(store.get(), measurer_.get(), device_, o).status().code(),
            absl::StatusCode::kInvalidArgument);
  o = Quick();
  o.per_task = 0;
  EXPECT_EQ(CollectDataset(store.get(), measurer_.get(), device_, o).status().code(),
            absl::StatusCode::kInvalidArgument);
  ASSIGN_OR_FAIL(auto jobs, store->ListJobs());
  EXPECT_TRUE(jobs.empty());

  // Shards: none there, none to export, a damaged one.
  EXPECT_EQ(ImportDatasetShards(store.get(), dir_).status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(ExportDatasetShards(*store, dir_ + "/out").status().code(),
            absl::StatusCode::kNotFound);
  std::ofstream(dir_ + "/cpu-x.jobs.json") << "[]\n";
  std::ofstream(dir_ + "/cpu-x.jsonl.xz") << "not xz at all";
  auto damaged = ImportDatasetShards(store.get(), dir_);
  EXPECT_EQ(damaged.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(std::string(damaged.status().message()), HasSubstr("not an xz file"));
  std::ofstream(dir_ + "/cpu-x.jobs.json") << "{\"not\": \"a list\"}\n";
  EXPECT_EQ(ImportDatasetShards(store.get(), dir_).status().code(),
            absl::StatusCode::kInvalidArgument);
}

// Measures for real and reports the host as `busy_cores` busy (with
// `alternate`, every other schedule of a call as quiet): the load a
// collection sharing its machine with builds records.
class LoadReportingMeasurer : public Measurer {
 public:
  LoadReportingMeasurer(Measurer* real, const double* busy_cores, const bool* alternate)
      : real_(real), busy_cores_(busy_cores), alternate_(alternate) {}
  std::string Name() const override { return real_->Name(); }
  absl::StatusOr<std::vector<MeasureResult>> Measure(
      const std::vector<MeasureInput>& inputs) override {
    auto results = real_->Measure(inputs);
    if (!results.ok()) return results;
    for (size_t i = 0; i < results->size(); ++i) {
      (*results)[i].host_busy_cores = *alternate_ && i % 2 == 0 ? 0.0 : *busy_cores_;
    }
    return results;
  }

 private:
  Measurer* real_;
  const double* busy_cores_;
  const bool* alternate_;
};

TEST_F(DatasetTest, WorkloadsWithBusySchedulesAreMeasuredAgainWholeAndCountOnce) {
  ASSIGN_OR_FAIL(auto store, RecordsStore::Open(":memory:"));
  // The collection measures each task's two schedules in one call: the first
  // quiet, the second busy.
  double busy_cores = 1.0;
  bool alternate = true;
  LoadReportingMeasurer loaded(measurer_.get(), &busy_cores, &alternate);
  ASSERT_NO_FATAL_FAILURE(CollectFirstNetwork(store.get(), &loaded));
  const StoredJob job = JobsByName(*store).at("dataset bert-tiny:seq=8");
  ASSIGN_OR_FAIL(auto collected, store->JobRecords(job.id));
  ASSERT_EQ(collected.size(), 16u);
  ASSIGN_OR_FAIL(auto stats, ComputeDatasetStats(*store));
  EXPECT_EQ(stats[0].quiet_records, 8);
  EXPECT_EQ(stats[0].busy_records, 8);

  int measurers_made = 0;
  MeasurerFactory factory = [&](const MeasureOptions& m) -> std::unique_ptr<Measurer> {
    ++measurers_made;
    EXPECT_EQ(m.num_threads, Quick().measure.num_threads);  // the job's own options
    EXPECT_EQ(m.hopeless_factor, 0);
    return std::make_unique<LoadReportingMeasurer>(measurer_.get(), &busy_cores, &alternate);
  };
  std::vector<DatasetRemeasureWorkload> seen;
  auto record = [&](const DatasetRemeasureWorkload& w) { seen.push_back(w); };

  // Still busy: every workload is measured again whole (its quiet schedule
  // too, so one build times them all) and left for the next run.
  alternate = false;
  ASSIGN_OR_FAIL(DatasetRemeasureReport busy, RemeasureBusyRecords(store.get(), factory, device_,
                                                                   {}, record, nullptr));
  EXPECT_EQ(busy.workloads, 8);
  EXPECT_EQ(busy.busy, 8);
  EXPECT_EQ(busy.schedules, 16);
  EXPECT_EQ(busy.measured, 16);
  EXPECT_EQ(busy.quiet, 0);
  EXPECT_EQ(seen.size(), 8u);
  EXPECT_EQ(measurers_made, 1);

  // Stopped before the first batch: nothing measured, reported as stopped.
  std::atomic<bool> stop{true};
  ASSIGN_OR_FAIL(DatasetRemeasureReport stopped, RemeasureBusyRecords(store.get(), factory,
                                                                      device_, {}, record, &stop));
  EXPECT_TRUE(stopped.stopped);
  EXPECT_EQ(stopped.measured, 0);

  // Quiet now: every schedule gets a quiet repeat in its own job and task.
  busy_cores = 0.0;
  seen.clear();
  ASSIGN_OR_FAIL(DatasetRemeasureReport quiet, RemeasureBusyRecords(store.get(), factory, device_,
                                                                    {}, record, nullptr));
  EXPECT_EQ(quiet.measured, 16);
  EXPECT_EQ(quiet.quiet, 16);
  EXPECT_FALSE(quiet.stopped);
  ASSERT_EQ(seen.size(), 8u);
  for (const DatasetRemeasureWorkload& w : seen) {
    EXPECT_EQ(w.quiet_before, 1) << w.name;
    EXPECT_EQ(w.busy, 1) << w.name;
    EXPECT_EQ(w.schedules, 2) << w.name;
    EXPECT_EQ(w.quiet, 2) << w.name;
  }
  ASSIGN_OR_FAIL(auto after, store->JobRecords(job.id));
  ASSERT_EQ(after.size(), 48u);
  std::map<std::pair<std::string, std::string>, std::vector<const StoredRecord*>> by_schedule;
  for (const StoredRecord& r : after) by_schedule[{r.workload_key, r.steps}].push_back(&r);
  ASSERT_EQ(by_schedule.size(), 16u);
  for (const StoredRecord& r : collected) {
    const auto& repeats = by_schedule.at({r.workload_key, r.steps});
    ASSERT_EQ(repeats.size(), 3u) << r.steps;
    EXPECT_EQ(repeats.back()->result.host_busy_cores, 0.0);  // the latest is quiet
    for (const StoredRecord* repeat : repeats) {
      EXPECT_TRUE(repeat->result.ok()) << repeat->result.Describe();
      EXPECT_EQ(repeat->task_index, r.task_index);
    }
  }

  // Stats count schedules, not measurements.
  ASSIGN_OR_FAIL(stats, ComputeDatasetStats(*store));
  EXPECT_EQ(stats[0].trials, 16);
  EXPECT_EQ(stats[0].remeasured, 32);
  EXPECT_EQ(stats[0].ok_records, 16);
  EXPECT_EQ(stats[0].quiet_records, 16);
  EXPECT_EQ(stats[0].busy_records, 0);

  // Nothing is left: a further run measures nothing.
  ASSIGN_OR_FAIL(DatasetRemeasureReport none, RemeasureBusyRecords(store.get(), factory, device_,
                                                                   {}, nullptr, nullptr));
  EXPECT_EQ(none.busy, 0);
  EXPECT_EQ(none.measured, 0);

  // A named workload is measured again whole, busy or not.
  DatasetRemeasureOptions named;
  named.workloads = {job.tasks[0].name};
  ASSIGN_OR_FAIL(DatasetRemeasureReport one_workload,
                 RemeasureBusyRecords(store.get(), factory, device_, named, nullptr, nullptr));
  EXPECT_EQ(one_workload.workloads, 1);
  EXPECT_EQ(one_workload.measured, 2);
  named.workloads = {"no_such_task"};
  EXPECT_EQ(RemeasureBusyRecords(store.get(), factory, device_, named, nullptr, nullptr)
                .status()
                .code(),
            absl::StatusCode::kNotFound);
}

// Stops `stop` after its first call.
class StoppingMeasurer : public Measurer {
 public:
  StoppingMeasurer(std::unique_ptr<Measurer> inner, std::atomic<bool>* stop)
      : inner_(std::move(inner)), stop_(stop) {}
  std::string Name() const override { return inner_->Name(); }
  absl::StatusOr<std::vector<MeasureResult>> Measure(
      const std::vector<MeasureInput>& inputs) override {
    stop_->store(true);
    return inner_->Measure(inputs);
  }

 private:
  std::unique_ptr<Measurer> inner_;
  std::atomic<bool>* stop_;
};

TEST_F(DatasetTest, AWorkloadStoppedHalfwayIsMeasuredWholeAgain) {
  ASSIGN_OR_FAIL(auto store, RecordsStore::Open(":memory:"));
  double busy_cores = 1.0;
  bool alternate = true;  // each task: one quiet schedule, one busy
  LoadReportingMeasurer loaded(measurer_.get(), &busy_cores, &alternate);
  ASSERT_NO_FATAL_FAILURE(CollectFirstNetwork(store.get(), &loaded));

  // Quiet re-measurement, stopped after the first schedule: the workload's
  // quiet schedule went first, so its busy one is still busy.
  busy_cores = 0.0;
  alternate = false;
  std::atomic<bool> stop{false};
  MeasurerFactory stopping = [&](const MeasureOptions&) -> std::unique_ptr<Measurer> {
    return std::make_unique<StoppingMeasurer>(
        std::make_unique<LoadReportingMeasurer>(measurer_.get(), &busy_cores, &alternate), &stop);
  };
  DatasetRemeasureOptions singles;
  singles.batch = 1;
  ASSIGN_OR_FAIL(DatasetRemeasureReport cut, RemeasureBusyRecords(store.get(), stopping, device_,
                                                                  singles, nullptr, &stop));
  EXPECT_TRUE(cut.stopped);
  EXPECT_EQ(cut.measured, 1);

  MeasurerFactory quiet = [&](const MeasureOptions&) -> std::unique_ptr<Measurer> {
    return std::make_unique<LoadReportingMeasurer>(measurer_.get(), &busy_cores, &alternate);
  };
  ASSIGN_OR_FAIL(DatasetRemeasureReport rest, RemeasureBusyRecords(store.get(), quiet, device_, {},
                                                                   nullptr, nullptr));
  EXPECT_EQ(rest.workloads, 8);  // the cut one too
  EXPECT_EQ(rest.measured, 16);
}

TEST_F(DatasetTest, RemeasureRefusesAnotherMachinesRecordsAndBadOptions) {
  ASSIGN_OR_FAIL(auto store, RecordsStore::Open(":memory:"));
  ASSERT_NO_FATAL_FAILURE(CollectFirstNetwork(store.get(), measurer_.get()));
  MeasurerFactory factory = [&](const MeasureOptions&) -> std::unique_ptr<Measurer> {
    ADD_FAILURE() << "nothing may be measured";
    return nullptr;
  };
  DeviceProfile other = device_;
  other.name = "cpu-some-other-machine";
  auto elsewhere = RemeasureBusyRecords(store.get(), factory, other, {}, nullptr, nullptr);
  EXPECT_EQ(elsewhere.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(elsewhere.status().message()), HasSubstr("another machine"));
  DatasetRemeasureOptions bad;
  bad.batch = 0;
  EXPECT_EQ(RemeasureBusyRecords(store.get(), factory, device_, bad, nullptr, nullptr)
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
  bad = {};
  bad.busy_threshold = -1;
  EXPECT_EQ(RemeasureBusyRecords(store.get(), factory, device_, bad, nullptr, nullptr)
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
  bad = {};
  bad.passes = 0;
  EXPECT_EQ(RemeasureBusyRecords(store.get(), factory, device_, bad, nullptr, nullptr)
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
  bad = {};
  bad.fastest = 3;  // the busy plan measures whole workloads: fastest needs names
  auto unnamed = RemeasureBusyRecords(store.get(), factory, device_, bad, nullptr, nullptr);
  EXPECT_EQ(unnamed.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(unnamed.status().message()), HasSubstr("named workloads"));
}

TEST_F(DatasetTest, ANamedWorkloadsFastestSchedulesAreMeasuredPassAfterPass) {
  ASSIGN_OR_FAIL(auto store, RecordsStore::Open(":memory:"));
  double busy_cores = 0.0;
  bool alternate = false;
  LoadReportingMeasurer quiet(measurer_.get(), &busy_cores, &alternate);
  ASSERT_NO_FATAL_FAILURE(CollectFirstNetwork(store.get(), &quiet));
  const StoredJob job = JobsByName(*store).at("dataset bert-tiny:seq=8");
  ASSIGN_OR_FAIL(auto collected, store->JobRecords(job.id));
  // The named task's faster schedule, by its only (quiet) measurement.
  const std::string& key = job.tasks[0].workload_key;
  const StoredRecord* fastest = nullptr;
  for (const StoredRecord& r : collected) {
    if (r.workload_key != key || !r.result.ok()) continue;
    if (fastest == nullptr || r.result.mean_s < fastest->result.mean_s) fastest = &r;
  }
  ASSERT_NE(fastest, nullptr);
  const std::string fastest_steps = fastest->steps;

  MeasurerFactory factory = [&](const MeasureOptions&) -> std::unique_ptr<Measurer> {
    return std::make_unique<LoadReportingMeasurer>(measurer_.get(), &busy_cores, &alternate);
  };
  DatasetRemeasureOptions top;
  top.workloads = {job.tasks[0].name};
  top.fastest = 1;
  top.passes = 3;
  std::vector<DatasetRemeasureWorkload> seen;
  ASSIGN_OR_FAIL(DatasetRemeasureReport report,
                 RemeasureBusyRecords(store.get(), factory, device_, top,
                                      [&](const DatasetRemeasureWorkload& w) { seen.push_back(w); },
                                      nullptr));
  EXPECT_EQ(report.workloads, 1);
  EXPECT_EQ(report.schedules, 1);
  EXPECT_EQ(report.planned, 3);
  EXPECT_EQ(report.measured, 3);
  EXPECT_FALSE(report.stopped);
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].schedules, 1);
  EXPECT_EQ(seen[0].measured, 3);
  ASSIGN_OR_FAIL(auto after, store->JobRecords(job.id));
  ASSERT_EQ(after.size(), collected.size() + 3);
  for (size_t i = collected.size(); i < after.size(); ++i) {
    EXPECT_EQ(after[i].workload_key, key);
    EXPECT_EQ(after[i].steps, fastest_steps);  // the same schedule, three times
    EXPECT_TRUE(after[i].result.ok()) << after[i].result.Describe();
  }
}

TEST(DatasetNetworksTest, EveryNetworkAtItsDefaultsFirstThenDistinctValidVariants) {
  const std::vector<std::string> specs = DefaultDatasetNetworks();
  const std::vector<std::string> known = KnownNetworks();
  ASSERT_GT(specs.size(), known.size());
  EXPECT_TRUE(std::equal(known.begin(), known.end(), specs.begin()));
  std::set<std::string> canonical;
  for (const std::string& spec : specs) {
    auto c = CanonicalNetworkSpec(spec);
    ASSERT_TRUE(c.ok()) << spec << ": " << c.status();
    EXPECT_TRUE(canonical.insert(*c).second) << spec;
  }
  // The variants this repository's shard was collected at (bench/data).
  for (const char* spec : {"resnet-50:image=96", "vgg-16:image=160", "mobilenet-v2:batch=4,image=112",
                           "bert-base:seq=32", "bert-large:seq=256", "bert-tiny:batch=4"}) {
    EXPECT_TRUE(canonical.count(*CanonicalNetworkSpec(spec))) << spec;
  }
}

TEST(DatasetFamiliesTest, TaskNamesMapToOperatorFamilies) {
  EXPECT_EQ(OperatorFamily("depthwise_conv2d_bias_relu6_N1_C32_H112_W112_K32_R3_S3_pad1"),
            "depthwise");
  EXPECT_EQ(OperatorFamily("conv2d_bias_relu_N1_C64_H56_W56_K64_R3_S3_pad1"), "conv2d");
  EXPECT_EQ(OperatorFamily("group_conv2d_bias_relu_N1_C1024_H14_W14_K1024_R3_S3_G32"), "conv2d");
  EXPECT_EQ(OperatorFamily("batch_matmul_scale_B2_M128_K64_N128_tb"), "batch-matmul");
  EXPECT_EQ(OperatorFamily("dense_bias_gelu_M128_K128_N512"), "dense");
  EXPECT_EQ(OperatorFamily("global_avg_pool2d_N1_C512_H7_W7"), "pooling");
  EXPECT_EQ(OperatorFamily("max_pool2d_N1_C64_H112_W112"), "pooling");
  EXPECT_EQ(OperatorFamily("softmax_2x128x128"), "softmax");
  EXPECT_EQ(OperatorFamily("layer_norm_128x128"), "layer-norm");
  EXPECT_EQ(OperatorFamily("elementwise_add"), "other");
}

}  // namespace
}  // namespace pruner
