// A thin RAII layer over the SQLite C API for the records store: one
// connection, prepared statements that finalize themselves, transactions that
// roll back unless committed, and SQLite result codes turned into
// absl::Status with the database path and the failing SQL in the message.
//
// Not thread-safe by itself: RecordsStore serializes every use of a
// connection with its own mutex.
#ifndef PRUNER_COMMON_STORE_SQLITE_DB_H_
#define PRUNER_COMMON_STORE_SQLITE_DB_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

struct sqlite3;
struct sqlite3_stmt;

namespace pruner::store_internal {

class SqliteDb;

// The status code a SQLite result code maps to: busy/locked -> Unavailable,
// not a database -> FailedPrecondition, corrupt -> DataLoss, cannot open ->
// NotFound, read-only/permission -> PermissionDenied, full -> ResourceExhausted,
// constraint -> FailedPrecondition, anything else -> Internal.
absl::StatusCode SqliteStatusCode(int rc);

// One prepared statement. Bind* errors are remembered and reported by the
// next Step()/Run(), so that binding code stays a flat list.
class Statement {
 public:
  Statement(sqlite3_stmt* stmt, const SqliteDb* db, std::string sql);
  Statement(Statement&& other) noexcept;
  Statement& operator=(Statement&&) = delete;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  ~Statement();

  // Parameters are 1-based, as in SQLite.
  Statement& BindInt(int index, int64_t value);
  Statement& BindDouble(int index, double value);
  Statement& BindText(int index, std::string_view text);
  Statement& BindBlob(int index, std::string_view bytes);
  Statement& BindNull(int index);

  // True when a row is available, false when the statement is done.
  absl::StatusOr<bool> Step();
  // Steps to completion, ignoring rows (INSERT/UPDATE/DDL).
  absl::Status Run();
  // Rewinds so that the statement can run again with new bindings.
  void Reset();

  // Columns of the current row, 0-based.
  bool IsNull(int col) const;
  int64_t Int(int col) const;
  double Double(int col) const;
  std::string Text(int col) const;
  std::string Blob(int col) const;

 private:
  sqlite3_stmt* stmt_;
  const SqliteDb* db_;
  std::string sql_;
  int bind_rc_;  // first failed bind, or SQLITE_OK
};

class SqliteDb {
 public:
  // Opens (creating if needed) a read-write connection. ":memory:" gives a
  // private in-memory database. Nothing is read from the file yet: SQLite
  // opens lazily, so "not a database" shows up on the first statement.
  static absl::StatusOr<std::unique_ptr<SqliteDb>> Open(const std::string& path,
                                                        int busy_timeout_ms);
  ~SqliteDb();
  SqliteDb(const SqliteDb&) = delete;
  SqliteDb& operator=(const SqliteDb&) = delete;

  const std::string& path() const { return path_; }

  // Runs one or more statements that return no rows we need.
  absl::Status Exec(const std::string& sql);
  absl::StatusOr<Statement> Prepare(const std::string& sql) const;

  int64_t Changes() const;
  int64_t LastInsertRowId() const;

  // "records store '<path>': <sqlite message> (while running: <sql>)" with
  // the code from SqliteStatusCode(rc).
  absl::Status Error(int rc, std::string_view sql) const;

 private:
  SqliteDb(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  sqlite3* db_;
  std::string path_;
};

// BEGIN ... COMMIT; rolls back on destruction unless Commit() succeeded.
class Transaction {
 public:
  // immediate: take the write lock now (BEGIN IMMEDIATE). Every writing
  // transaction must, because in WAL mode a deferred transaction that reads
  // and then tries to write can fail with SQLITE_BUSY at once, without the
  // busy timeout ever being applied.
  static absl::StatusOr<Transaction> Begin(SqliteDb* db, bool immediate);
  Transaction(Transaction&& other) noexcept : db_(other.db_) { other.db_ = nullptr; }
  Transaction& operator=(Transaction&&) = delete;
  ~Transaction();

  absl::Status Commit();

 private:
  explicit Transaction(SqliteDb* db) : db_(db) {}
  SqliteDb* db_;  // null once committed or moved from
};

}  // namespace pruner::store_internal

#endif  // PRUNER_COMMON_STORE_SQLITE_DB_H_
