// The service commands' place on the `pruner` command line: their flags
// (CLI11) and the dispatch to service_commands.h. `jobs`, `best` and
// `export` already exist as in-process commands over a records database;
// pruner_main.cc keeps them and adds the service flags with
// AddServiceFlags, choosing the server when no --db is given (--out for
// export).
#ifndef PRUNER_CLIENT_SERVICE_CLI_H_
#define PRUNER_CLIENT_SERVICE_CLI_H_

#include <cstdint>
#include <optional>
#include <string>

#include "CLI/CLI.hpp"
#include "client/service_connection.h"
#include "client/submit_spec.h"

namespace pruner {

// Where CLI11 puts what it parsed; one object serves every service command
// (only one subcommand runs).
struct ServiceCli {
  ServiceFlags service;
  SubmitFlags submit;
  int64_t job_id = 0;

  CLI::App* submit_command = nullptr;
  CLI::App* watch_command = nullptr;
  CLI::App* status_command = nullptr;
  CLI::App* cancel_command = nullptr;
  CLI::App* workers_command = nullptr;
};

// --server, --token-file, --tls-ca, --tls-server-name and --json, in the
// help's "Service" group.
void AddServiceFlags(CLI::App* command, ServiceFlags* flags);

// Adds submit, watch, status, cancel and workers to `app`.
void AddServiceCommands(CLI::App* app, ServiceCli* cli);

// The exit code of whichever of those commands was parsed; nullopt when the
// command line named another one. `watch` and `submit --watch` stop
// watching on Ctrl-C (a second Ctrl-C kills the process).
std::optional<int> RunParsedServiceCommand(const ServiceCli& cli);

// The server-side `jobs`, `best JOB` and `export JOB --out DIR`. `job_text`
// is the positional argument the in-process command also takes (a workload
// key or a file there), so it is checked to be a job id here.
int RunServiceJobs(const ServiceCli& cli);
int RunServiceBest(const ServiceCli& cli, const std::string& job_text);
int RunServiceExport(const ServiceCli& cli, const std::string& job_text, const std::string& out_dir);

}  // namespace pruner

#endif  // PRUNER_CLIENT_SERVICE_CLI_H_
