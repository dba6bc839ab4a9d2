#include "client/job_format.h"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace pruner {
namespace {

constexpr size_t kTableNameWidth = 44;
constexpr size_t kLineNameWidth = 40;

// Names and messages come from the server; keep one table cell one line.
std::string Clip(const std::string& text, size_t width) {
  std::string line = text.substr(0, text.find('\n'));
  if (line.size() <= width) return line;
  return line.substr(0, width - 3) + "...";
}

// "1 task", "3 tasks".
std::string Count(int64_t n, const char* noun) {
  return absl::StrCat(n, " ", noun, n == 1 ? "" : "s");
}

const v1::TaskInfo* FindTask(const v1::JobInfo& job, int index) {
  for (const v1::TaskInfo& task : job.tasks()) {
    if (task.index() == index) return &task;
  }
  return nullptr;
}

int TasksWithoutResult(const v1::JobInfo& job) {
  return static_cast<int>(std::count_if(job.tasks().begin(), job.tasks().end(),
                                         [](const v1::TaskInfo& t) { return t.best_cost_s() <= 0; }));
}

// "1.2345 ms (2 tasks without result)" or "-" before any result.
std::string EstimatedTotal(const v1::JobInfo& job) {
  std::string text = FormatLatency(job.estimated_latency_s());
  const int missing = TasksWithoutResult(job);
  if (missing > 0 && job.estimated_latency_s() > 0) {
    absl::StrAppend(&text, " (", Count(missing, "task"), " without result)");
  }
  return text;
}

std::string Trials(const v1::JobInfo& job) {
  return absl::StrCat(job.trials(), "/", job.trial_budget());
}

std::string QuotedName(const std::string& name) {
  return name.empty() ? std::string() : absl::StrCat(" \"", Clip(name, kTableNameWidth), "\"");
}

}  // namespace

std::string FormatDuration(double s) {
  if (!std::isfinite(s) || s < 0) return "-";
  // Durations past a year are an estimate gone wrong, not a time to print.
  if (s >= 365.0 * 24 * 3600) return ">1y";
  const int64_t whole = static_cast<int64_t>(s);
  if (whole < 60) return absl::StrCat(whole, "s");
  if (whole < 3600) return absl::StrFormat("%dm%02ds", whole / 60, whole % 60);
  return absl::StrFormat("%dh%02dm", whole / 3600, whole / 60 % 60);
}

std::string FormatLatency(double cost_s) {
  if (!(cost_s > 0) || !std::isfinite(cost_s)) return "-";
  return absl::StrFormat("%.4f ms", cost_s * 1e3);
}

double TaskGflops(const v1::TaskInfo& task) {
  if (!(task.best_cost_s() > 0)) return 0;
  return task.flops() / task.best_cost_s() / 1e9;
}

std::string FormatErrorCounts(const google::protobuf::Map<std::string, int64_t>& counts) {
  std::vector<std::pair<std::string, int64_t>> sorted(counts.begin(), counts.end());
  std::sort(sorted.begin(), sorted.end());
  std::vector<std::string> parts;
  for (const auto& [name, count] : sorted) {
    if (count > 0) parts.push_back(absl::StrCat(name, " ", count));
  }
  return absl::StrJoin(parts, ", ");
}

std::string FormatSubmitted(const v1::JobInfo& job) {
  return absl::StrFormat("submitted job %d (%s, target %s)\n", job.id(),
                         Count(job.tasks_size(), "task"), job.target());
}

std::string FormatJobSummary(const v1::JobInfo& job) {
  std::string text = absl::StrFormat("job %d%s: %s on %s, strategy %s\n", job.id(),
                                     QuotedName(job.name()), job.status(), job.target(),
                                     job.strategy().empty() ? "-" : job.strategy());
  absl::StrAppendFormat(&text, "  trials %s  est. total %s  elapsed %s  ETA %s\n", Trials(job),
                        EstimatedTotal(job), FormatDuration(job.elapsed_s()),
                        FormatDuration(job.eta_s()));
  if (job.queued_candidates() > 0 || job.leased_candidates() > 0) {
    absl::StrAppendFormat(&text, "  candidates: %d queued, %d leased\n", job.queued_candidates(),
                          job.leased_candidates());
  }
  const std::string errors = FormatErrorCounts(job.error_counts());
  if (!errors.empty()) absl::StrAppend(&text, "  errors: ", errors, "\n");
  if (!job.message().empty()) absl::StrAppend(&text, "  ", job.message(), "\n");
  return text;
}

std::string FormatTaskTable(const v1::JobInfo& job) {
  std::string text = absl::StrFormat(
      "|  ID | %-44s | weight | trials | latency (ms) | GFLOP/s | errors |\n", "task");
  absl::StrAppend(&text, "|-----|", std::string(kTableNameWidth + 2, '-'),
                  "|--------|--------|--------------|---------|--------|\n");
  for (const v1::TaskInfo& t : job.tasks()) {
    const std::string name = Clip(t.name(), kTableNameWidth);
    if (t.best_cost_s() > 0) {
      absl::StrAppendFormat(&text, "| %3d | %-44s | %6g | %6d | %12.4f | %7.1f | %6d |\n",
                            t.index(), name, t.weight(), t.trials(), t.best_cost_s() * 1e3,
                            TaskGflops(t), t.errors());
    } else {
      absl::StrAppendFormat(&text, "| %3d | %-44s | %6g | %6d | %12s | %7s | %6d |\n", t.index(),
                            name, t.weight(), t.trials(), "-", "-", t.errors());
    }
  }
  return text;
}

std::string FormatProgressEvent(const v1::ProgressEvent& event) {
  const v1::JobInfo& job = event.job();
  if (event.round() <= 0) {
    return absl::StrFormat("job %d%s: %s on %s, %s, trials %s, est. total %s, elapsed %s, "
                           "ETA %s\n",
                           job.id(), QuotedName(job.name()), job.status(), job.target(),
                           Count(job.tasks_size(), "task"), Trials(job), EstimatedTotal(job),
                           FormatDuration(job.elapsed_s()), FormatDuration(job.eta_s()));
  }
  const v1::TaskInfo* task = FindTask(job, event.task());
  std::string text = absl::StrFormat(
      "round %d  task %d %-40s  +%d (%d ok)  trials %s  best %s  est. total %s  elapsed %s  ETA %s",
      event.round(), event.task(), task ? Clip(task->name(), kLineNameWidth) : "?",
      event.measured(), event.ok(), Trials(job), FormatLatency(task ? task->best_cost_s() : 0),
      EstimatedTotal(job), FormatDuration(job.elapsed_s()), FormatDuration(job.eta_s()));
  const std::string errors = FormatErrorCounts(job.error_counts());
  if (!errors.empty()) absl::StrAppend(&text, "  errors: ", errors);
  absl::StrAppend(&text, "\n");
  if (event.has_time()) {
    const v1::RoundTime& t = event.time();
    absl::StrAppendFormat(&text,
                          "    time: search %.2fs  train %.2fs  measure %.2fs (build %.2fs, run "
                          "%.2fs)  db %.3fs",
                          t.search_s(), t.train_s(), t.measure_s(), t.build_s(), t.run_s(),
                          t.db_s());
    if (t.queue_wait_s() > 0) absl::StrAppendFormat(&text, "  queued %.2fs", t.queue_wait_s());
    absl::StrAppend(&text, "\n");
  }
  if (!event.errors().empty()) {
    absl::StrAppendFormat(&text, "    %d failed, first: %s\n", event.errors_size(),
                          Clip(event.errors(0), 160));
  }
  if (!event.verification().empty()) {
    absl::StrAppend(&text, "    ", Clip(event.verification(), 200), "\n");
  }
  return text;
}

std::string FormatJobList(const v1::ListJobsReply& reply, absl::TimeZone zone) {
  std::string text = absl::StrFormat("%5s  %-24s %-9s %-28s %-12s %15s %14s  %s\n", "ID", "NAME",
                                     "STATUS", "TARGET", "STRATEGY", "TRIALS", "EST. LATENCY",
                                     "CREATED");
  for (const v1::JobInfo& job : reply.jobs()) {
    const std::string created =
        job.created_unix_ms() > 0
            ? absl::FormatTime("%Y-%m-%d %H:%M", absl::FromUnixMillis(job.created_unix_ms()), zone)
            : "-";
    absl::StrAppendFormat(&text, "%5d  %-24s %-9s %-28s %-12s %15s %14s  %s\n", job.id(),
                          Clip(job.name().empty() ? "-" : job.name(), 24), job.status(),
                          job.target(), job.strategy().empty() ? "-" : job.strategy(),
                          Trials(job), FormatLatency(job.estimated_latency_s()), created);
  }
  if (reply.jobs().empty()) absl::StrAppend(&text, "(no jobs)\n");
  return text;
}

std::string FormatWorkerTable(const v1::ListWorkersReply& reply, int64_t now_unix_ms) {
  std::string text =
      absl::StrFormat("%-16s %-28s %-32s %5s %6s %8s %7s  %s\n", "NAME", "DEVICE", "DESCRIPTION",
                      "SLOTS", "LEASES", "MEASURED", "REFUSED", "HEARTBEAT");
  for (const v1::WorkerInfo& w : reply.workers()) {
    std::string heartbeat = "never";
    if (w.last_heartbeat_unix_ms() > 0) {
      // Clocks of two machines disagree a little; a heartbeat "from the
      // future" is a fresh one.
      const double age_s = std::max<int64_t>(0, now_unix_ms - w.last_heartbeat_unix_ms()) / 1e3;
      heartbeat = absl::StrCat(FormatDuration(age_s), " ago");
    }
    absl::StrAppendFormat(&text, "%-16s %-28s %-32s %5d %6d %8d %7d  %s\n", Clip(w.name(), 16),
                          w.device().key(), Clip(w.device().description(), 32), w.slots(),
                          w.active_leases(), w.measured(), w.implausible_reports(), heartbeat);
    if (w.quarantined()) {
      absl::StrAppendFormat(&text, "  QUARANTINED (no leases): %s\n", w.quarantine_reason());
    }
  }
  if (reply.workers().empty()) absl::StrAppend(&text, "(no workers registered)\n");
  return text;
}

std::string FormatBestRecords(const v1::BestRecordsReply& reply) {
  if (reply.records().empty()) {
    return absl::StrFormat("job %d on %s: no task has a valid result yet\n", reply.job_id(),
                           reply.target());
  }
  std::string text = absl::StrFormat("job %d on %s: %s with a result, est. total %s\n",
                                     reply.job_id(), reply.target(),
                                     Count(reply.records_size(), "task"),
                                     FormatLatency(reply.estimated_latency_s()));
  for (const v1::BestRecord& r : reply.records()) {
    const v1::MeasureResult& result = r.result();
    absl::StrAppendFormat(&text, "task %d  %s  weight %g\n", r.task_index(), r.task_name(),
                          r.weight());
    absl::StrAppendFormat(&text, "    %s  %s GFLOP/s  %s", FormatLatency(result.mean_s()),
                          r.gflops() > 0 ? absl::StrFormat("%.1f", r.gflops()) : "-",
                          Count(result.repeat_costs_s_size(), "repeat"));
    if (!result.measured_by().empty()) absl::StrAppend(&text, "  measured by ", result.measured_by());
    if (r.verdict() == "verified") {
      absl::StrAppend(&text, "; verified by ", r.verified_by(),
                      r.verified_by() == result.measured_by() ? " (the same worker)" : "", " at ",
                      FormatLatency(r.check_mean_s()));
    } else if (r.verdict() == "disputed") {
      absl::StrAppend(&text, "; disputed: ", r.verified_by(), " measured ",
                      FormatLatency(r.check_mean_s()), ", counted at the slower");
    } else if (!r.verdict().empty()) {
      absl::StrAppend(&text, "; ", r.verdict());
    }
    absl::StrAppend(&text, "\n    ", r.sentence(), "\n");
  }
  return text;
}

std::string FormatPurge(const std::string& worker_name, const v1::PurgeWorkerRecordsReply& reply) {
  std::string text = absl::StrCat(reply.dry_run() ? "would remove" : "removed", " ",
                                   reply.records(), " records of worker '", worker_name, "' (",
                                   reply.ok_records(), " ok) over ", reply.workloads(),
                                   " workload/device pairs; ", reply.bests(), " of their bests ",
                                   reply.dry_run() ? "would change" : "changed", "\n");
  if (reply.dry_run() && reply.records() > 0) {
    absl::StrAppend(&text, "dry run: nothing removed (run again without --dry-run)\n");
  }
  return text;
}

}  // namespace pruner
