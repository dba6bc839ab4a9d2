// The records store's schema and how files move from one version to the
// next.
//
// The version lives in the `meta` table (key 'schema_version'); every
// migration applied is also listed in `schema_migrations`. A migration is
// SQL that turns version N-1 into version N. Opening a file applies, in one
// write transaction, every migration newer than its version, so old files
// upgrade in place; a file newer than this build is refused rather than
// guessed at. To change the schema, append a migration; never edit one that
// has shipped. Migrations run inside a transaction with foreign_keys on,
// which cannot be switched off there: a migration that rebuilds a table
// should start with PRAGMA defer_foreign_keys = ON.
#ifndef PRUNER_COMMON_STORE_SCHEMA_H_
#define PRUNER_COMMON_STORE_SCHEMA_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/store/sqlite_db.h"

namespace pruner::store_internal {

struct Migration {
  int version;              // the version this migration produces: 1, 2, ...
  std::string description;  // recorded in schema_migrations
  std::string sql;          // one or more statements
};

// The migrations of this build, versions 1, 2, ... in order.
const std::vector<Migration>& SchemaMigrations();
// The version a file has after Open: SchemaMigrations().back().version.
int LatestSchemaVersion();

// The file's version: 0 for an empty database. FailedPrecondition when the
// file holds tables but no Pruner `meta` table (some other SQLite database),
// or an unreadable version.
absl::StatusOr<int> ReadSchemaVersion(SqliteDb& db);

// Brings the database up to migrations.back().version and returns the
// version it ended at. FailedPrecondition naming both versions when the file
// is newer than `migrations` know. `migrations` must be numbered 1, 2, ...
// (tests pass their own list to exercise upgrades).
absl::StatusOr<int> MigrateSchema(SqliteDb& db, const std::vector<Migration>& migrations);

}  // namespace pruner::store_internal

#endif  // PRUNER_COMMON_STORE_SCHEMA_H_
