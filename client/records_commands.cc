#include "client/records_commands.h"

#include <cstdio>
#include <iostream>
#include <memory>

#include "client/command_exit.h"
#include "absl/status/status.h"
#include "client/job_format.h"
#include "common/base/status_macros.h"
#include "common/lower/lower.h"
#include "common/schedule/state.h"
#include "common/schedule/step.h"
#include "common/store/records_store.h"

namespace pruner {
namespace {

absl::StatusOr<std::string> LoweredProgram(const RecordsStore& store, const StoredRecord& best,
                                           ComputeDag dag) {
  auto shared = std::make_shared<const ComputeDag>(std::move(dag));
  PRUNER_ASSIGN_OR_RETURN(auto steps, ParseSteps(best.steps));
  PRUNER_ASSIGN_OR_RETURN(State state, State::Replay(shared, steps));
  PRUNER_ASSIGN_OR_RETURN(DeviceProfile profile, store.GetDevice(best.device_key));
  PRUNER_ASSIGN_OR_RETURN(Program program, Lower(state, profile));
  return program.ToString();
}

}  // namespace

int RunRecordsShow(const std::string& db, const std::string& workload_key, int64_t limit) {
  auto store = RecordsStore::Open(db);
  if (!store.ok()) return FailCommand(store.status());
  auto records = (*store)->ListRecords(workload_key, "", limit);
  if (!records.ok()) return FailCommand(records.status());
  for (const StoredRecord& r : *records) {
    if (r.result.ok()) {
      // A second measurement says which record it checks; a checked record
      // its verdict.
      std::string mark = r.verdict == Verdict::kUnverified ? "" : VerdictName(r.verdict);
      if (r.verifies_record_id != 0) mark = "check of " + std::to_string(r.verifies_record_id);
      std::printf("%6lld  %-28s  %10.4f ms  %-16s %s\n", static_cast<long long>(r.id),
                  r.device_key.c_str(), r.result.mean_s * 1e3, mark.c_str(), r.steps.c_str());
    } else {
      std::printf("%6lld  %-28s  %s\n", static_cast<long long>(r.id), r.device_key.c_str(),
                  r.result.Describe().substr(0, 200).c_str());
    }
  }
  std::printf("%zu records\n", records->size());
  return 0;
}

int RunRecordsBest(const std::string& db, const std::string& workload_key,
                   const std::string& device_key, bool show_program) {
  auto store = RecordsStore::Open(db);
  if (!store.ok()) return FailCommand(store.status());
  auto best = (*store)->BestRecord(workload_key, device_key);
  if (!best.ok()) {
    std::printf("%s: no valid record on %s\n", workload_key.c_str(), device_key.c_str());
    return 1;
  }
  auto dag = (*store)->GetWorkload(workload_key);
  if (!dag.ok()) return FailCommand(dag.status());
  const double gflops = dag->FlopCount() / best->result.mean_s / 1e9;
  std::printf("workload %s  device %s  record %lld\n  %.4f ms  %.1f GFLOP/s  (%zu repeats)\n  %s\n",
              workload_key.c_str(), device_key.c_str(), static_cast<long long>(best->id),
              best->result.mean_s * 1e3, gflops, best->result.repeat_costs_s.size(),
              best->steps.c_str());
  // What the best rests on: a second measurement that agreed, or none yet.
  std::string trust = VerdictName(best->verdict);
  if (best->check_record_id != 0) {
    if (auto check = (*store)->GetRecord(best->check_record_id); check.ok()) {
      char line[256];
      std::snprintf(line, sizeof(line), "%s: record %lld by %s%s at %.4f ms",
                    VerdictName(best->verdict), static_cast<long long>(check->id),
                    check->measured_by.c_str(),
                    check->measured_by == best->measured_by ? " (the same worker)" : "",
                    check->result.mean_s * 1e3);
      trust = line;
    }
  }
  std::printf("  measured by %s; %s\n", best->measured_by.c_str(), trust.c_str());
  if (show_program) {
    auto program = LoweredProgram(**store, *best, *std::move(dag));
    if (!program.ok()) return FailCommand(program.status());
    std::printf("%s\n", program->c_str());
  }
  return 0;
}

int RunRecordsExport(const std::string& db, const std::string& path,
                     const std::string& workload_key) {
  auto store = RecordsStore::Open(db);
  if (!store.ok()) return FailCommand(store.status());
  if (absl::Status s = (*store)->ExportJsonLines(path, workload_key); !s.ok()) return FailCommand(s);
  std::printf("exported to %s\n", path.c_str());
  return 0;
}

int RunRecordsImport(const std::string& db, const std::string& path) {
  auto store = RecordsStore::Open(db);
  if (!store.ok()) return FailCommand(store.status());
  auto added = (*store)->ImportJsonLines(path);
  if (!added.ok()) return FailCommand(added.status());
  std::printf("imported %lld records\n", static_cast<long long>(*added));
  return 0;
}

int RunRecordsPurge(const std::string& db, const std::string& worker_name, bool dry_run) {
  auto store = RecordsStore::Open(db);
  if (!store.ok()) return FailCommand(store.status());
  auto summary = (*store)->PurgeWorkerRecords(worker_name, dry_run);
  if (!summary.ok()) return FailCommand(summary.status());
  v1::PurgeWorkerRecordsReply reply;
  reply.set_records(summary->records);
  reply.set_ok_records(summary->ok_records);
  reply.set_workloads(summary->workloads);
  reply.set_bests(summary->bests);
  reply.set_dry_run(dry_run);
  std::cout << FormatPurge(worker_name, reply);
  return 0;
}

}  // namespace pruner
