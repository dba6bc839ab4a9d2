#include "client/service_commands.h"

#include <chrono>
#include <condition_variable>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>
#include <vector>

#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "client/export_writer.h"
#include "client/job_format.h"
#include "google/protobuf/util/json_util.h"

namespace pruner {
namespace {

using Stub = v1::TuningService::Stub;

int Fail(const absl::Status& status, std::ostream& err) {
  err << "error: " << status.message() << "\n";
  return kExitRefused;
}

// One JSON object on one line: scripts read `--json` output line by line
// (`watch --json` prints one per event). Zero fields are printed too, so a
// reader never has to guess a default.
int PrintJson(const google::protobuf::Message& message, CommandStreams io) {
  google::protobuf::util::JsonPrintOptions options;
  options.always_print_primitive_fields = true;
  std::string json;
  auto status = google::protobuf::util::MessageToJsonString(message, &json, options);
  if (!status.ok()) {
    io.err << "error: cannot print the reply as JSON: " << status.ToString() << "\n";
    return kExitRefused;
  }
  io.out << json << "\n" << std::flush;
  return kExitOk;
}

template <typename Request, typename Reply>
using UnaryCall = TuningServiceCall<Request, Reply>;

// One call (CallServer); a failure is printed with its hint and
// becomes the exit code.
template <typename Stub, typename Request, typename Reply>
int CallService(const ServiceFlags& flags, ServiceCall<Stub, Request, Reply> call,
                const Request& request, Reply* reply, std::ostream& err) {
  absl::StatusOr<Reply> answered = CallServer(flags, call, request);
  if (!answered.ok()) return Fail(answered.status(), err);
  *reply = *std::move(answered);
  return kExitOk;
}

// Ctrl-C reaches us as a flag (a signal handler can do little else); this
// thread turns the flag into a cancel of the call, which wakes the Read that
// is blocked waiting for the next round.
class CancelOnStop {
 public:
  CancelOnStop(const std::atomic<bool>* stop, grpc::ClientContext* context) {
    if (stop == nullptr) return;
    thread_ = std::thread([this, stop, context] {
      std::unique_lock<std::mutex> lock(mu_);
      while (!done_) {
        if (stop->load()) {
          context->TryCancel();
          return;
        }
        cv_.wait_for(lock, std::chrono::milliseconds(50));
      }
    });
  }
  ~CancelOnStop() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      done_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
  std::thread thread_;
};

// GetJob and CancelJob: a job id in, the job out, printed as its summary
// (and task table).
template <typename Request>
int RunJobCall(const ServiceFlags& service, UnaryCall<Request, v1::JobInfo> call, int64_t job_id,
               bool with_table, CommandStreams io) {
  Request request;
  request.set_job_id(job_id);
  v1::JobInfo job;
  if (int code = CallService(service, call, request, &job, io.err); code != kExitOk) return code;
  if (service.json) return PrintJson(job, io);
  io.out << FormatJobSummary(job);
  if (with_table) io.out << FormatTaskTable(job);
  return kExitOk;
}

absl::StatusOr<std::string> ReadSpecFile(const std::string& path) {
  if (path.empty()) return std::string();
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read job spec file '", path, "'"));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

int RunSubmit(const ServiceFlags& service, const SubmitFlags& flags, CommandStreams io,
              const std::atomic<bool>* stop) {
  auto file = ReadSpecFile(flags.spec_file);
  if (!file.ok()) return Fail(file.status(), io.err);
  auto spec = BuildJobSpec(flags, *file);
  if (!spec.ok()) return Fail(spec.status(), io.err);
  v1::SubmitJobRequest request;
  *request.mutable_spec() = *std::move(spec);
  v1::JobInfo job;
  if (int code = CallService(service, &Stub::SubmitJob, request, &job, io.err); code != kExitOk) {
    return code;
  }
  if (service.json) {
    if (int code = PrintJson(job, io); code != kExitOk) return code;
  } else {
    io.out << FormatSubmitted(job);
    if (!job.message().empty()) io.out << "  " << job.message() << "\n";
    io.out << std::flush;
  }
  if (!flags.watch) return kExitOk;
  return RunWatch(service, job.id(), io, stop);
}

int RunWatch(const ServiceFlags& service, int64_t job_id, CommandStreams io,
             const std::atomic<bool>* stop) {
  auto connection = Connect(service);
  if (!connection.ok()) return Fail(connection.status(), io.err);
  v1::WatchJobRequest request;
  request.set_job_id(job_id);
  grpc::ClientContext context;
  // No deadline: a job runs for hours and the stream is idle between rounds.
  connection->Prepare(&context, /*deadline=*/false);

  bool ended = false;
  v1::JobInfo last;
  grpc::Status status;
  {
    CancelOnStop cancel_on_stop(stop, &context);
    std::unique_ptr<grpc::ClientReader<v1::ProgressEvent>> reader =
        connection->stub->WatchJob(&context, request);
    v1::ProgressEvent event;
    // Read to the end even after the final event: Finish expects it.
    while (reader->Read(&event)) {
      if (service.json) {
        PrintJson(event, io);  // a failure is printed; the job's outcome still decides
      } else {
        io.out << FormatProgressEvent(event);
        if (event.round() > 0 && event.round() % 10 == 0 && !event.final()) {
          io.out << FormatTaskTable(event.job());
        }
        io.out << std::flush;
      }
      if (event.final()) {
        ended = true;
        last = event.job();
      }
    }
    status = reader->Finish();
  }
  if (stop != nullptr && stop->load() && !ended) {
    io.err << absl::StrFormat(
        "stopped watching job %d; it keeps running on the server (pruner watch %d follows it "
        "again, pruner cancel %d stops it)\n",
        job_id, job_id, job_id);
    return kExitInterrupted;
  }
  if (ended) {
    if (!service.json) io.out << FormatTaskTable(last) << FormatJobSummary(last) << std::flush;
    return last.status() == "done" ? kExitOk : kExitJobFailed;
  }
  if (!status.ok()) {
    io.err << DescribeRpcError(status, connection->address);
    return kExitRefused;
  }
  io.err << absl::StrFormat("error: the server closed the stream before job %d ended\n", job_id);
  return kExitRefused;
}

int RunCancelJob(const ServiceFlags& service, int64_t job_id, CommandStreams io) {
  return RunJobCall(service, &Stub::CancelJob, job_id, /*with_table=*/false, io);
}

int RunListWorkers(const ServiceFlags& service, CommandStreams io) {
  v1::ListWorkersReply reply;
  if (int code =
          CallService(service, &Stub::ListWorkers, v1::ListWorkersRequest(), &reply, io.err);
      code != kExitOk) {
    return code;
  }
  if (service.json) return PrintJson(reply, io);
  io.out << FormatWorkerTable(reply, absl::ToUnixMillis(absl::Now()));
  return kExitOk;
}

int RunPurgeWorker(const ServiceFlags& service, const std::string& worker_name, bool dry_run,
                   CommandStreams io) {
  v1::PurgeWorkerRecordsRequest request;
  request.set_worker_name(worker_name);
  request.set_dry_run(dry_run);
  v1::PurgeWorkerRecordsReply reply;
  if (int code = CallService(service, &v1::AdminService::Stub::PurgeWorkerRecords, request, &reply,
                             io.err);
      code != kExitOk) {
    return code;
  }
  if (service.json) return PrintJson(reply, io);
  io.out << FormatPurge(worker_name, reply);
  return kExitOk;
}

int RunReleaseWorker(const ServiceFlags& service, const std::string& worker_name,
                     CommandStreams io) {
  v1::ReleaseWorkerRequest request;
  request.set_worker_name(worker_name);
  v1::ReleaseWorkerReply reply;
  if (int code =
          CallService(service, &v1::AdminService::Stub::ReleaseWorker, request, &reply, io.err);
      code != kExitOk) {
    return code;
  }
  if (service.json) return PrintJson(reply, io);
  io.out << (reply.released() ? "released worker '" : "no quarantined worker named '")
         << worker_name << "'\n";
  return reply.released() ? kExitOk : 1;
}

int RunJobStatus(JobSource& source, int64_t job_id, bool json, CommandStreams io) {
  absl::StatusOr<v1::JobInfo> job = source.GetJob(job_id);
  if (!job.ok()) return Fail(job.status(), io.err);
  if (json) return PrintJson(*job, io);
  io.out << FormatJobSummary(*job) << FormatTaskTable(*job);
  return kExitOk;
}

int RunListJobs(JobSource& source, bool json, CommandStreams io) {
  absl::StatusOr<v1::ListJobsReply> reply = source.ListJobs();
  if (!reply.ok()) return Fail(reply.status(), io.err);
  if (json) return PrintJson(*reply, io);
  io.out << FormatJobList(*reply, absl::LocalTimeZone());
  return kExitOk;
}

int RunBestRecords(JobSource& source, int64_t job_id, bool json, CommandStreams io) {
  absl::StatusOr<v1::BestRecordsReply> reply = source.BestRecords(job_id);
  if (!reply.ok()) return Fail(reply.status(), io.err);
  if (json) return PrintJson(*reply, io);
  io.out << FormatBestRecords(*reply);
  return kExitOk;
}

int RunExportJob(JobSource& source, int64_t job_id, const std::string& out_dir, bool json,
                 CommandStreams io) {
  if (out_dir.empty()) return Fail(absl::InvalidArgumentError("give --out DIR"), io.err);
  absl::StatusOr<v1::ExportJobReply> reply = source.ExportJob(job_id);
  if (!reply.ok()) return Fail(reply.status(), io.err);
  auto written = WriteExport(*reply, out_dir);
  if (!written.ok()) return Fail(written.status(), io.err);
  if (json) return PrintJson(*reply, io);
  for (const std::string& path : *written) io.out << "wrote " << path << "\n";
  io.out << absl::StrFormat("exported job %d: %d files and the manifest under %s\n", job_id,
                            reply->files_size(), out_dir);
  return kExitOk;
}

int RunJobStatus(const ServiceFlags& service, int64_t job_id, CommandStreams io) {
  return RunJobStatus(*MakeServiceJobSource(service), job_id, service.json, io);
}

int RunListJobs(const ServiceFlags& service, CommandStreams io) {
  return RunListJobs(*MakeServiceJobSource(service), service.json, io);
}

int RunBestRecords(const ServiceFlags& service, int64_t job_id, CommandStreams io) {
  return RunBestRecords(*MakeServiceJobSource(service), job_id, service.json, io);
}

int RunExportJob(const ServiceFlags& service, int64_t job_id, const std::string& out_dir,
                 CommandStreams io) {
  return RunExportJob(*MakeServiceJobSource(service), job_id, out_dir, service.json, io);
}

}  // namespace pruner
