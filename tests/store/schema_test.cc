// The migration mechanism: a file made by an older build upgrades in place
// on open, keeps its data and records each migration; a failing migration
// leaves the file as it was. The version after this build's latest is a
// test-only migration ("next" below).
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/store/records_store.h"
#include "common/store/schema.h"
#include "common/store/sqlite_db.h"
#include "gtest/gtest.h"
#include "tests/store/store_test_util.h"

namespace pruner {
namespace {

using store_internal::Migration;
using store_internal::MigrateSchema;
using store_internal::ReadSchemaVersion;
using store_internal::SchemaMigrations;
using store_internal::SqliteDb;
using store_test::Matmul;
using store_test::OkRecord;
using store_test::TempDir;
using store_test::TestDevice;

const int kLatest = store_internal::LatestSchemaVersion();
const int kNext = kLatest + 1;

// This build's migrations plus the next one, as a later build might ship it.
std::vector<Migration> WithNextVersion(const std::string& sql) {
  std::vector<Migration> migrations = SchemaMigrations();
  migrations.push_back({kNext, "test: record notes and a workers table", sql});
  return migrations;
}

const char kNextVersion[] =
    "ALTER TABLE records ADD COLUMN note TEXT NOT NULL DEFAULT '';"
    "CREATE TABLE workers (name TEXT PRIMARY KEY, last_seen_unix_ms INTEGER NOT NULL);";

int64_t QueryInt(SqliteDb& db, const std::string& sql) {
  absl::StatusOr<store_internal::Statement> stmt = db.Prepare(sql);
  EXPECT_TRUE(stmt.ok()) << stmt.status();
  if (!stmt.ok()) return -1;
  absl::StatusOr<bool> row = stmt->Step();
  EXPECT_TRUE(row.ok() && *row) << sql;
  return row.ok() && *row ? stmt->Int(0) : -1;
}

// A file at this build's latest version with one workload, device and record.
void MakeLatestFile(const std::string& path) {
  absl::StatusOr<std::unique_ptr<RecordsStore>> store = RecordsStore::Open(path);
  ASSERT_TRUE(store.ok()) << store.status();
  const ComputeDag dag = Matmul(8, 8, 8);
  ASSERT_TRUE((*store)->PutWorkload(dag).ok());
  ASSERT_TRUE((*store)->PutDevice(TestDevice()).ok());
  ASSERT_TRUE((*store)->AddRecords({OkRecord(dag.WorkloadKey(), TestDevice().name, 1e-3)}).ok());
}

TEST(StoreSchemaTest, MigrationsAreNumberedFromOne) {
  const std::vector<Migration>& migrations = SchemaMigrations();
  ASSERT_FALSE(migrations.empty());
  for (size_t i = 0; i < migrations.size(); ++i) {
    EXPECT_EQ(migrations[i].version, static_cast<int>(i + 1));
    EXPECT_FALSE(migrations[i].description.empty());
  }
  EXPECT_EQ(store_internal::LatestSchemaVersion(), migrations.back().version);
}

TEST(StoreSchemaTest, AnOlderFileUpgradesInPlaceAndKeepsItsData) {
  TempDir dir;
  const std::string path = dir.File("records.db");
  MakeLatestFile(path);
  ASSIGN_OR_FAIL(std::unique_ptr<SqliteDb> db, SqliteDb::Open(path, 1000));
  ASSIGN_OR_FAIL(int before, ReadSchemaVersion(*db));
  EXPECT_EQ(before, kLatest);
  ASSIGN_OR_FAIL(int after, MigrateSchema(*db, WithNextVersion(kNextVersion)));
  EXPECT_EQ(after, kNext);
  ASSIGN_OR_FAIL(int read_back, ReadSchemaVersion(*db));
  EXPECT_EQ(read_back, kNext);
  EXPECT_EQ(QueryInt(*db, "SELECT count(*) FROM schema_migrations"), kNext);
  EXPECT_EQ(QueryInt(*db, "SELECT max(version) FROM schema_migrations"), kNext);
  // The old record is still there and has the new column's default.
  EXPECT_EQ(QueryInt(*db, "SELECT count(*) FROM records WHERE note = ''"), 1);
  EXPECT_EQ(QueryInt(*db, "SELECT count(*) FROM workers"), 0);
  // Migrating again is a no-op.
  ASSIGN_OR_FAIL(after, MigrateSchema(*db, WithNextVersion(kNextVersion)));
  EXPECT_EQ(after, kNext);
  EXPECT_EQ(QueryInt(*db, "SELECT count(*) FROM schema_migrations"), kNext);
  db.reset();
  // This build does not know the next version and must not touch the file.
  absl::StatusOr<std::unique_ptr<RecordsStore>> store = RecordsStore::Open(path);
  EXPECT_EQ(store.status().code(), absl::StatusCode::kFailedPrecondition) << store.status();
}

TEST(StoreSchemaTest, AFreshFileGetsEveryMigrationInOrder) {
  TempDir dir;
  ASSIGN_OR_FAIL(std::unique_ptr<SqliteDb> db, SqliteDb::Open(dir.File("fresh.db"), 1000));
  ASSIGN_OR_FAIL(int before, ReadSchemaVersion(*db));
  EXPECT_EQ(before, 0);
  ASSIGN_OR_FAIL(int after, MigrateSchema(*db, WithNextVersion(kNextVersion)));
  EXPECT_EQ(after, kNext);
  EXPECT_EQ(QueryInt(*db, "SELECT count(*) FROM schema_migrations"), kNext);
  EXPECT_EQ(QueryInt(*db, "SELECT count(*) FROM workers"), 0);
}

// Version 1 files (made before verified bests) open, gain the verifications
// table, and their records read back unverified and eligible as bests.
TEST(StoreSchemaTest, AVersion1FileGainsVerifications) {
  TempDir dir;
  const std::string path = dir.File("v1.db");
  {
    ASSIGN_OR_FAIL(std::unique_ptr<SqliteDb> db, SqliteDb::Open(path, 1000));
    ASSIGN_OR_FAIL(int version, MigrateSchema(*db, {SchemaMigrations().front()}));
    ASSERT_EQ(version, 1);
    EXPECT_EQ(QueryInt(*db, "SELECT count(*) FROM sqlite_master WHERE name = 'verifications'"), 0);
  }
  const ComputeDag dag = Matmul(8, 8, 8);
  ASSIGN_OR_FAIL(auto store, RecordsStore::Open(path));
  EXPECT_EQ(store->schema_version(), kLatest);
  ASSERT_TRUE(store->PutWorkload(dag).ok());
  ASSERT_TRUE(store->PutDevice(TestDevice()).ok());
  ASSIGN_OR_FAIL(auto ids, store->AddRecords({OkRecord(dag.WorkloadKey(), TestDevice().name, 1e-3)}));
  ASSIGN_OR_FAIL(StoredRecord best, store->BestRecord(dag.WorkloadKey(), TestDevice().name));
  EXPECT_EQ(best.id, ids[0]);
  EXPECT_EQ(best.verdict, Verdict::kUnverified);
}

TEST(StoreSchemaTest, RecordsOfAVersion2FileReadAsNotSampledForHostLoad) {
  TempDir dir;
  const std::string path = dir.File("v2.db");
  const ComputeDag dag = Matmul(8, 8, 8);
  {
    ASSIGN_OR_FAIL(std::unique_ptr<SqliteDb> db, SqliteDb::Open(path, 1000));
    const std::vector<Migration> v2(SchemaMigrations().begin(), SchemaMigrations().begin() + 2);
    ASSIGN_OR_FAIL(int version, MigrateSchema(*db, v2));
    ASSERT_EQ(version, 2);
    ASSERT_STATUS_OK(db->Exec(
        "INSERT INTO workloads VALUES ('" + dag.WorkloadKey() + "', '" + dag.CanonicalText() +
        "', '', 1, '', 0);"
        "INSERT INTO devices VALUES ('d', 'cpu', '{}', 0);"
        "INSERT INTO records(workload_key, device_key, steps, error, phase, message, "
        "repeat_costs_json, mean_s, build_s, run_s, binary_bytes, measured_by, "
        "measured_at_unix_ms, job_id, task_index) VALUES ('" + dag.WorkloadKey() +
        "', 'd', '', 'none', '', '', '[0.001]', 0.001, 0, 0, 0, '', 1, NULL, -1);"));
  }
  ASSIGN_OR_FAIL(auto store, RecordsStore::Open(path));
  ASSIGN_OR_FAIL(std::vector<StoredRecord> records, store->ListRecords(dag.WorkloadKey()));
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].result.host_busy_cores, -1);
}

TEST(StoreSchemaTest, AFailingMigrationLeavesTheFileAsItWas) {
  TempDir dir;
  const std::string path = dir.File("records.db");
  MakeLatestFile(path);
  ASSIGN_OR_FAIL(std::unique_ptr<SqliteDb> db, SqliteDb::Open(path, 1000));
  // The first statement succeeds, the second fails: both must be undone.
  absl::StatusOr<int> result = MigrateSchema(
      *db, WithNextVersion("CREATE TABLE workers (name TEXT); INSERT INTO no_such_table VALUES (1);"));
  EXPECT_FALSE(result.ok());
  EXPECT_NE(result.status().message().find(absl::StrCat("migration to version ", kNext)),
            std::string::npos)
      << result.status();
  ASSIGN_OR_FAIL(int version, ReadSchemaVersion(*db));
  EXPECT_EQ(version, kLatest);
  EXPECT_EQ(QueryInt(*db, "SELECT count(*) FROM sqlite_master WHERE name = 'workers'"), 0);
  db.reset();
  ASSIGN_OR_FAIL(auto store, RecordsStore::Open(path));
  ASSIGN_OR_FAIL(int64_t count, store->CountRecords());
  EXPECT_EQ(count, 1);
}

TEST(StoreSchemaTest, MisnumberedMigrationsAreABug) {
  ASSIGN_OR_FAIL(std::unique_ptr<SqliteDb> db, SqliteDb::Open(":memory:", 1000));
  std::vector<Migration> migrations = SchemaMigrations();
  migrations.push_back({kNext + 1, "skips one", "SELECT 1"});
  absl::StatusOr<int> result = MigrateSchema(*db, migrations);
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInternal);
  EXPECT_NE(result.status().message().find(absl::StrCat("expected ", kNext)), std::string::npos)
      << result.status();
}

}  // namespace
}  // namespace pruner
