// Where `pruner status`, `jobs`, `best` and `export` read a job from: the
// tuning server (the default), or with --db FILE a records database read in
// process through the same views the server answers with
// (server/job_info.h, server/job_export.h). OpenJobSource is the one place
// that choice is made; every command then renders what it got with
// job_format.h, so both look alike to the letter.
#ifndef PRUNER_CLIENT_JOB_SOURCE_H_
#define PRUNER_CLIENT_JOB_SOURCE_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "client/service_connection.h"
#include "pruner/v1/tuning_service.pb.h"

namespace pruner {

class JobSource {
 public:
  virtual ~JobSource() = default;
  virtual absl::StatusOr<v1::JobInfo> GetJob(int64_t job_id) = 0;
  virtual absl::StatusOr<v1::ListJobsReply> ListJobs() = 0;
  virtual absl::StatusOr<v1::BestRecordsReply> BestRecords(int64_t job_id) = 0;
  virtual absl::StatusOr<v1::ExportJobReply> ExportJob(int64_t job_id) = 0;
};

// The server at flags.server. A failed call's status carries the text
// DescribeRpcError gives (the server's message and a hint), without its
// "error: " prefix.
std::unique_ptr<JobSource> MakeServiceJobSource(const ServiceFlags& flags);

// Builds the local source (job_source_local.cc, which links the engine);
// null in binaries that only speak to the server.
using LocalJobSourceOpener =
    absl::StatusOr<std::unique_ptr<JobSource>> (*)(const std::string& db_path);

// db_path empty: the server; otherwise `open_local(db_path)`.
absl::StatusOr<std::unique_ptr<JobSource>> OpenJobSource(const std::string& db_path,
                                                         const ServiceFlags& flags,
                                                         LocalJobSourceOpener open_local);

}  // namespace pruner

#endif  // PRUNER_CLIENT_JOB_SOURCE_H_
