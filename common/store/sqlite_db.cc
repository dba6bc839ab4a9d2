#include "common/store/sqlite_db.h"

#include <sqlite3.h>

#include <utility>

#include "absl/strings/str_cat.h"
#include "common/base/absl_compat.h"
#include "common/base/status_macros.h"

namespace pruner::store_internal {

absl::StatusCode SqliteStatusCode(int rc) {
  switch (rc & 0xff) {  // primary code; extended codes add detail in the high bits
    case SQLITE_BUSY:
    case SQLITE_LOCKED: return absl::StatusCode::kUnavailable;
    case SQLITE_NOTADB: return absl::StatusCode::kFailedPrecondition;
    case SQLITE_CORRUPT: return absl::StatusCode::kDataLoss;
    case SQLITE_CANTOPEN: return absl::StatusCode::kNotFound;
    case SQLITE_READONLY:
    case SQLITE_PERM:
    case SQLITE_AUTH: return absl::StatusCode::kPermissionDenied;
    case SQLITE_FULL: return absl::StatusCode::kResourceExhausted;
    case SQLITE_CONSTRAINT: return absl::StatusCode::kFailedPrecondition;
    default: return absl::StatusCode::kInternal;
  }
}

// ---- Statement --------------------------------------------------------------

Statement::Statement(sqlite3_stmt* stmt, const SqliteDb* db, std::string sql)
    : stmt_(stmt), db_(db), sql_(std::move(sql)), bind_rc_(SQLITE_OK) {}

Statement::Statement(Statement&& other) noexcept
    : stmt_(other.stmt_), db_(other.db_), sql_(std::move(other.sql_)), bind_rc_(other.bind_rc_) {
  other.stmt_ = nullptr;
}

Statement::~Statement() { sqlite3_finalize(stmt_); }  // no-op on null

namespace {
// SQLITE_TRANSIENT makes SQLite copy the bytes, so callers may bind
// temporaries; records are small and checkpoints are bound once.
int Remember(int* first, int rc) {
  if (*first == SQLITE_OK && rc != SQLITE_OK) *first = rc;
  return rc;
}
}  // namespace

Statement& Statement::BindInt(int index, int64_t value) {
  Remember(&bind_rc_, sqlite3_bind_int64(stmt_, index, value));
  return *this;
}

Statement& Statement::BindDouble(int index, double value) {
  Remember(&bind_rc_, sqlite3_bind_double(stmt_, index, value));
  return *this;
}

Statement& Statement::BindText(int index, std::string_view text) {
  // A non-null pointer even for "" so that SQLite stores '' rather than NULL.
  Remember(&bind_rc_, sqlite3_bind_text64(stmt_, index, text.empty() ? "" : text.data(),
                                          text.size(), SQLITE_TRANSIENT, SQLITE_UTF8));
  return *this;
}

Statement& Statement::BindBlob(int index, std::string_view bytes) {
  Remember(&bind_rc_, sqlite3_bind_blob64(stmt_, index, bytes.empty() ? "" : bytes.data(),
                                          bytes.size(), SQLITE_TRANSIENT));
  return *this;
}

Statement& Statement::BindNull(int index) {
  Remember(&bind_rc_, sqlite3_bind_null(stmt_, index));
  return *this;
}

absl::StatusOr<bool> Statement::Step() {
  if (bind_rc_ != SQLITE_OK) return db_->Error(bind_rc_, sql_);
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return db_->Error(rc, sql_);
}

absl::Status Statement::Run() {
  while (true) {
    PRUNER_ASSIGN_OR_RETURN(bool row, Step());
    if (!row) return absl::OkStatus();
  }
}

void Statement::Reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
  bind_rc_ = SQLITE_OK;
}

bool Statement::IsNull(int col) const { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }
int64_t Statement::Int(int col) const { return sqlite3_column_int64(stmt_, col); }
double Statement::Double(int col) const { return sqlite3_column_double(stmt_, col); }

std::string Statement::Text(int col) const {
  const unsigned char* text = sqlite3_column_text(stmt_, col);
  const int n = sqlite3_column_bytes(stmt_, col);  // after column_text, as SQLite requires
  return text == nullptr ? std::string() : std::string(reinterpret_cast<const char*>(text), n);
}

std::string Statement::Blob(int col) const {
  const void* data = sqlite3_column_blob(stmt_, col);
  const int n = sqlite3_column_bytes(stmt_, col);
  return data == nullptr ? std::string() : std::string(static_cast<const char*>(data), n);
}

// ---- SqliteDb ----------------------------------------------------------------

absl::StatusOr<std::unique_ptr<SqliteDb>> SqliteDb::Open(const std::string& path,
                                                         int busy_timeout_ms) {
  sqlite3* db = nullptr;
  // NOMUTEX: the caller serializes use of the connection; SQLite's own
  // per-connection mutex would only add a second lock.
  const int rc = sqlite3_open_v2(path.c_str(), &db,
                                 SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                                 nullptr);
  if (rc != SQLITE_OK) {
    std::string message = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close(db);
    return absl::Status(SqliteStatusCode(rc),
                        absl::StrCat("cannot open records store '", path, "': ", message));
  }
  sqlite3_extended_result_codes(db, 1);
  sqlite3_busy_timeout(db, busy_timeout_ms);
  return std::unique_ptr<SqliteDb>(new SqliteDb(db, path));
}

SqliteDb::~SqliteDb() {
  // close_v2 defers the close until every statement is finalized, so a
  // leaked statement cannot make this fail.
  sqlite3_close_v2(db_);
}

absl::Status SqliteDb::Exec(const std::string& sql) {
  const int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK) return Error(rc, sql);
  return absl::OkStatus();
}

absl::StatusOr<Statement> SqliteDb::Prepare(const std::string& sql) const {
  sqlite3_stmt* stmt = nullptr;
  const int rc = sqlite3_prepare_v2(db_, sql.c_str(), static_cast<int>(sql.size() + 1), &stmt,
                                    nullptr);
  if (rc != SQLITE_OK) {
    sqlite3_finalize(stmt);
    return Error(rc, sql);
  }
  return Statement(stmt, this, sql);
}

int64_t SqliteDb::Changes() const { return sqlite3_changes64(db_); }
int64_t SqliteDb::LastInsertRowId() const { return sqlite3_last_insert_rowid(db_); }

absl::Status SqliteDb::Error(int rc, std::string_view sql) const {
  // sqlite3_errmsg describes the connection's last error, which is `rc`'s
  // when the caller reports it right away; errstr is the generic fallback.
  const char* detail =
      sqlite3_extended_errcode(db_) == rc ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
  constexpr size_t kMaxSql = 120;  // enough to recognize the statement
  std::string_view shown = sql.substr(0, kMaxSql);
  return absl::Status(SqliteStatusCode(rc),
                      absl::StrCat("records store '", path_, "': ", detail, " (while running: ",
                                   ToAbsl(shown), sql.size() > kMaxSql ? "..." : "", ")"));
}

// ---- Transaction -------------------------------------------------------------

absl::StatusOr<Transaction> Transaction::Begin(SqliteDb* db, bool immediate) {
  absl::Status st = db->Exec(immediate ? "BEGIN IMMEDIATE" : "BEGIN");
  if (!st.ok()) return st;
  return Transaction(db);
}

Transaction::~Transaction() {
  if (db_ != nullptr) db_->Exec("ROLLBACK").IgnoreError();  // nothing better to do here
}

absl::Status Transaction::Commit() {
  if (db_ == nullptr) return absl::FailedPreconditionError("transaction already finished");
  absl::Status st = db_->Exec("COMMIT");
  // On failure the transaction is still open; the destructor rolls it back.
  if (st.ok()) db_ = nullptr;
  return st;
}

}  // namespace pruner::store_internal
