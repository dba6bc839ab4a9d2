#include "client/service_cli.h"

#include <atomic>
#include <csignal>
#include <cstdlib>
#include <iostream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "client/service_commands.h"
#include "common/graph/onnx_import.h"
#include "common/tune/strategy_spec.h"

namespace pruner {
namespace {

constexpr char kServiceGroup[] = "Service";

std::atomic<bool> g_stop_watching{false};

void OnInterrupt(int) {
  g_stop_watching.store(true);
  // The next Ctrl-C is the default one: if cancelling the call hangs, the
  // user can still get out.
  std::signal(SIGINT, SIG_DFL);
}

template <typename T>
CLI::Option* AddOptional(CLI::App* command, const std::string& name, std::optional<T>* value,
                         const std::string& help) {
  return command->add_option_function<T>(name, [value](const T& v) { *value = v; }, help);
}

const CLI::Validator& JobIdValidator() {
  static const CLI::Validator validator(
      [](std::string& text) -> std::string {
        int64_t id = 0;
        return absl::SimpleAtoi(text, &id) && id > 0 ? "" : "a job id is a positive number";
      },
      "JOB_ID");
  return validator;
}

CLI::Option* AddJobArgument(CLI::App* command, int64_t* job_id) {
  return command->add_option("job", *job_id, "job id")->required()->check(JobIdValidator());
}

ServiceFlags Resolved(const ServiceCli& cli) {
  return WithEnvironmentDefaults(cli.service, [](const char* name) { return std::getenv(name); });
}

CommandStreams Console() { return CommandStreams{std::cout, std::cerr}; }

void AddSubmitFlags(CLI::App* submit, SubmitFlags* f) {
  submit->add_option("--op", f->ops, "operator spec (repeatable), see `pruner ops`");
  AddOptional(submit, "--network", &f->network,
              "built-in network: resnet-50, mobilenet-v2, bert-base, bert-tiny");
  AddOptional(submit, "--model", &f->model,
              "ONNX model file: its fused tasks (not its weights) go to the server");
  submit->add_option("--shape", f->shapes,
                     "NAME=VALUE: bind a symbolic input dimension of --model (repeatable)");
  submit->add_option("--layout", f->layout, kModelLayoutHelp)
      ->capture_default_str();
  AddOptional(submit, "--target", &f->target,
              "device key to tune for: a worker's (see `pruner workers`) or a built-in profile");
  AddOptional(submit, "--name", &f->name, "job name");
  AddOptional(submit, "--strategy", &f->strategy,
              absl::StrCat(absl::StrJoin(KnownStrategies(), ", "), " (default: the server's)"));
  AddOptional(submit, "--pretrained-device", &f->pretrained_device,
              "moa-pruner / pruner-offline: device whose PaCM checkpoint to start from");
  AddOptional(submit, "--scheduler", &f->scheduler, "gradient or round-robin");
  AddOptional(submit, "--trials", &f->trials, "trial budget (measured programs)")
      ->check(CLI::Range(int64_t{1}, int64_t{100000000}));
  AddOptional(submit, "--per-round", &f->per_round, "programs measured per round")
      ->check(CLI::Range(1, 100000));
  AddOptional(submit, "--seed", &f->seed, "random seed");
  AddOptional(submit, "--early-stopping", &f->early_stopping,
              "trials without improvement (0: off)")
      ->check(CLI::NonNegativeNumber);
  submit->add_flag("--no-seeds", f->no_seeds,
                   "do not measure the hand-shaped seed schedules first (the strategy's own "
                   "search only)");
  submit->add_flag("--no-verify-bests", f->no_verify_bests,
                   "do not measure new bests a second time on another worker (faster, but one "
                   "lying or lucky measurement can become a best)");
  AddOptional(submit, "--verify-tolerance", &f->verify_tolerance,
              "how far (relative) a best's second measurement may be from the first and agree "
              "(default 0.25)")
      ->check(CLI::Range(0.0, 10.0));
  const char* measure = "Measurement (0 or absent: the server's default)";
  AddOptional(submit, "--number", &f->number, "calls per timed repeat")
      ->check(CLI::NonNegativeNumber)->group(measure);
  AddOptional(submit, "--repeat", &f->repeat, "timed repeats per candidate")
      ->check(CLI::NonNegativeNumber)->group(measure);
  AddOptional(submit, "--min-repeat-ms", &f->min_repeat_ms, "minimum length of a repeat")
      ->check(CLI::NonNegativeNumber)->group(measure);
  AddOptional(submit, "--hopeless-factor", &f->hopeless_factor,
              "a candidate this many times slower than its batch's fastest on its first call is "
              "timed by that call alone (0: off)")
      ->check(CLI::NonNegativeNumber)->group(measure);
  AddOptional(submit, "--threads", &f->threads, "threads per CPU kernel (0: all)")
      ->check(CLI::Range(0, 4096))->group(measure);
  AddOptional(submit, "--run-timeout", &f->run_timeout_s, "seconds per run on the device")
      ->check(CLI::NonNegativeNumber)->group(measure);
  AddOptional(submit, "--build-timeout", &f->build_timeout_s, "seconds per compile")
      ->check(CLI::NonNegativeNumber)->group(measure);
  submit->add_option("--spec", f->spec_file,
                     "JobSpec as JSON (proto3 mapping); the flags above override its fields")
      ->check(CLI::ExistingFile);
  submit->add_flag("--watch", f->watch, "follow the job's progress like `pruner watch`");
}

}  // namespace

void AddServiceFlags(CLI::App* command, ServiceFlags* flags) {
  command->add_option("--server", flags->server,
                      "server address (default: $PRUNER_SERVER, else 127.0.0.1:7070)")
      ->group(kServiceGroup);
  command->add_option("--token-file", flags->token_file,
                      "file whose first line is the token (default: $PRUNER_TOKEN_FILE, else the "
                      "token in $PRUNER_TOKEN)")
      ->group(kServiceGroup);
  command->add_option("--tls-ca", flags->tls_ca_file, "PEM of the CA to trust; enables TLS")
      ->group(kServiceGroup);
  command->add_option("--tls-server-name", flags->tls_server_name,
                      "name in the server's certificate, if not the address's host")
      ->group(kServiceGroup);
  command->add_flag("--json", flags->json, "print the reply as one JSON object (per line)")
      ->group(kServiceGroup);
}

void AddServiceCommands(CLI::App* app, ServiceCli* cli) {
  cli->submit_command = app->add_subcommand(
      "submit", "submit a tuning job to the server (--op ... or --network, and --target)");
  AddSubmitFlags(cli->submit_command, &cli->submit);

  cli->watch_command = app->add_subcommand(
      "watch", "follow a server job round by round; exit 0 done, 1 failed/cancelled; Ctrl-C "
               "stops watching, not the job");
  AddJobArgument(cli->watch_command, &cli->job_id);

  cli->status_command = app->add_subcommand("status", "a job's state and task table");
  AddJobArgument(cli->status_command, &cli->job_id);

  cli->cancel_command = app->add_subcommand("cancel", "cancel a server job");
  AddJobArgument(cli->cancel_command, &cli->job_id);

  cli->workers_command = app->add_subcommand("workers", "the workers registered with the server");

  cli->jobs_command = app->add_subcommand("jobs", "the tuning jobs");
  cli->best_command = app->add_subcommand("best", "the best schedule of each task of a job");
  AddJobArgument(cli->best_command, &cli->job_id);
  cli->export_command = app->add_subcommand(
      "export", "a job's tuned kernels: each task's best schedule as source, plus manifest.json");
  AddJobArgument(cli->export_command, &cli->job_id);
  cli->export_command->add_option("--out", cli->out_dir, "folder for the files")->required();

  CLI::App* admin = app->add_subcommand("admin", "the farm's housekeeping (an admin token)");
  admin->require_subcommand(1);
  cli->admin_purge_command = admin->add_subcommand(
      "purge-worker", "remove every record a worker measured from the server's database");
  cli->admin_purge_command->add_option("worker", cli->worker_name, "the worker's name")
      ->required();
  cli->admin_purge_command->add_flag("--dry-run", cli->dry_run, "only say what would be removed");
  cli->admin_release_command =
      admin->add_subcommand("release-worker", "lift a worker's quarantine: it gets leases again");
  cli->admin_release_command->add_option("worker", cli->worker_name, "the worker's name")
      ->required();

  for (CLI::App* command : {cli->submit_command, cli->watch_command, cli->status_command,
                            cli->cancel_command, cli->workers_command, cli->jobs_command,
                            cli->best_command, cli->export_command, cli->admin_purge_command,
                            cli->admin_release_command}) {
    AddServiceFlags(command, &cli->service);
  }
  for (CLI::App* command :
       {cli->status_command, cli->jobs_command, cli->best_command, cli->export_command}) {
    command->add_option("--db", cli->db,
                        "read this records database in process instead of asking the server");
  }
}

std::optional<int> RunParsedServiceCommand(const ServiceCli& cli,
                                           LocalJobSourceOpener open_local) {
  const bool watches = (cli.submit_command && *cli.submit_command && cli.submit.watch) ||
                       (cli.watch_command && *cli.watch_command);
  if (watches) std::signal(SIGINT, OnInterrupt);
  if (cli.submit_command && *cli.submit_command) {
    return RunSubmit(Resolved(cli), cli.submit, Console(), &g_stop_watching);
  }
  if (cli.watch_command && *cli.watch_command) {
    return RunWatch(Resolved(cli), cli.job_id, Console(), &g_stop_watching);
  }
  if (cli.cancel_command && *cli.cancel_command) {
    return RunCancelJob(Resolved(cli), cli.job_id, Console());
  }
  if (cli.workers_command && *cli.workers_command) return RunListWorkers(Resolved(cli), Console());
  if (cli.admin_purge_command && *cli.admin_purge_command) {
    return RunPurgeWorker(Resolved(cli), cli.worker_name, cli.dry_run, Console());
  }
  if (cli.admin_release_command && *cli.admin_release_command) {
    return RunReleaseWorker(Resolved(cli), cli.worker_name, Console());
  }

  auto parsed = [](CLI::App* command) { return command != nullptr && bool(*command); };
  if (!parsed(cli.status_command) && !parsed(cli.jobs_command) && !parsed(cli.best_command) &&
      !parsed(cli.export_command)) {
    return std::nullopt;
  }
  const ServiceFlags service = Resolved(cli);
  absl::StatusOr<std::unique_ptr<JobSource>> source = OpenJobSource(cli.db, service, open_local);
  if (!source.ok()) {
    std::cerr << "error: " << source.status().message() << "\n";
    return kExitRefused;
  }
  if (parsed(cli.status_command)) return RunJobStatus(**source, cli.job_id, service.json, Console());
  if (parsed(cli.jobs_command)) return RunListJobs(**source, service.json, Console());
  if (parsed(cli.best_command)) return RunBestRecords(**source, cli.job_id, service.json, Console());
  return RunExportJob(**source, cli.job_id, cli.out_dir, service.json, Console());
}

}  // namespace pruner
