// RecordsStore's private state, shared by the .cc files that implement its
// methods (one per table group). Every method locks `mu` for the whole call:
// one SQLite connection must not be used from two threads at once, and a
// call's statements must not interleave with another thread's transaction.
#ifndef PRUNER_COMMON_STORE_RECORDS_STORE_IMPL_H_
#define PRUNER_COMMON_STORE_RECORDS_STORE_IMPL_H_

#include <memory>
#include <mutex>
#include <string>

#include "common/store/records_store.h"
#include "common/store/sqlite_db.h"

namespace pruner {

struct RecordsStore::Impl {
  std::string path;
  int schema_version = 0;
  std::mutex mu;
  std::unique_ptr<store_internal::SqliteDb> db;  // guarded by mu
};

}  // namespace pruner

#endif  // PRUNER_COMMON_STORE_RECORDS_STORE_IMPL_H_
