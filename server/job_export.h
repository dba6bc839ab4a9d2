// Export of a job's tuned kernels: for each task with a valid record, the
// best schedule replayed, lowered and printed as source (C++ for CPU
// targets, CUDA C for GPU targets), plus a JSON manifest that says which
// file implements which workload, its entry point, the schedule sentence and
// the measured time, so a deployment can dispatch on workload key. For x86
// CPU targets each kernel also comes as the LLVM backend's object for the
// profile's ISA level, with the runtime's source and the command that links
// them into one shared library (manifest "build").
#ifndef PRUNER_SERVER_JOB_EXPORT_H_
#define PRUNER_SERVER_JOB_EXPORT_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "common/store/records_store.h"
#include "pruner/v1/tuning_service.pb.h"

namespace pruner {

// NotFound for an unknown job; FailedPrecondition when no task has a valid
// record yet.
absl::StatusOr<v1::ExportJobReply> ExportJob(const RecordsStore& store, int64_t job_id);

}  // namespace pruner

#endif  // PRUNER_SERVER_JOB_EXPORT_H_
