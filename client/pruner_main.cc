// The `pruner` command-line tool: the operator library, device profiles,
// sketches, a check that random schedules lower and compute the right answer,
// in-process tuning against a records database (tune, best, records, jobs,
// export, import), and the tuning service's client (submit, watch, status,
// cancel, workers, and jobs/best/export without --db; see service_cli.h).
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "client/schedule_check.h"
#include "client/pretrain_command.h"
#include "client/service_cli.h"
#include "client/tune_command.h"
#include "common/device/device_profile.h"
#include "common/device/device_profile_json.h"
#include "common/ir/ops.h"
#include "common/sketch/sketch.h"

namespace pruner {
namespace {

int Fail(const absl::Status& status) {
  std::cerr << "error: " << status.message() << "\n";
  return 2;
}

int ListOperators() {
  for (const std::string& op : KnownOperators()) std::cout << op << "\n";
  std::cout << "\n" << OperatorUsage() << "\n";
  return 0;
}

int ListDevices(bool json) {
  for (const std::string& name : KnownDeviceProfiles()) {
    auto profile = GetDeviceProfile(name);
    if (!profile.ok()) return Fail(profile.status());
    if (json) {
      std::cout << DeviceProfileToJsonString(*profile, -1) << "\n";
    } else {
      std::printf("%-12s %-4s %9.0f GFLOP/s %7.0f GB/s  %s\n", profile->name.c_str(),
                  profile->kind == DeviceKind::kGpu ? "gpu" : "cpu", profile->peak_gflops,
                  profile->mem_bandwidth_gbps, profile->description.c_str());
    }
  }
  return 0;
}

int PrintSketches(const std::string& op, const std::string& device_name) {
  auto device = GetDeviceProfile(device_name);
  if (!device.ok()) return Fail(device.status());
  auto dag = BuildOperator(op);
  if (!dag.ok()) return Fail(dag.status());
  auto shared = std::make_shared<const ComputeDag>(*std::move(dag));
  std::cout << "workload " << shared->WorkloadKey() << "\n" << shared->ToString() << "\n";
  auto sketches = GenerateSketches(shared, *device);
  if (!sketches.ok()) return Fail(sketches.status());
  for (size_t i = 0; i < sketches->size(); ++i) {
    std::cout << "=== sketch " << i << " ===\n" << (*sketches)[i].ToString() << "\n";
  }
  return 0;
}

void PrintReport(const std::string& op, const std::string& device, const ScheduleCheckReport& r) {
  std::printf("%-58s %-11s %3d sketches  %4d sampled  %4d lowered  %4d match reference\n",
              op.c_str(), device.c_str(), r.num_sketches, r.sampled, r.lowered, r.matched);
  for (const auto& [message, count] : r.failures) {
    std::printf("    %4d x %s\n", count, message.c_str());
  }
}

int Check(const std::string& op, const std::string& device_name, const ScheduleCheckOptions& options) {
  auto device = GetDeviceProfile(device_name);
  if (!device.ok()) return Fail(device.status());
  auto report = CheckRandomSchedules(op, *device, options);
  if (!report.ok()) return Fail(report.status());
  std::printf("workload key %s, %.3f GFLOP\n", report->workload_key.c_str(), report->gflop);
  PrintReport(op, device->name, *report);
  if (!report->example.empty()) std::cout << "\nexample schedule\n" << report->example << "\n";
  return report->matched == report->sampled && report->sampled > 0 ? 0 : 1;
}

// A tour of the engine core on real operators, for the local CPU and for an
// A100 profile (GPU schedules run in the program interpreter).
int Demo(int n) {
  const std::vector<std::string> ops = {
      "dense:M=64,K=256,N=128,bias=1,act=relu",
      "conv2d:N=1,C=16,H=14,W=14,K=32,R=3,S=3,stride=1,pad=1",
      "depthwise_conv2d:N=1,C=16,H=15,W=15,R=3,S=3,stride=2,pad=1",
      "batch_matmul:B=2,M=33,K=40,N=24",
      "softmax:M=16,N=100",
      "layer_norm:M=16,N=96",
      "max_pool2d:N=1,C=8,H=16,W=16,kernel=3,stride=2,pad=1",
  };
  ScheduleCheckOptions options;
  options.num_schedules = n;
  int bad = 0;
  for (const std::string device_name : {"cpu", "a100"}) {
    auto device = GetDeviceProfile(device_name);
    if (!device.ok()) return Fail(device.status());
    std::printf("\n== %s: %s ==\n", device->name.c_str(), device->description.c_str());
    for (const std::string& op : ops) {
      auto report = CheckRandomSchedules(op, *device, options);
      if (!report.ok()) return Fail(report.status());
      PrintReport(op, device->name, *report);
      if (report->matched != report->sampled) ++bad;
    }
  }
  ScheduleCheckOptions one;
  one.num_schedules = 1;
  one.show_example = true;
  auto device = GetDeviceProfile("a100");
  auto example = CheckRandomSchedules("matmul:M=64,K=64,N=64", *device, one);
  if (example.ok() && !example->example.empty()) {
    std::cout << "\n== one GPU schedule of matmul 64x64x64, lowered ==\n" << example->example;
  }
  return bad == 0 ? 0 : 1;
}

}  // namespace
}  // namespace pruner

int main(int argc, char** argv) {
  CLI::App app{"pruner: tensor-program tuning engine and client of the tuning service"};
  app.require_subcommand(1);
  app.footer(
      "Service commands (submit, watch, status, cancel, workers; jobs and best without --db; "
      "export with --out) talk to the server at --server, $PRUNER_SERVER or 127.0.0.1:7070, "
      "with the token from --token-file, $PRUNER_TOKEN_FILE or $PRUNER_TOKEN.");
  pruner::ServiceCli service;

  auto* ops = app.add_subcommand("ops", "list the operator library and its spec syntax");
  bool json = false;
  auto* devices = app.add_subcommand("devices", "list the built-in device profiles");
  devices->add_flag("--json", json, "print profiles as JSON lines");

  std::string op, device = "cpu";
  auto* sketches = app.add_subcommand("sketches", "print the sketches of an operator");
  sketches->add_option("--op", op, "operator spec, e.g. dense:M=64,K=64,N=64")->required();
  sketches->add_option("--device", device, "device profile (see `pruner devices`)");

  pruner::ScheduleCheckOptions check_options;
  auto* check = app.add_subcommand(
      "check", "sample random schedules, lower them and compare with the reference");
  check->add_option("--op", op, "operator spec, e.g. conv2d:N=1,C=16,H=14,W=14,K=32,R=3,S=3,pad=1")
      ->required();
  check->add_option("--device", device, "device profile (see `pruner devices`)");
  check->add_option("--n", check_options.num_schedules, "number of schedules")
      ->check(CLI::Range(1, 100000));
  check->add_option("--seed", check_options.seed, "random seed");
  check->add_flag("--show", check_options.show_example, "print one schedule and its program");

  int demo_n = 20;
  auto* demo = app.add_subcommand("demo", "tour the engine on real operators (CPU and A100)");
  demo->add_option("--n", demo_n, "schedules per operator and device")->check(CLI::Range(1, 10000));

  pruner::TuneCommand tune_command;
  pruner::TuningOptions& topt = tune_command.options;
  auto* tune = app.add_subcommand("tune", "tune operators or a network on the local CPU, in process");
  tune->add_option("--db", tune_command.db, "records database (created if missing)");
  tune->add_option("--op", tune_command.ops, "operator spec (repeatable), see `pruner ops`");
  tune->add_option("--network", tune_command.network,
                   "built-in network: resnet-50, mobilenet-v2, bert-base, bert-tiny");
  tune->add_option("--device", tune_command.device, "device profile (the local CPU)");
  tune->add_option("--resume", tune_command.resume_job, "continue a stopped job by id");
  tune->add_option("--trials", topt.trial_budget, "trial budget (measured programs)")
      ->check(CLI::Range(int64_t{1}, int64_t{10000000}));
  tune->add_option("--per-round", topt.measures_per_round, "programs measured per round")
      ->check(CLI::Range(1, 100000));
  tune->add_option("--strategy", topt.strategy,
                   "random, ansor-xgb, ansor-mlp, ansor-random, lse-xgb, pruner, moa-pruner, "
                   "pruner-offline");
  tune->add_option("--pretrained-device", topt.pretrained_device,
                   "moa-pruner / pruner-offline: device whose PaCM checkpoint to start from");
  tune->add_option("--scheduler", topt.scheduler, "gradient or round-robin");
  tune->add_option("--early-stopping", topt.early_stopping, "trials without improvement (0: off)");
  tune->add_option("--population", topt.population, "evolutionary population")
      ->check(CLI::Range(1, 1000000));
  tune->add_option("--seed", topt.seed, "random seed");
  tune->add_option("--name", topt.name, "job name");
  tune->add_option("--repeat", topt.measure.repeat, "timed repeats per candidate");
  tune->add_option("--min-repeat-ms", topt.measure.min_repeat_ms, "minimum length of a repeat");
  tune->add_option("--run-timeout", topt.measure.run_timeout_s, "seconds per sandboxed run");
  tune->add_option("--threads", topt.measure.num_threads,
                   "OpenMP threads per kernel (0: all hardware threads)")
      ->check(CLI::Range(0, 4096));
  tune->add_flag("--quiet", tune_command.quiet, "one line per round, no tables");

  std::string db = "pruner.db", what, best_device;
  bool show_program = false;
  auto* best = app.add_subcommand(
      "best",
      "best schedule of each task of a server job; with --db, of a job or a workload in a local "
      "records database");
  best->add_option("what", what, "job id (or, with --db, a workload key)")->required();
  best->add_option("--db", db, "records database: read it in process instead of asking the server");
  best->add_option("--device", best_device, "with --db: device key (default: the job's)");
  best->add_flag("--program", show_program, "with --db: print the lowered program");
  pruner::AddServiceFlags(best, &service.service);

  std::string workload;
  int64_t limit = 50;
  auto* records = app.add_subcommand("records", "list records of a workload");
  records->add_option("workload", workload, "workload key")->required();
  records->add_option("--db", db, "records database");
  records->add_option("--limit", limit, "at most this many (0: all)");

  auto* jobs = app.add_subcommand(
      "jobs", "list the server's tuning jobs; with --db, the jobs of a local records database");
  jobs->add_option("--db", db, "records database: read it in process instead of asking the server");
  pruner::AddServiceFlags(jobs, &service.service);

  std::string path, export_dir;
  auto* export_cmd = app.add_subcommand(
      "export",
      "with --out DIR: a server job's best schedules as source files plus manifest.json; "
      "otherwise: a local database's records as JSON lines");
  export_cmd->add_option("path", path, "output file (JSON lines), or the job id with --out")
      ->required();
  export_cmd->add_option("--out", export_dir, "folder for a server job's exported files");
  export_cmd->add_option("--db", db, "records database (JSON-lines export)");
  export_cmd->add_option("--workload", workload, "JSON-lines export: only this workload");
  pruner::AddServiceFlags(export_cmd, &service.service);
  pruner::PretrainCommand pretrain_command;
  auto* pretrain = app.add_subcommand(
      "pretrain", "train a PaCM checkpoint from a device's records (for moa-pruner elsewhere)");
  pretrain->add_option("--db", pretrain_command.db, "records database");
  pretrain->add_option("--device", pretrain_command.device, "device key of the records")
      ->required();
  pretrain->add_option("--epochs", pretrain_command.max_epochs, "training epochs (0: default)");
  pretrain->add_option("--out", pretrain_command.out, "also write the checkpoint to this file");
  auto* import_cmd = app.add_subcommand("import", "read records from JSON lines");
  import_cmd->add_option("path", path, "input file")->required();
  import_cmd->add_option("--db", db, "records database");

  pruner::AddServiceCommands(&app, &service);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // Usage errors exit 2 like the service's refusals; --help exits 0.
    return app.exit(e) == 0 ? 0 : 2;
  }
  if (std::optional<int> code = pruner::RunParsedServiceCommand(service)) return *code;
  if (*tune) return pruner::RunTune(tune_command);
  if (*best) {
    if (best->count("--db") > 0) return pruner::RunBest(db, what, best_device, show_program);
    if (best->count("--device") > 0 || show_program) {
      std::cerr << "error: --device and --program read a local records database: add --db FILE\n";
      return 2;
    }
    return pruner::RunServiceBest(service, what);
  }
  if (*records) return pruner::RunRecords(db, workload, limit);
  if (*jobs) return jobs->count("--db") > 0 ? pruner::RunJobs(db) : pruner::RunServiceJobs(service);
  if (*export_cmd) {
    if (export_cmd->count("--out") == 0) return pruner::RunExport(db, path, workload);
    if (export_cmd->count("--db") > 0 || export_cmd->count("--workload") > 0) {
      std::cerr << "error: --out exports a server job; --db/--workload export local records\n";
      return 2;
    }
    return pruner::RunServiceExport(service, path, export_dir);
  }
  if (*import_cmd) return pruner::RunImport(db, path);
  if (*pretrain) return pruner::RunPretrain(pretrain_command);
  if (*ops) return pruner::ListOperators();
  if (*devices) return pruner::ListDevices(json);
  if (*sketches) return pruner::PrintSketches(op, device);
  if (*check) return pruner::Check(op, device, check_options);
  if (*demo) return pruner::Demo(demo_n);
  return 0;
}
