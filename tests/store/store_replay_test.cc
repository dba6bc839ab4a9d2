// A record is enough to rebuild its program: sample real schedules, store
// the workload, device and records, close the database, and rebuild each
// program from what a fresh store reads back (canonical DAG text, device
// profile JSON, step sentence). The lowered programs must print the same.
#include <memory>
#include <string>
#include <vector>

#include "common/device/device_profile.h"
#include "common/ir/ops.h"
#include "common/lower/lower.h"
#include "common/sketch/annotate.h"
#include "common/sketch/sketch.h"
#include "common/schedule/state.h"
#include "common/schedule/step.h"
#include "common/store/records_store.h"
#include "gtest/gtest.h"
#include "tests/store/store_test_util.h"

namespace pruner {
namespace {

using store_test::OkRecord;
using store_test::TempDir;

class StoreReplayTest : public ::testing::TestWithParam<const char*> {};

TEST_P(StoreReplayTest, ProgramsRebuiltFromTheDatabaseAloneMatch) {
  ASSIGN_OR_FAIL(DeviceProfile device, GetDeviceProfile(GetParam()));
  ASSIGN_OR_FAIL(ComputeDag built, BuildOperator("matmul:M=64,K=64,N=64"));
  auto dag = std::make_shared<const ComputeDag>(std::move(built));
  ASSIGN_OR_FAIL(std::vector<Sketch> sketches, GenerateSketches(dag, device));
  ASSERT_FALSE(sketches.empty());

  // A few sampled schedules, each from a sketch in turn, with their programs.
  constexpr int kSchedules = 4;
  Rng rng(20240611);
  std::vector<std::string> sentences, programs;
  for (int attempt = 0; attempt < 200 && static_cast<int>(sentences.size()) < kSchedules;
       ++attempt) {
    absl::StatusOr<State> state = SampleSchedule(sketches[attempt % sketches.size()], device, rng);
    if (!state.ok()) continue;  // an invalid draw; the sampler's callers draw again
    absl::StatusOr<Program> program = Lower(*state, device);
    ASSERT_TRUE(program.ok()) << program.status() << "\n" << state->ToSentence();
    sentences.push_back(state->ToSentence());
    programs.push_back(program->ToString());
  }
  ASSERT_EQ(static_cast<int>(sentences.size()), kSchedules);

  TempDir dir;
  const std::string path = dir.File("records.db");
  const std::string key = dag->WorkloadKey();
  std::vector<int64_t> ids;
  {
    ASSIGN_OR_FAIL(auto store, RecordsStore::Open(path));
    ASSERT_STATUS_OK(store->PutWorkload(*dag, "matmul 64x64x64"));
    ASSERT_STATUS_OK(store->PutDevice(device));
    std::vector<StoredRecord> records;
    for (int i = 0; i < kSchedules; ++i) {
      // The last schedule is the fastest, so BestRecord must return it.
      StoredRecord r = OkRecord(key, device.name, 1e-3 / (i + 1), i);
      r.steps = sentences[i];
      records.push_back(r);
    }
    ASSIGN_OR_FAIL(ids, store->AddRecords(records));
  }

  // From here on, nothing but the database file.
  ASSIGN_OR_FAIL(auto store, RecordsStore::Open(path));
  ASSIGN_OR_FAIL(ComputeDag stored_dag, store->GetWorkload(key));
  auto replay_dag = std::make_shared<const ComputeDag>(std::move(stored_dag));
  ASSIGN_OR_FAIL(DeviceProfile stored_device, store->GetDevice(device.name));
  ASSIGN_OR_FAIL(std::vector<StoredRecord> stored, store->ListRecords(key, device.name));
  ASSERT_EQ(stored.size(), sentences.size());
  for (size_t i = 0; i < stored.size(); ++i) {
    SCOPED_TRACE(stored[i].steps);
    ASSIGN_OR_FAIL(std::vector<Step> steps, ParseSteps(stored[i].steps));
    ASSIGN_OR_FAIL(State state, State::Replay(replay_dag, steps));
    ASSIGN_OR_FAIL(Program program, Lower(state, stored_device));
    EXPECT_EQ(program.ToString(), programs[i]);
  }
  ASSIGN_OR_FAIL(StoredRecord best, store->BestRecord(key, device.name));
  EXPECT_EQ(best.id, ids.back());
  EXPECT_EQ(best.steps, sentences.back());
}

INSTANTIATE_TEST_SUITE_P(Devices, StoreReplayTest, ::testing::Values("a100", "cpu"),
                         [](const auto& info) { return std::string(info.param); });

}  // namespace
}  // namespace pruner
