// Concurrency: readers with their own connections keep querying while one
// writer ingests (WAL); many threads share one store; a second process
// writes to the same file while this one reads.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <iostream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/store/records_store.h"
#include "common/store/sqlite_db.h"
#include "gtest/gtest.h"
#include "tests/store/store_test_util.h"

namespace pruner {
namespace {

using store_test::ErrorRecord;
using store_test::Matmul;
using store_test::OkRecord;
using store_test::TempDir;
using store_test::TestDevice;

// Problems seen by worker threads, reported by the main thread (so that a
// failure names every thread's first problem, not just one).
class Problems {
 public:
  void Add(const std::string& problem) {
    std::lock_guard<std::mutex> lock(mu_);
    if (problems_.size() < 20) problems_.push_back(problem);
  }
  std::vector<std::string> Get() {
    std::lock_guard<std::mutex> lock(mu_);
    return problems_;
  }

 private:
  std::mutex mu_;
  std::vector<std::string> problems_;
};

// Means that fall over time, with every 7th record a failure, so the best
// record keeps changing while readers watch it.
StoredRecord WriterRecord(const std::string& key, const std::string& device, int i) {
  if (i % 7 == 3) return ErrorRecord(key, device, MeasureError::kRunError, i);
  return OkRecord(key, device, 1.0 / (1 + i) + (i % 5) * 1e-4, i);
}

// What a reader checks on every pass: counts never shrink, the best mean
// never rises, a page of records is whole.
struct ReaderStats {
  int passes = 0;
  int intermediate = 0;  // passes that saw some but not all records
};

void ReaderLoop(const std::string& path, const std::string& key, const std::string& device,
                int total, std::atomic<int>* ready, const std::atomic<bool>& writer_done,
                Problems* problems, ReaderStats* stats) {
  absl::StatusOr<std::unique_ptr<RecordsStore>> opened = RecordsStore::Open(path);
  ++*ready;
  if (!opened.ok()) {
    problems->Add(absl::StrCat("reader open: ", opened.status().ToString()));
    return;
  }
  RecordsStore& store = **opened;
  int64_t last_count = 0;
  double last_best = 1e9;
  bool last_pass = false;
  while (!last_pass) {
    last_pass = writer_done.load();  // one more full pass after the writer finished
    absl::StatusOr<int64_t> count = store.CountRecords();
    if (!count.ok()) {
      problems->Add(absl::StrCat("CountRecords: ", count.status().ToString()));
      return;
    }
    if (*count < last_count) {
      problems->Add(absl::StrCat("count went from ", last_count, " to ", *count));
    }
    last_count = *count;
    if (*count > 0 && *count < total) ++stats->intermediate;
    absl::StatusOr<StoredRecord> best = store.BestRecord(key, device);
    if (best.ok()) {
      if (best->result.mean_s > last_best) {
        problems->Add(absl::StrCat("best mean rose from ", last_best, " to ", best->result.mean_s));
      }
      last_best = best->result.mean_s;
    } else if (!(best.status().code() == absl::StatusCode::kNotFound && *count == 0)) {
      problems->Add(absl::StrCat("BestRecord with ", *count, " records: ",
                                 best.status().ToString()));
    }
    absl::StatusOr<std::vector<StoredRecord>> page = store.ListRecords(key, device, 50);
    if (!page.ok()) {
      problems->Add(absl::StrCat("ListRecords: ", page.status().ToString()));
    } else if (static_cast<int64_t>(page->size()) < std::min<int64_t>(last_count, 50)) {
      problems->Add(absl::StrCat("ListRecords gave ", page->size(), " after a count of ",
                                 last_count));
    }
    ++stats->passes;
    std::this_thread::yield();
  }
}

TEST(StoreConcurrencyTest, ReadersProceedWhileOneWriterIngests) {
  TempDir dir;
  const std::string path = dir.File("records.db");
  const ComputeDag dag = Matmul(64, 64, 64);
  const std::string key = dag.WorkloadKey();
  const DeviceProfile device = TestDevice();
  {
    ASSIGN_OR_FAIL(auto setup, RecordsStore::Open(path));
    ASSERT_STATUS_OK(setup->PutWorkload(dag));
    ASSERT_STATUS_OK(setup->PutDevice(device));
  }
  constexpr int kRecords = 2000;
  constexpr int kBatch = 50;
  constexpr int kReaders = 3;
  Problems problems;
  std::atomic<bool> writer_done{false};
  std::atomic<int> ready{0};
  std::vector<ReaderStats> stats(kReaders);
  std::vector<std::thread> readers;
  for (int r = 0; r < kReaders; ++r) {
    readers.emplace_back(ReaderLoop, path, key, device.name, kRecords, &ready,
                         std::cref(writer_done), &problems, &stats[r]);
  }
  double best_mean = 1e9;
  std::thread writer([&] {
    while (ready.load() < kReaders) std::this_thread::yield();
    absl::StatusOr<std::unique_ptr<RecordsStore>> store = RecordsStore::Open(path);
    if (!store.ok()) {
      problems.Add(absl::StrCat("writer open: ", store.status().ToString()));
    } else {
      for (int start = 0; start < kRecords; start += kBatch) {
        std::vector<StoredRecord> batch;
        for (int i = start; i < start + kBatch; ++i) {
          batch.push_back(WriterRecord(key, device.name, i));
          if (batch.back().result.ok()) best_mean = std::min(best_mean, batch.back().result.mean_s);
        }
        absl::StatusOr<std::vector<int64_t>> ids = (*store)->AddRecords(batch);
        if (!ids.ok()) {
          problems.Add(absl::StrCat("AddRecords at ", start, ": ", ids.status().ToString()));
          break;
        }
        // A pause between batches, as between measurement rounds, so that
        // readers get to see the table grow even on a loaded machine.
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
      }
    }
    writer_done = true;
  });
  writer.join();
  for (std::thread& t : readers) t.join();

  for (const std::string& p : problems.Get()) ADD_FAILURE() << p;
  int intermediate = 0;
  for (int r = 0; r < kReaders; ++r) {
    EXPECT_GT(stats[r].passes, 0) << "reader " << r;
    intermediate += stats[r].intermediate;
  }
  EXPECT_GT(intermediate, 0) << "no reader ran while the writer was ingesting";
  ASSIGN_OR_FAIL(auto store, RecordsStore::Open(path));
  ASSIGN_OR_FAIL(int64_t count, store->CountRecords());
  EXPECT_EQ(count, kRecords);
  ASSIGN_OR_FAIL(StoredRecord best, store->BestRecord(key, device.name));
  EXPECT_EQ(best.result.mean_s, best_mean);
  std::cout << "reader passes (mid-ingest) while ingesting " << kRecords << " records:";
  for (const ReaderStats& st : stats) {
    std::cout << " " << st.passes << " (" << st.intermediate << ")";
  }
  std::cout << "\n";
}

TEST(StoreConcurrencyTest, ManyThreadsShareOneStore) {
  TempDir dir;
  ASSIGN_OR_FAIL(auto store, RecordsStore::Open(dir.File("shared.db")));
  const ComputeDag dag = Matmul(16, 16, 16);
  const DeviceProfile device = TestDevice();
  ASSERT_STATUS_OK(store->PutWorkload(dag));
  ASSERT_STATUS_OK(store->PutDevice(device));
  constexpr int kThreads = 4;
  constexpr int kBatches = 25;
  constexpr int kBatch = 4;
  Problems problems;
  std::vector<std::vector<int64_t>> ids(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int b = 0; b < kBatches; ++b) {
        std::vector<StoredRecord> batch;
        for (int i = 0; i < kBatch; ++i) {
          batch.push_back(OkRecord(dag.WorkloadKey(), device.name, 1e-3 * (1 + t), b * kBatch + i));
        }
        absl::StatusOr<std::vector<int64_t>> got = store->AddRecords(batch);
        if (!got.ok()) {
          problems.Add(got.status().ToString());
          return;
        }
        ids[t].insert(ids[t].end(), got->begin(), got->end());
        if (!store->BestRecord(dag.WorkloadKey(), device.name).ok() ||
            !store->ListRecords(dag.WorkloadKey(), device.name, 10).ok()) {
          problems.Add("a read failed");
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (const std::string& p : problems.Get()) ADD_FAILURE() << p;
  std::vector<int64_t> all;
  for (int t = 0; t < kThreads; ++t) {
    // A batch's ids are consecutive: one transaction per call.
    for (size_t i = 0; i + 1 < ids[t].size(); ++i) {
      if ((i + 1) % kBatch != 0) {
        EXPECT_EQ(ids[t][i + 1], ids[t][i] + 1);
      }
    }
    all.insert(all.end(), ids[t].begin(), ids[t].end());
  }
  std::sort(all.begin(), all.end());
  EXPECT_EQ(std::adjacent_find(all.begin(), all.end()), all.end()) << "an id was given twice";
  EXPECT_EQ(all.size(), static_cast<size_t>(kThreads * kBatches * kBatch));
  ASSIGN_OR_FAIL(int64_t count, store->CountRecords());
  EXPECT_EQ(count, kThreads * kBatches * kBatch);
}

// Two writers with their own connections: each transaction waits for the
// other's (busy timeout) instead of failing.
TEST(StoreConcurrencyTest, TwoWritersQueue) {
  TempDir dir;
  const std::string path = dir.File("records.db");
  const ComputeDag dag = Matmul(16, 16, 16);
  const DeviceProfile device = TestDevice();
  {
    ASSIGN_OR_FAIL(auto setup, RecordsStore::Open(path));
    ASSERT_STATUS_OK(setup->PutWorkload(dag));
    ASSERT_STATUS_OK(setup->PutDevice(device));
  }
  constexpr int kBatches = 20;
  constexpr int kBatch = 25;
  Problems problems;
  auto write = [&](int writer) {
    absl::StatusOr<std::unique_ptr<RecordsStore>> store = RecordsStore::Open(path);
    if (!store.ok()) return problems.Add(store.status().ToString());
    for (int b = 0; b < kBatches; ++b) {
      std::vector<StoredRecord> batch;
      for (int i = 0; i < kBatch; ++i) {
        batch.push_back(OkRecord(dag.WorkloadKey(), device.name, 1e-3 * (1 + writer), i));
      }
      if (absl::Status st = (*store)->AddRecords(batch).status(); !st.ok()) {
        return problems.Add(st.ToString());
      }
    }
  };
  std::thread a(write, 0), b(write, 1);
  a.join();
  b.join();
  for (const std::string& p : problems.Get()) ADD_FAILURE() << p;
  ASSIGN_OR_FAIL(auto store, RecordsStore::Open(path));
  ASSIGN_OR_FAIL(int64_t count, store->CountRecords());
  EXPECT_EQ(count, 2 * kBatches * kBatch);
}

// While another connection holds the write lock with uncommitted rows,
// stores open and read at once (seeing the last commit), and a writer waits
// for the lock instead of failing.
TEST(StoreConcurrencyTest, AnOpenWriteTransactionBlocksNoReader) {
  TempDir dir;
  const std::string path = dir.File("records.db");
  const ComputeDag dag = Matmul(8, 8, 8);
  const DeviceProfile device = TestDevice();
  {
    ASSIGN_OR_FAIL(auto setup, RecordsStore::Open(path));
    ASSERT_STATUS_OK(setup->PutWorkload(dag));
    ASSERT_STATUS_OK(setup->PutDevice(device));
    ASSERT_TRUE(setup->AddRecords({OkRecord(dag.WorkloadKey(), device.name, 1e-3)}).ok());
  }
  ASSIGN_OR_FAIL(auto raw, store_internal::SqliteDb::Open(path, 1000));
  ASSERT_STATUS_OK(raw->Exec("BEGIN IMMEDIATE"));
  ASSERT_STATUS_OK(raw->Exec("INSERT INTO records SELECT NULL, workload_key, device_key, steps, "
                             "error, phase, message, repeat_costs_json, mean_s / 2, build_s, "
                             "run_s, binary_bytes, measured_by, measured_at_unix_ms + 1, job_id, "
                             "task_index, host_busy_cores FROM records"));
  const auto start = std::chrono::steady_clock::now();
  ASSIGN_OR_FAIL(auto reader, RecordsStore::Open(path));
  ASSIGN_OR_FAIL(int64_t count, reader->CountRecords());
  EXPECT_EQ(count, 1);  // the uncommitted row is invisible
  ASSIGN_OR_FAIL(StoredRecord best, reader->BestRecord(dag.WorkloadKey(), device.name));
  EXPECT_EQ(best.result.mean_s, 1e-3);
  const double read_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(read_s, 1.0) << "readers waited for the writer";

  // A writer queues behind the open transaction and gets in once it commits.
  std::thread committer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    EXPECT_TRUE(raw->Exec("COMMIT").ok());
  });
  const auto write_start = std::chrono::steady_clock::now();
  absl::StatusOr<std::vector<int64_t>> ids =
      reader->AddRecords({OkRecord(dag.WorkloadKey(), device.name, 5e-4, 9)});
  const double waited_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - write_start).count();
  committer.join();
  ASSERT_TRUE(ids.ok()) << ids.status();
  EXPECT_GT(waited_s, 0.1) << "the writer did not wait for the lock";
  ASSIGN_OR_FAIL(count, reader->CountRecords());
  EXPECT_EQ(count, 3);
  ASSIGN_OR_FAIL(best, reader->BestRecord(dag.WorkloadKey(), device.name));
  EXPECT_EQ(best.result.mean_s, 5e-4);
}

// Another process (a forked child, with its own connection) writes while
// this one reads the same file.
TEST(StoreConcurrencyTest, AnotherProcessWritesWhileThisOneReads) {
  TempDir dir;
  const std::string path = dir.File("records.db");
  const ComputeDag dag = Matmul(32, 32, 32);
  const DeviceProfile device = TestDevice();
  {
    ASSIGN_OR_FAIL(auto setup, RecordsStore::Open(path));
    ASSERT_STATUS_OK(setup->PutWorkload(dag));
    ASSERT_STATUS_OK(setup->PutDevice(device));
  }
  constexpr int kRecords = 400;
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // Child: no gtest assertions; the exit code says how it went.
    absl::StatusOr<std::unique_ptr<RecordsStore>> store = RecordsStore::Open(path);
    if (!store.ok()) _exit(2);
    for (int start = 0; start < kRecords; start += 20) {
      std::vector<StoredRecord> batch;
      for (int i = start; i < start + 20; ++i) {
        batch.push_back(OkRecord(dag.WorkloadKey(), device.name, 1e-3 + i * 1e-6, i));
      }
      if (!(*store)->AddRecords(batch).ok()) _exit(3);
    }
    _exit(0);
  }
  ASSIGN_OR_FAIL(auto reader, RecordsStore::Open(path));
  int64_t last = 0;
  int status = 0;
  while (waitpid(child, &status, WNOHANG) == 0) {
    ASSIGN_OR_FAIL(int64_t count, reader->CountRecords());
    EXPECT_GE(count, last);
    EXPECT_EQ(count % 20, 0) << "a batch was seen half-written";
    last = count;
    std::this_thread::yield();
  }
  ASSERT_TRUE(WIFEXITED(status)) << "child status " << status;
  EXPECT_EQ(WEXITSTATUS(status), 0);
  ASSIGN_OR_FAIL(int64_t count, reader->CountRecords());
  EXPECT_EQ(count, kRecords);
}

}  // namespace
}  // namespace pruner
