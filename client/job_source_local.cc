#include "client/job_source_local.h"

#include <filesystem>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/store/records_store.h"
#include "server/job_export.h"
#include "server/job_info.h"

namespace pruner {
namespace {

class LocalJobSource : public JobSource {
 public:
  explicit LocalJobSource(std::unique_ptr<RecordsStore> store) : store_(std::move(store)) {}

  absl::StatusOr<v1::JobInfo> GetJob(int64_t job_id) override {
    return JobInfoFromStore(*store_, job_id);
  }
  absl::StatusOr<v1::ListJobsReply> ListJobs() override { return ListJobsFromStore(*store_); }
  absl::StatusOr<v1::BestRecordsReply> BestRecords(int64_t job_id) override {
    return BestRecordsOfJob(*store_, job_id);
  }
  absl::StatusOr<v1::ExportJobReply> ExportJob(int64_t job_id) override {
    return pruner::ExportJob(*store_, job_id);
  }

 private:
  std::unique_ptr<RecordsStore> store_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<JobSource>> OpenLocalJobSource(const std::string& db_path) {
  std::error_code ec;
  if (db_path != ":memory:" && !std::filesystem::exists(db_path, ec)) {
    return absl::NotFoundError(absl::StrCat("no records database at ", db_path));
  }
  PRUNER_ASSIGN_OR_RETURN(auto store, RecordsStore::Open(db_path));
  return std::unique_ptr<JobSource>(std::make_unique<LocalJobSource>(std::move(store)));
}

}  // namespace pruner
