// The `pruner` command-line tool: the operator library, device profiles,
// sketches, a check that random schedules lower and compute the right answer,
// in-process tuning (tune), a job's view (status, jobs, best, export: from
// the server, or with --db from a local records database), the records
// database itself (records show/best/export/import), and the rest of the
// tuning service's client (submit, watch, cancel, workers; service_cli.h).
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "client/command_exit.h"
#include "client/dataset_commands.h"
#include "client/dataset_submit.h"
#include "client/job_source_local.h"
#include "client/calibrate_command.h"
#include "client/pretrain_command.h"
#include "client/records_commands.h"
#include "client/schedule_check.h"
#include "client/service_cli.h"
#include "client/model_commands.h"
#include "client/tune_command.h"
#include "common/codegen/cpu_compiler.h"
#include "common/device/device_profile.h"
#include "common/device/device_profile_json.h"
#include "common/graph/networks.h"
#include "common/ir/ops.h"
#include "common/sketch/sketch.h"
#include "common/sketch/seed_schedules.h"
#include "common/tune/job_tasks.h"
#include "common/tune/strategy_spec.h"

namespace pruner {
namespace {

// --backend values.
std::map<std::string, CpuBackend> BackendNames() {
  return {{CpuBackendName(CpuBackend::kLlvm), CpuBackend::kLlvm},
          {CpuBackendName(CpuBackend::kGcc), CpuBackend::kGcc}};
}

int ListOperators() {
  for (const std::string& op : KnownOperators()) std::cout << op << "\n";
  std::cout << "\n" << OperatorUsage() << "\n";
  return 0;
}

int ListDevices(bool json) {
  for (const std::string& name : KnownDeviceProfiles()) {
    auto profile = GetDeviceProfile(name);
    if (!profile.ok()) return FailCommand(profile.status());
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
  if (!device.ok()) return FailCommand(device.status());
  auto dag = BuildOperator(op);
  if (!dag.ok()) return FailCommand(dag.status());
  auto shared = std::make_shared<const ComputeDag>(*std::move(dag));
  std::cout << "workload " << shared->WorkloadKey() << "\n" << shared->ToString() << "\n";
  auto sketches = GenerateSketches(shared, *device);
  if (!sketches.ok()) return FailCommand(sketches.status());
  for (size_t i = 0; i < sketches->size(); ++i) {
    std::cout << "=== sketch " << i << " ===\n" << (*sketches)[i].ToString() << "\n";
  }
  // The complete schedules the search measures first (and an untuned
  // build uses, the first of them), to replay with `pruner check --steps`.
  const std::vector<State> seeds = SeedSchedules(*sketches, *device);
  for (size_t i = 0; i < seeds.size(); ++i) {
    std::cout << "=== seed schedule " << i << " ===\n" << seeds[i].ToSentence() << "\n";
  }
  return 0;
}

void PrintReport(const std::string& op, const std::string& device, const ScheduleCheckReport& r) {
  std::printf("%-58s %-11s %3d sketches  %4d sampled  %4d lowered  %4d match reference",
              op.c_str(), device.c_str(), r.num_sketches, r.sampled, r.lowered, r.matched);
  if (r.ran > 0) std::printf("  %4d of %d run right", r.run_matched, r.ran);
  if (r.run_mean_s > 0) {
    std::printf("  %.4f ms (%.1f GFLOP/s)", r.run_mean_s * 1e3, r.gflop / r.run_mean_s);
  }
  std::printf("\n");
  for (size_t i = 0; i < r.timed_seeds.size(); ++i) {
    const auto& [sentence, seconds] = r.timed_seeds[i];
    if (seconds > 0) {
      std::printf("    seed %zu: %.4f ms (%.1f GFLOP/s)  %s\n", i, seconds * 1e3, r.gflop / seconds,
                  sentence.c_str());
    } else {
      std::printf("    seed %zu: failed  %s\n", i, sentence.c_str());
    }
  }
  for (const auto& [message, count] : r.failures) {
    std::printf("    %4d x %s\n", count, message.c_str());
  }
  for (const auto& [message, count] : r.run_failures) {
    std::printf("    %4d x %s\n", count, message.c_str());
  }
  if (!r.failed_sentences.empty()) {
    std::printf("    workload %s: replay one with --workload %s --steps \"SENTENCE\"\n",
                r.workload_key.c_str(), r.workload_key.c_str());
  }
  for (const std::string& sentence : r.failed_sentences) {
    std::printf("    failed: %s\n", sentence.c_str());
  }
}

bool AllRight(const ScheduleCheckReport& r, const ScheduleCheckOptions& options) {
  // A task without seeds has nothing to check, which is not a failure.
  return (r.sampled > 0 || options.seeds) && r.matched == r.sampled &&
         (!options.run || r.run_matched == r.sampled);
}

// `pruner check`: one operator, or every task of a built-in network.
int Check(const std::string& op, const std::string& network, const std::string& model,
          const std::string& workload, const std::string& device_name,
          const ScheduleCheckOptions& options) {
  auto device = GetDeviceProfile(device_name);
  if (!device.ok()) return FailCommand(device.status());
  if (static_cast<int>(!op.empty()) + static_cast<int>(!network.empty()) +
          static_cast<int>(!model.empty()) !=
      1) {
    return FailCommand(
        absl::InvalidArgumentError("give exactly one of --op, --network and --model"));
  }
  if (!op.empty()) {
    auto report = CheckRandomSchedules(op, *device, options);
    if (!report.ok()) return FailCommand(report.status());
    std::printf("workload key %s, %.3f GFLOP\n", report->workload_key.c_str(), report->gflop);
    PrintReport(op, device->name, *report);
    if (!report->example.empty()) std::cout << "\nexample schedule\n" << report->example << "\n";
    return AllRight(*report, options) ? 0 : 1;
  }
  absl::StatusOr<std::vector<SearchTask>> tasks;
  if (!model.empty()) {
    // The tasks as `pruner tune --model` tunes them (the default layout).
    absl::StatusOr<OnnxImportOptions> import = ImportOptionsFromFlags({}, kDefaultModelLayout);
    if (!import.ok()) return FailCommand(import.status());
    tasks = BuildModelTasks(model, *import);
  } else {
    tasks = BuildJobTasks({}, network);
  }
  if (!tasks.ok()) return FailCommand(tasks.status());
  const std::string& what = model.empty() ? network : model;
  int sampled = 0, wrong = 0, checked = 0;
  for (const SearchTask& task : *tasks) {
    if (!workload.empty() && task.workload_key != workload) continue;
    ++checked;
    auto report = CheckSchedules(task.dag, *device, options);
    if (!report.ok()) return FailCommand(report.status());
    PrintReport(task.name, device->name, *report);
    std::fflush(stdout);
    sampled += report->sampled;
    wrong += report->sampled - (options.run ? report->run_matched : report->matched);
  }
  if (checked == 0) {
    return FailCommand(absl::NotFoundError(absl::StrCat(what, " has no task with workload ", workload)));
  }
  std::printf("%s: %d tasks, %d schedules, %d wrong or failed (%s)\n", what.c_str(), checked,
              sampled, wrong,
              options.run ? "interpreted, built and run" : "interpreted");
  return wrong == 0 && sampled > 0 ? 0 : 1;
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
    if (!device.ok()) return FailCommand(device.status());
    std::printf("\n== %s: %s ==\n", device->name.c_str(), device->description.c_str());
    for (const std::string& op : ops) {
      auto report = CheckRandomSchedules(op, *device, options);
      if (!report.ok()) return FailCommand(report.status());
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
      "Service commands (submit, watch, cancel, workers; status, jobs, best and export without "
      "--db) talk to the server at --server, $PRUNER_SERVER or 127.0.0.1:7070, with the token "
      "from --token-file, $PRUNER_TOKEN_FILE or $PRUNER_TOKEN.");
  pruner::ServiceCli service;

  auto* ops = app.add_subcommand("ops", "list the operator library and its spec syntax");
  bool json = false;
  auto* devices = app.add_subcommand("devices", "list the built-in device profiles");
  devices->add_flag("--json", json, "print profiles as JSON lines");

  std::string op, device = "cpu";
  auto* sketches = app.add_subcommand(
      "sketches", "print the sketches of an operator and the seed schedules the search tries first");
  sketches->add_option("--op", op, "operator spec, e.g. dense:M=64,K=64,N=64")->required();
  sketches->add_option("--device", device, "device profile (see `pruner devices`)");

  pruner::ScheduleCheckOptions check_options;
  auto* check = app.add_subcommand(
      "check", "sample random schedules, lower them and compare with the reference");
  std::string check_network;
  check->add_option("--op", op, "operator spec, e.g. conv2d:N=1,C=16,H=14,W=14,K=32,R=3,S=3,pad=1");
  check->add_option("--network", check_network,
                    "every task of a built-in network: resnet-50, mobilenet-v2, bert-base, bert-tiny");
  std::string check_model;
  check->add_option("--model", check_model,
                    "every task of an ONNX model, as `pruner tune --model` tunes it");
  std::string check_workload;
  check->add_option("--workload", check_workload,
                    "with --network or --model: only the task with this workload key");
  check->add_option("--device", device, "device profile (see `pruner devices`)");
  check->add_option("--n", check_options.num_schedules, "number of schedules")
      ->check(CLI::Range(1, 100000));
  check->add_option("--seed", check_options.seed, "random seed");
  check->add_flag("--show", check_options.show_example, "print one schedule and its program");
  check->add_option("--steps", check_options.steps, "check this schedule sentence instead of sampling");
  check->add_flag("--seeds", check_options.seeds,
                  "check the seed schedules the search measures first instead of sampling (with "
                  "--run: time each)");
  check->add_flag("--run", check_options.run,
                  "also build and run each schedule on this CPU (sandboxed, reference-checked)");
  check->add_option("--threads", check_options.num_threads, "OpenMP threads of the kernels that run")
      ->check(CLI::Range(0, 4096));
  check->add_option("--march", check_options.march,
                    "with --run: compile for this -march instead of native (this CPU must run it)");
  check->add_option("--build-timeout", check_options.build_timeout_s, "with --run: seconds per build")
      ->check(CLI::PositiveNumber);
  check->add_option("--backend", check_options.backend,
                    "with --run: llvm (in process) or gcc (C++ and a compiler process)")
      ->transform(CLI::CheckedTransformer(pruner::BackendNames(), CLI::ignore_case));

  int demo_n = 20;
  auto* demo = app.add_subcommand("demo", "tour the engine on real operators (CPU and A100)");
  demo->add_option("--n", demo_n, "schedules per operator and device")->check(CLI::Range(1, 10000));

  const std::string kLayoutHelp = pruner::kModelLayoutHelp;
  pruner::TuneCommand tune_command;
  pruner::TuningOptions& topt = tune_command.options;
  const std::string network_help =
      absl::StrCat("built-in network: ", absl::StrJoin(pruner::KnownNetworks(), ", "),
                   "; at other shapes NAME:batch=B,image=I (CNNs) or NAME:batch=B,seq=S (BERTs)");
  auto* tune = app.add_subcommand("tune", "tune operators or a network on the local CPU, in process");
  tune->add_option("--db", tune_command.db, "records database (created if missing)");
  tune->add_option("--op", tune_command.ops, "operator spec (repeatable), see `pruner ops`");
  tune->add_option("--network", tune_command.network,
                   network_help);
  tune->add_option("--model", tune_command.model, "ONNX model file (exported by PyTorch)")
      ->check(CLI::ExistingFile);
  tune->add_option("--shape", tune_command.shapes,
                   "NAME=VALUE: bind a symbolic input dimension of --model (repeatable)");
  tune->add_option("--layout", tune_command.layout, kLayoutHelp)->capture_default_str();
  tune->add_option("--device", tune_command.device, "device profile (the local CPU)");
  tune->add_option("--resume", tune_command.resume_job, "continue a stopped job by id");
  tune->add_option("--trials", topt.trial_budget, "trial budget (measured programs)")
      ->check(CLI::Range(int64_t{1}, int64_t{10000000}));
  tune->add_option("--per-round", topt.measures_per_round, "programs measured per round")
      ->check(CLI::Range(1, 100000));
  tune->add_option("--strategy", topt.strategy,
                   absl::StrJoin(pruner::KnownStrategies(), ", "));
  tune->add_option("--pretrained-device", topt.pretrained_device,
                   "moa-pruner / pruner-offline: device whose PaCM checkpoint to start from; "
                   "ansor-mtl-tlp: device whose records train the second head");
  tune->add_option("--scheduler", topt.scheduler, "gradient or round-robin");
  tune->add_option("--early-stopping", topt.early_stopping, "trials without improvement (0: off)");
  bool no_seeds = false;
  tune->add_flag("--no-seeds", no_seeds,
                 "do not measure the hand-shaped seed schedules first (the strategy's own "
                 "search only)");
  bool no_verify_bests = false;
  tune->add_flag("--no-verify-bests", no_verify_bests,
                 "do not measure new bests a second time (faster; a lucky timing can become a "
                 "best)");
  tune->add_option("--verify-tolerance", topt.verify_tolerance,
                   "how far (relative) a best's second measurement may be and agree")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 10.0));
  tune->add_option("--population", topt.population, "evolutionary population")
      ->check(CLI::Range(1, 1000000));
  tune->add_option("--seed", topt.seed, "random seed");
  tune->add_option("--name", topt.name, "job name");
  tune->add_option("--number", topt.measure.number, "calls per timed repeat (grows to --min-repeat-ms)");
  tune->add_option("--repeat", topt.measure.repeat, "timed repeats per candidate");
  tune->add_flag("--flush-cache", topt.measure.flush_cache,
                 "evict the caches before each repeat (with --number 1 --min-repeat-ms 0: every "
                 "call starts cold, as a kernel inside a whole model does)");
  tune->add_option("--min-repeat-ms", topt.measure.min_repeat_ms, "minimum length of a repeat");
  tune->add_option("--hopeless-factor", topt.measure.hopeless_factor,
                   "a candidate this many times slower than its batch's fastest on its first "
                   "call is timed by that call alone (0: off)");
  tune->add_option("--run-timeout", topt.measure.run_timeout_s, "seconds per sandboxed run");
  tune->add_option("--threads", topt.measure.num_threads,
                   "OpenMP threads per kernel (0: all hardware threads)")
      ->check(CLI::Range(0, 4096));
  tune->add_option("--backend", topt.measure.build.backend,
                   "CPU code generator: llvm (in process) or gcc (C++ and a compiler process)")
      ->transform(CLI::CheckedTransformer(pruner::BackendNames(), CLI::ignore_case));
  tune->add_flag("--quiet", tune_command.quiet, "one line per round, no tables");

  std::string tasks_network, tasks_model;
  std::vector<std::string> tasks_shapes;
  std::string tasks_layout = pruner::kDefaultModelLayout;
  auto* tasks = app.add_subcommand("tasks", "the tuning tasks of a network or an ONNX model");
  tasks->add_option("--network", tasks_network,
                    network_help);
  tasks->add_option("--model", tasks_model, "ONNX model file (exported by PyTorch)")
      ->check(CLI::ExistingFile);
  tasks->add_option("--shape", tasks_shapes,
                    "NAME=VALUE: bind a symbolic input dimension of --model (repeatable)");
  tasks->add_option("--layout", tasks_layout, kLayoutHelp)->capture_default_str();

  pruner::CompileCommand compile_command;
  auto* compile = app.add_subcommand(
      "compile", "compile an ONNX model into one shared library (tuned kernels + runtime)");
  compile->add_option("--model", compile_command.model, "ONNX model file (exported by PyTorch)")
      ->required()
      ->check(CLI::ExistingFile);
  compile->add_option("--shape", compile_command.shapes,
                      "NAME=VALUE: bind a symbolic input dimension (repeatable)");
  compile->add_option("--layout", compile_command.layout, kLayoutHelp)->capture_default_str();
  compile->add_option("--db", compile_command.db,
                      "records database whose best records to use (a missing file: none)");
  compile->add_option("--target", compile_command.target,
                      "device key of the records (default: this CPU's)");
  compile->add_option("--out", compile_command.out, "the shared library to write")->required();
  compile->add_flag("--defaults-only", compile_command.defaults_only,
                    "ignore the records: default schedules for every kernel");
  compile->add_option("--cpu", compile_command.cpu,
                      "LLVM CPU of the kernels: \"native\" (this host only), a CPU name, or "
                      "by default the x86-64 ISA level of the device (runs on any such CPU)");
  compile->add_option("--job", compile_command.job,
                      "use this job's best records, asked from the server ($PRUNER_SERVER, "
                      "$PRUNER_TOKEN_FILE) instead of --db");

  pruner::RunCommand run_command;
  auto* run = app.add_subcommand("run", "run a compiled model on .npy inputs");
  run->add_option("library", run_command.library, "the compiled model (.so)")
      ->required()
      ->check(CLI::ExistingFile);
  run->add_option("--input", run_command.inputs, "NAME=FILE.npy (FILE.npy for one input)");
  run->add_option("--expect", run_command.expect,
                  "NAME=FILE.npy: compare an output with it (exit 1 on mismatch)");
  run->add_option("--save", run_command.save, "NAME=FILE.npy: write an output");
  run->add_option("--rtol", run_command.rtol, "relative tolerance of --expect");
  run->add_option("--atol", run_command.atol, "absolute tolerance of --expect");
  run->add_option("--bench", run_command.bench, "time this many runs after the first")
      ->check(CLI::Range(0, 1000000));
  run->add_option("--threads", run_command.threads, "threads (0: all hardware threads)")
      ->check(CLI::Range(0, 4096));
  run->add_option("--torchscript", run_command.torchscript,
                  "PyTorch's TorchScript export of the model: check against it and time both")
      ->check(CLI::ExistingFile);
  run->add_option("--rounds", run_command.rounds, "interleaved rounds with --torchscript")
      ->check(CLI::Range(1, 100000));
  run->add_option("--profile", run_command.profile,
                  "time each step of the plan over this many runs (the fastest of each)")
      ->check(CLI::NonNegativeNumber);

  // The records database itself.
  std::string db = "pruner.db", workload, records_device, path;
  int64_t limit = 50;
  bool show_program = false;
  auto* records = app.add_subcommand("records", "the records database: show, best, export, import, purge");
  records->require_subcommand(1);
  auto* records_show = records->add_subcommand("show", "list the records of a workload");
  records_show->add_option("workload", workload, "workload key")->required();
  records_show->add_option("--limit", limit, "at most this many (0: all)");
  auto* records_best = records->add_subcommand("best", "the best record of a workload on a device");
  records_best->add_option("workload", workload, "workload key")->required();
  records_best->add_option("--device", records_device, "device key")->required();
  records_best->add_flag("--program", show_program, "print the lowered program too");
  auto* records_export =
      records->add_subcommand("export", "write records as JSON lines (another database imports them)");
  records_export->add_option("path", path, "output file")->required();
  records_export->add_option("--workload", workload, "only this workload");
  auto* records_import = records->add_subcommand("import", "read records from JSON lines");
  records_import->add_option("path", path, "input file")->required()->check(CLI::ExistingFile);
  std::string purge_worker;
  bool purge_dry_run = false;
  auto* records_purge = records->add_subcommand(
      "purge", "remove every record a worker measured (one found to report garbage)");
  records_purge->add_option("--worker", purge_worker, "the worker's name (`pruner workers`)")
      ->required();
  records_purge->add_flag("--dry-run", purge_dry_run, "only say what would be removed");
  for (CLI::App* command :
       {records_show, records_best, records_export, records_import, records_purge}) {
    command->add_option("--db", db, "records database");
  }

  // A TenSet-style dataset of measured random schedules.
  pruner::DatasetCollectCommand collect_command;
  pruner::DatasetCollectOptions& copt = collect_command.options;
  std::string dataset_dir;
  double busy_threshold = 0.5;
  auto* dataset = app.add_subcommand(
      "dataset", "a dataset of measured random schedules: collect, remeasure, stats, export, import");
  dataset->require_subcommand(1);
  auto* dataset_collect = dataset->add_subcommand(
      "collect", "measure random schedules of many networks' tasks on the local CPU (resumable)");
  dataset_collect->add_option("--network", copt.networks,
                              network_help + " (repeatable; default: every network at TenSet's "
                              "shape variants)");
  dataset_collect->add_option("--per-task", copt.per_task, "random schedules per task")
      ->capture_default_str()
      ->check(CLI::Range(1, 100000));
  dataset_collect->add_option("--per-round", copt.per_round, "schedules measured per round")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000));
  dataset_collect->add_option("--seed", copt.seed, "random seed of the first network's job");
  dataset_collect->add_option("--threads", copt.measure.num_threads,
                              "OpenMP threads per kernel (0: all hardware threads)")
      ->check(CLI::Range(0, 4096));
  dataset_collect->add_option("--run-timeout", copt.measure.run_timeout_s, "seconds per sandboxed run");
  dataset_collect->add_option("--device", collect_command.device, "device profile (the local CPU)");
  dataset_collect->add_option("--db", collect_command.db, "records database (created if missing)");
  std::string collect_target;
  pruner::ServiceFlags collect_service;
  dataset_collect->add_option("--target", collect_target,
                              "collect over the farm instead: submit the jobs to the server for "
                              "this device key (`pruner workers`)");
  pruner::AddServiceFlags(dataset_collect, &collect_service);
  pruner::DatasetRemeasureCommand remeasure_command;
  auto* dataset_remeasure = dataset->add_subcommand(
      "remeasure", "measure again, on this quiet CPU, each workload with a schedule measured "
                   "only while other work kept the host busy (resumable)");
  dataset_remeasure->add_option("--db", remeasure_command.db, "records database");
  dataset_remeasure->add_option("--device", remeasure_command.device,
                                "device profile (the local CPU, the records' machine)");
  dataset_remeasure->add_option("--busy-threshold", remeasure_command.options.busy_threshold,
                                "records with more busy cores than this count as busy")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 4096.0));
  dataset_remeasure->add_option("--workload", remeasure_command.options.workloads,
                                "only this workload, whole, busy or not (task name or key; "
                                "repeatable)");
  dataset_remeasure->add_option("--fastest", remeasure_command.options.fastest,
                                "with --workload: only each one's N fastest schedules (by their "
                                "latest quiet measurement); 0: all")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  dataset_remeasure->add_option("--passes", remeasure_command.options.passes,
                                "measure the chosen schedules this many times, pass after pass")
      ->capture_default_str()
      ->check(CLI::Range(1, 100));
  dataset_remeasure->add_option("--batch", remeasure_command.options.batch,
                                "schedules per measurement call")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000));
  auto* dataset_stats = dataset->add_subcommand("stats", "what a dataset holds, per device");
  dataset_stats->add_option("--device", records_device, "only this device key");
  dataset_stats->add_option("--busy-threshold", busy_threshold,
                            "other work (cores) above which a record counts as measured busy")
      ->capture_default_str();
  auto* dataset_export = dataset->add_subcommand(
      "export", "write compressed shards, one per device (<device>.jsonl.xz + <device>.jobs.json)");
  dataset_export->add_option("dir", dataset_dir, "output directory")->required();
  dataset_export->add_option("--device", records_device, "only this device key");
  auto* dataset_import = dataset->add_subcommand("import", "read every shard of a directory");
  dataset_import->add_option("dir", dataset_dir, "directory of shards")
      ->required()
      ->check(CLI::ExistingDirectory);
  for (CLI::App* command : {dataset_stats, dataset_export, dataset_import}) {
    command->add_option("--db", db, "records database");
  }

  pruner::PretrainCommand pretrain_command;
  auto* pretrain = app.add_subcommand(
      "pretrain", "train a PaCM checkpoint from a device's records (for moa-pruner elsewhere)");
  pretrain->add_option("--db", pretrain_command.db, "records database");
  pretrain->add_option("--device", pretrain_command.device, "device key of the records")
      ->required();
  pretrain->add_option("--epochs", pretrain_command.max_epochs, "training epochs (0: default)");
  pretrain->add_flag("--analyzer-branch", pretrain_command.analyzer_branch,
                     "PaCM with the analyzer's symbols as a third input (as pruner-sym trains it)");
  pretrain->add_option("--out", pretrain_command.out, "also write the checkpoint to this file");

  pruner::CalibrateCommand calibrate_command;
  auto* calibrate = app.add_subcommand(
      "calibrate", "fit the CPU draft model's device constants on a device's records and store "
                   "them for its pruner jobs");
  calibrate->add_option("--db", calibrate_command.db, "records database");
  calibrate->add_option("--device", calibrate_command.device, "device key of the records")
      ->required();
  calibrate->add_option("--folds", calibrate_command.folds,
                        "report the fit on held-out workloads with this many folds (1: none)")
      ->check(CLI::Range(1, 100));
  calibrate->add_option("--threads", calibrate_command.threads, "analysis threads (0: all)")
      ->check(CLI::NonNegativeNumber);
  calibrate->add_flag("--dry-run", calibrate_command.dry_run, "report only, store nothing");
  calibrate->add_option("--records-codegen", calibrate_command.records_codegen,
                        "the compiler that built the records' kernels, whose code the draft "
                        "model counts: llvm (workers' default) or gcc (workers started with "
                        "--cpu-backend gcc, records measured before 2026-11-27)")
      ->transform(CLI::CheckedTransformer(pruner::BackendNames(), CLI::ignore_case));

  pruner::AddServiceCommands(&app, &service);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // Usage errors exit 2 like the service's refusals; --help exits 0.
    return app.exit(e) == 0 ? 0 : 2;
  }
  if (std::optional<int> code =
          pruner::RunParsedServiceCommand(service, &pruner::OpenLocalJobSource)) {
    return *code;
  }
  if (*tune) {
    topt.verify_bests = !no_verify_bests;
    topt.seed_schedules = !no_seeds;
    return pruner::RunTune(tune_command);
  }
  if (*tasks) return pruner::RunTasks(tasks_network, tasks_model, tasks_shapes, tasks_layout);
  if (*compile) return pruner::RunCompile(compile_command);
  if (*run) return pruner::RunModel(run_command);
  if (*records_show) return pruner::RunRecordsShow(db, workload, limit);
  if (*records_best) return pruner::RunRecordsBest(db, workload, records_device, show_program);
  if (*records_export) return pruner::RunRecordsExport(db, path, workload);
  if (*records_import) return pruner::RunRecordsImport(db, path);
  if (*records_purge) return pruner::RunRecordsPurge(db, purge_worker, purge_dry_run);
  if (*pretrain) return pruner::RunPretrain(pretrain_command);
  if (*calibrate) return pruner::RunCalibrate(calibrate_command);
  if (*dataset_collect && !collect_target.empty()) {
    return pruner::RunDatasetSubmit(
        pruner::WithEnvironmentDefaults(collect_service, [](const char* n) { return std::getenv(n); }),
        collect_target, copt, {std::cout, std::cerr});
  }
  if (*dataset_collect) return pruner::RunDatasetCollect(collect_command);
  if (*dataset_remeasure) return pruner::RunDatasetRemeasure(remeasure_command);
  if (*dataset_stats) return pruner::RunDatasetStats(db, records_device, busy_threshold);
  if (*dataset_export) return pruner::RunDatasetExport(db, dataset_dir, records_device);
  if (*dataset_import) return pruner::RunDatasetImport(db, dataset_dir);
  if (*ops) return pruner::ListOperators();
  if (*devices) return pruner::ListDevices(json);
  if (*sketches) return pruner::PrintSketches(op, device);
  if (*check) return pruner::Check(op, check_network, check_model, check_workload, device,
                                   check_options);
  if (*demo) return pruner::Demo(demo_n);
  return 0;
}
