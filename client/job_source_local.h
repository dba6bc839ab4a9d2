// The local side of job_source.h: a records database opened in process.
#ifndef PRUNER_CLIENT_JOB_SOURCE_LOCAL_H_
#define PRUNER_CLIENT_JOB_SOURCE_LOCAL_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "client/job_source.h"

namespace pruner {

// NotFound when there is no database at `db_path` (a typo must not create
// an empty one).
absl::StatusOr<std::unique_ptr<JobSource>> OpenLocalJobSource(const std::string& db_path);

}  // namespace pruner

#endif  // PRUNER_CLIENT_JOB_SOURCE_LOCAL_H_
