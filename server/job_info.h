// What a client sees of a job (v1::JobInfo, v1::BestRecordsReply), built
// from the records database alone, so a finished job, a queued one and one
// that a previous server process ran all look the same. A running job's
// live numbers are laid over with ApplyRoundReport().
#ifndef PRUNER_SERVER_JOB_INFO_H_
#define PRUNER_SERVER_JOB_INFO_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "common/store/records_store.h"
#include "common/tune/tuning_job.h"
#include "pruner/v1/tuning_service.pb.h"

namespace pruner {

// NotFound for an unknown job.
absl::StatusOr<v1::JobInfo> JobInfoFromStore(const RecordsStore& store, int64_t job_id);

// Every job of the database as `pruner jobs` lists it: JobInfoFromStore of
// each, without the per-task rows.
absl::StatusOr<v1::ListJobsReply> ListJobsFromStore(const RecordsStore& store);

// Live per-task numbers and the job's totals from a round report; the status
// and the spec are left alone.
void ApplyRoundReport(const RoundReport& report, v1::JobInfo* info);

// One round as a progress event, as `pruner watch` and `pruner tune` print
// it: the report is laid over *info (ApplyRoundReport, and its errors
// counted by class), and the event carries *info after that, the round's
// numbers, its first five errors and where its time went.
v1::ProgressEvent ProgressEventFromRound(const RoundReport& report, v1::JobInfo* info);

// The best valid record of each task of the job (among the job's own
// records), with its workload so that a client can replay it.
absl::StatusOr<v1::BestRecordsReply> BestRecordsOfJob(const RecordsStore& store, int64_t job_id);

}  // namespace pruner

#endif  // PRUNER_SERVER_JOB_INFO_H_
