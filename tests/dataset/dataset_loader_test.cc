// LoadDataset's bookkeeping on a hand-filled in-memory database: which
// workloads, weights, groups and records it takes, with and without job ids.
// The sentences are real random schedules (so they parse and replay); the
// latencies are made-up numbers chosen to make the merging visible: this
// test measures nothing and checks no metric.
#include "bench/dataset/dataset_loader.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "bench/dataset/lse_evaluation.h"
#include "bench/dataset/metrics_report.h"
#include "bench/dataset/model_topk.h"
#include "bench/dataset/replayed_dataset.h"
#include "common/ir/ops.h"
#include "common/sketch/annotate.h"
#include "common/sketch/random.h"
#include "common/sketch/sketch.h"
#include "gtest/gtest.h"

namespace pruner::dataset {
namespace {

struct Workload {
  std::shared_ptr<const ComputeDag> dag;
  std::string key;
  std::vector<std::string> sentences;  // distinct random schedules
};

Workload MakeWorkload(const std::string& spec, const DeviceProfile& cpu, int n) {
  auto built = BuildOperator(spec);
  EXPECT_TRUE(built.ok()) << built.status();
  Workload w;
  w.dag = std::make_shared<const ComputeDag>(*std::move(built));
  w.key = w.dag->WorkloadKey();
  auto sketches = GenerateSketches(w.dag, cpu);
  EXPECT_TRUE(sketches.ok()) << sketches.status();
  Rng rng(17);
  for (const State& s : SampleInitPopulation(*sketches, cpu, n, rng)) {
    w.sentences.push_back(s.ToSentence());
  }
  EXPECT_EQ(static_cast<int>(w.sentences.size()), n);
  return w;
}

StoredRecord Record(const Workload& w, const std::string& device, int schedule, double mean_s,
                    int64_t job = 0, int task = -1) {
  StoredRecord r;
  r.workload_key = w.key;
  r.device_key = device;
  r.steps = w.sentences[schedule];
  r.job_id = job;
  r.task_index = task;
  if (mean_s > 0) {
    r.result.repeat_costs_s = {mean_s};
    r.result.mean_s = mean_s;
  } else {
    r.result.error = MeasureError::kRunError;
    r.result.phase = "run";
  }
  return r;
}

class DatasetLoaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto cpu = GetDeviceProfile("cpu");
    auto gpu = GetDeviceProfile("a100");
    ASSERT_TRUE(cpu.ok() && gpu.ok());
    cpu_ = *cpu;
    gpu_ = *gpu;
    auto opened = RecordsStore::Open(":memory:");
    ASSERT_TRUE(opened.ok()) << opened.status();
    store_ = *std::move(opened);
    ASSERT_TRUE(store_->PutDevice(cpu_).ok());
    ASSERT_TRUE(store_->PutDevice(gpu_).ok());
    w1_ = MakeWorkload("matmul:M=32,K=32,N=32", cpu_, 3);
    w2_ = MakeWorkload("matmul:M=16,K=64,N=32", cpu_, 3);
    w3_ = MakeWorkload("matmul:M=64,K=16,N=16", cpu_, 1);
    w4_ = MakeWorkload("matmul:M=8,K=8,N=8", cpu_, 2);
    for (const Workload* w : {&w1_, &w2_, &w3_, &w4_}) ASSERT_TRUE(store_->PutWorkload(*w->dag).ok());

    // netA: W1 x3, W2 x1. netB: W2 x5, W3 x2.
    job_a_ = CreateJob("netA", {{0, "w1", w1_.key, 3}, {1, "w2", w2_.key, 1}});
    job_b_ = CreateJob("netB", {{0, "w2", w2_.key, 5}, {1, "w3", w3_.key, 2}});
    const std::string c = cpu_.name;
    std::vector<StoredRecord> records = {
        Record(w1_, c, 0, 1e-3, job_a_, 0),
        Record(w1_, c, 1, 4e-3, job_a_, 0),
        Record(w1_, c, 0, 3e-3, job_a_, 0),   // schedule 0 again: its latest time counts
        Record(w1_, c, 2, -1, job_a_, 0),     // failed
        Record(w2_, c, 0, 5e-3, job_a_, 1),
        Record(w2_, c, 1, 6e-3, job_a_, 1),
        Record(w2_, c, 2, 7e-3, job_b_, 0),
        Record(w3_, c, 0, -1, job_b_, 1),     // W3 has no ok record
        Record(w4_, c, 0, 8e-3),              // no job
        Record(w4_, c, 1, 9e-3),
        Record(w1_, gpu_.name, 1, 1e-5),      // another device
    };
    ASSERT_TRUE(store_->AddRecords(records).ok());
  }

  int64_t CreateJob(const std::string& name, const std::vector<StoredTask>& tasks) {
    StoredJob job;
    job.name = name;
    job.device_key = cpu_.name;
    job.strategy = "random";
    job.scheduler = "round-robin";
    job.trial_budget = 10;
    job.measures_per_round = 2;
    job.tasks = tasks;
    auto id = store_->CreateJob(job);
    EXPECT_TRUE(id.ok()) << id.status();
    return *id;
  }

  const DatasetWorkload* Find(const Dataset& d, const std::string& key) {
    for (const DatasetWorkload& w : d.workloads) {
      if (w.key == key) return &w;
    }
    return nullptr;
  }

  DeviceProfile cpu_, gpu_;
  std::unique_ptr<RecordsStore> store_;
  Workload w1_, w2_, w3_, w4_;
  int64_t job_a_ = 0, job_b_ = 0;
};

TEST_F(DatasetLoaderTest, AllJobsOnTheDevice) {
  auto d = LoadDataset(*store_, DatasetQuery{cpu_.name, {}});
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->device.name, cpu_.name);
  ASSERT_EQ(d->workloads.size(), 3u);  // W1, W2, W4; W3 has no ok record
  EXPECT_EQ(d->empty_workloads, 1);
  EXPECT_EQ(d->ok_records, 8);
  EXPECT_EQ(d->failed_records, 2);
  EXPECT_EQ(d->merged_repeats, 1);

  const DatasetWorkload* w1 = Find(*d, w1_.key);
  ASSERT_NE(w1, nullptr);
  EXPECT_EQ(w1->group, "netA");
  EXPECT_EQ(w1->name, "w1");
  EXPECT_EQ(w1->weight, 3);
  ASSERT_EQ(w1->schedules.size(), 2u);
  EXPECT_EQ(w1->schedules[0].steps, w1_.sentences[0]);
  EXPECT_DOUBLE_EQ(w1->schedules[0].latency_s, 3e-3);  // the later of 1 and 3 ms
  EXPECT_EQ(w1->schedules[0].measurements, 2);
  EXPECT_DOUBLE_EQ(w1->schedules[1].latency_s, 4e-3);

  // W2 belongs to the first job that lists it, with that job's weight, and
  // keeps every record on the device.
  const DatasetWorkload* w2 = Find(*d, w2_.key);
  ASSERT_NE(w2, nullptr);
  EXPECT_EQ(w2->group, "netA");
  EXPECT_EQ(w2->weight, 1);
  EXPECT_EQ(w2->schedules.size(), 3u);

  const DatasetWorkload* w4 = Find(*d, w4_.key);
  ASSERT_NE(w4, nullptr);
  EXPECT_EQ(w4->group, "(no job)");
  EXPECT_EQ(w4->weight, 1);
  EXPECT_EQ(w4->schedules.size(), 2u);
  EXPECT_EQ(d->NumSchedules(), 7);
  // These jobs stored no options, and W4 belongs to no job: threads unknown.
  EXPECT_EQ(d->kernel_threads, 0);

  // Every schedule replays to a state of its workload.
  const ReplayedDataset replayed = ReplayDataset(*d);
  EXPECT_EQ(replayed.dropped, 0);
  EXPECT_EQ(replayed.NumStates(), 7);
  // Several groups: leave one group out.
  const std::vector<Fold> folds = MakeFolds(replayed, 4);
  ASSERT_EQ(folds.size(), 2u);
  EXPECT_EQ(folds[0].label, "netA");
  EXPECT_EQ(folds[0].test.size(), 2u);
  EXPECT_EQ(folds[1].label, "(no job)");
}

// The two splits of Table 11 on the same workloads: folds by workload key
// whatever the groups, and whole groups, one per fold or dealt into a few.
TEST(ModelFoldsTest, WorkloadAndNetworkSplits) {
  ReplayedDataset data;
  const char* groups[] = {"net1", "net1", "net2", "net3", "net3", "net4", "net5"};
  for (int i = 0; i < 7; ++i) {
    ReplayedWorkload w;
    w.key = "workload-" + std::to_string(i);
    w.group = groups[i];
    data.workloads.push_back(w);
  }
  const std::vector<Fold> by_workload = MakeFolds(data, 3, FoldBy::kWorkload);
  ASSERT_EQ(by_workload.size(), 3u);
  EXPECT_EQ(by_workload[0].label, "fold 1");
  size_t tested = 0;
  for (const Fold& f : by_workload) tested += f.test.size();
  EXPECT_EQ(tested, 7u);

  const std::vector<Fold> one_per_network = MakeFolds(data, 3, FoldBy::kGroup);
  ASSERT_EQ(one_per_network.size(), 5u);
  EXPECT_EQ(one_per_network[0].label, "net1");
  EXPECT_EQ(one_per_network[0].test, (std::vector<int>{0, 1}));

  const std::vector<Fold> dealt = MakeFolds(data, 3, FoldBy::kGroup, 2);
  ASSERT_EQ(dealt.size(), 2u);
  std::vector<int> all;
  for (const Fold& f : dealt) {
    all.insert(all.end(), f.test.begin(), f.test.end());
    // A network is never split between folds.
    const bool has0 = std::count(f.test.begin(), f.test.end(), 0) > 0;
    const bool has1 = std::count(f.test.begin(), f.test.end(), 1) > 0;
    EXPECT_EQ(has0, has1) << f.label;
  }
  std::sort(all.begin(), all.end());
  EXPECT_EQ(all, (std::vector<int>{0, 1, 2, 3, 4, 5, 6}));

  ReplayedDataset one_group = data;
  for (ReplayedWorkload& w : one_group.workloads) w.group = "only";
  EXPECT_TRUE(MakeFolds(one_group, 3, FoldBy::kGroup).empty());

  const Spread spread = SpreadOf({0.5, 0.7, std::nan("")});
  EXPECT_DOUBLE_EQ(spread.mean, 0.6);
  EXPECT_NEAR(spread.sd, std::sqrt(0.02), 1e-12);
}

TEST(TopOneLossTest, PerWorkloadMeanCountsEachHeldOutWorkloadOnce) {
  TopKPoint point;
  point.fraction = 1.0;
  // Picks the best (1.0), picks 2x the best, and one workload no fold held out.
  point.scored = {{10, {1.0, 3.0}, {2.0, 1.0}}, {1, {2.0, 4.0}, {0.0, 1.0}}, {}};
  EXPECT_DOUBLE_EQ(MeanTopOneRatio(point), (1.0 + 0.5) / 2);
  // The pooled Top_1 of the same picks is dominated by the heavy workload.
  EXPECT_DOUBLE_EQ(ExpectedTopK({point.scored[0], point.scored[1]}, 1).value,
                   (10 * 1.0 + 2.0) / (10 * 1.0 + 4.0));
  EXPECT_TRUE(std::isnan(MeanTopOneRatio(TopKPoint{})));
}

TEST_F(DatasetLoaderTest, RecordsMeasuredOnABusyHostAreLeftOut) {
  const std::string c = cpu_.name;
  StoredRecord busy = Record(w4_, c, 0, 1e-3);  // contended: would replace schedule 0's time
  busy.result.host_busy_cores = 1.5;
  busy.measured_at_unix_ms = 1;
  StoredRecord quiet = Record(w4_, c, 1, 9e-3);
  quiet.result.host_busy_cores = 0.2;
  quiet.measured_at_unix_ms = 2;
  ASSERT_TRUE(store_->AddRecords({busy, quiet}).ok());

  auto d = LoadDataset(*store_, DatasetQuery{c, {}});
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->busy_records, 1);
  EXPECT_EQ(d->ok_records, 9);
  const DatasetWorkload* w4 = Find(*d, w4_.key);
  ASSERT_NE(w4, nullptr);
  EXPECT_DOUBLE_EQ(w4->schedules[0].latency_s, 8e-3);
  EXPECT_EQ(w4->schedules[1].measurements, 2);  // the quiet record and the unsampled one

  auto all = LoadDataset(*store_, DatasetQuery{c, {}, /*max_host_busy_cores=*/-1});
  ASSERT_TRUE(all.ok()) << all.status();
  EXPECT_EQ(all->busy_records, 0);
  EXPECT_DOUBLE_EQ(Find(*all, w4_.key)->schedules[0].latency_s, 1e-3);  // the latest
}

TEST_F(DatasetLoaderTest, RepeatsOfOneBuildArePooledIntoTheirMedian) {
  // SetUp's records are stored "now"; a later build measures again.
  const int64_t build = absl::ToUnixMillis(absl::Now()) + 86'400'000;
  const std::string c = cpu_.name;
  auto at = [&](StoredRecord r, int64_t ms, double busy_cores = 0) {
    r.measured_at_unix_ms = build + ms;
    r.result.host_busy_cores = busy_cores;
    return r;
  };
  ASSERT_TRUE(store_
                  ->AddRecords({at(Record(w4_, c, 0, 2e-3), 1), at(Record(w4_, c, 0, 3e-3), 2),
                                at(Record(w4_, c, 0, 1e-6), 3, /*busy_cores=*/1.5),
                                at(Record(w4_, c, 0, 9e-3), 4),  // the latest
                                at(Record(w1_, c, 1, 5e-3, job_a_, 0), 5),
                                at(Record(w1_, c, 1, 7e-3, job_a_, 0), 6)})
                  .ok());
  auto latest = LoadDataset(*store_, DatasetQuery{c, {}});
  ASSERT_TRUE(latest.ok()) << latest.status();
  EXPECT_DOUBLE_EQ(Find(*latest, w4_.key)->schedules[0].latency_s, 9e-3);
  EXPECT_EQ(latest->pooled_repeats, 0);

  DatasetQuery pooled{c, {}};
  pooled.median_since_unix_ms = build;
  auto d = LoadDataset(*store_, pooled);
  ASSERT_TRUE(d.ok()) << d.status();
  const DatasetWorkload* w4 = Find(*d, w4_.key);
  const DatasetWorkload* w1 = Find(*d, w1_.key);
  ASSERT_TRUE(w4 != nullptr && w1 != nullptr);
  // 2, 3 and 9 ms pool (the busy record does not; the record of the old
  // build, 8 ms, is older than the build): the median is 3 ms.
  EXPECT_DOUBLE_EQ(w4->schedules[0].latency_s, 3e-3);
  EXPECT_EQ(w4->schedules[0].measurements, 4);
  EXPECT_DOUBLE_EQ(w4->schedules[1].latency_s, 9e-3);  // not measured since: its latest
  EXPECT_DOUBLE_EQ(w1->schedules[1].latency_s, 6e-3);  // two: their mean, not the old 4 ms
  EXPECT_DOUBLE_EQ(w1->schedules[0].latency_s, 3e-3);  // untouched
  EXPECT_EQ(d->pooled_repeats, 2 + 1);
}

TEST_F(DatasetLoaderTest, ChosenJobsKeepOnlyTheirTasksAndRecords) {
  auto d = LoadDataset(*store_, DatasetQuery{"", {job_b_}});
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->device.name, cpu_.name);  // the job's device
  ASSERT_EQ(d->workloads.size(), 1u);    // W2; W3 has only a failure
  EXPECT_EQ(d->workloads[0].key, w2_.key);
  EXPECT_EQ(d->workloads[0].group, "netB");
  EXPECT_EQ(d->workloads[0].weight, 5);
  ASSERT_EQ(d->workloads[0].schedules.size(), 1u);  // job B measured one of W2's
  EXPECT_DOUBLE_EQ(d->workloads[0].schedules[0].latency_s, 7e-3);
  EXPECT_EQ(d->failed_records, 1);
}

TEST_F(DatasetLoaderTest, DeviceMustBeChosenWhenAmbiguous) {
  auto d = LoadDataset(*store_, DatasetQuery{"", {}});
  EXPECT_EQ(d.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(d.status().message().find(gpu_.name), std::string::npos) << d.status();
  auto gpu = LoadDataset(*store_, DatasetQuery{gpu_.name, {}});
  ASSERT_TRUE(gpu.ok()) << gpu.status();
  ASSERT_EQ(gpu->workloads.size(), 1u);
  EXPECT_EQ(gpu->workloads[0].group, "(no job)");  // the jobs ran on the CPU
  auto mismatch = LoadDataset(*store_, DatasetQuery{gpu_.name, {job_a_}});
  EXPECT_EQ(mismatch.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(AnalyzerDeviceTest, RestrictsACpuToTheKernelThreads) {
  DeviceProfile cpu;
  cpu.kind = DeviceKind::kCpu;
  cpu.name = "cpu-test";
  cpu.num_cores = 4;
  cpu.physical_cores = 2;  // SMT: the peak counts physical cores
  cpu.peak_gflops = 100;
  const DeviceProfile one = AnalyzerDevice(cpu, 1);
  EXPECT_EQ(one.num_cores, 1);
  EXPECT_EQ(one.physical_cores, 1);
  EXPECT_DOUBLE_EQ(one.peak_gflops, 50);
  EXPECT_EQ(one.name, cpu.name);
  const DeviceProfile three = AnalyzerDevice(cpu, 3);
  EXPECT_EQ(three.num_cores, 3);
  EXPECT_EQ(three.physical_cores, 2);
  EXPECT_DOUBLE_EQ(three.peak_gflops, 100);
  // All threads, unknown, or a GPU: the profile as stored.
  EXPECT_EQ(AnalyzerDevice(cpu, 0), cpu);
  EXPECT_EQ(AnalyzerDevice(cpu, 4), cpu);
  auto gpu = GetDeviceProfile("a100");
  ASSERT_TRUE(gpu.ok());
  EXPECT_EQ(AnalyzerDevice(*gpu, 1), *gpu);
}

}  // namespace
}  // namespace pruner::dataset
