// The service commands' place on the `pruner` command line: their flags
// (CLI11) and the dispatch to service_commands.h. `status`, `jobs`, `best`
// and `export` read jobs from a JobSource (job_source.h): the server, or
// with --db FILE a local records database; the choice is made once, in
// RunParsedServiceCommand.
#ifndef PRUNER_CLIENT_SERVICE_CLI_H_
#define PRUNER_CLIENT_SERVICE_CLI_H_

#include <cstdint>
#include <optional>
#include <string>

#include "CLI/CLI.hpp"
#include "client/job_source.h"
#include "client/service_connection.h"
#include "client/submit_spec.h"

namespace pruner {

// Where CLI11 puts what it parsed; one object serves every service command
// (only one subcommand runs).
struct ServiceCli {
  ServiceFlags service;
  SubmitFlags submit;
  int64_t job_id = 0;
  std::string db;       // status/jobs/best/export: read this database instead of the server
  std::string out_dir;  // export
  std::string worker_name;  // admin purge-worker / release-worker
  bool dry_run = false;     // admin purge-worker

  CLI::App* submit_command = nullptr;
  CLI::App* watch_command = nullptr;
  CLI::App* status_command = nullptr;
  CLI::App* cancel_command = nullptr;
  CLI::App* workers_command = nullptr;
  CLI::App* jobs_command = nullptr;
  CLI::App* best_command = nullptr;
  CLI::App* export_command = nullptr;
  CLI::App* admin_purge_command = nullptr;
  CLI::App* admin_release_command = nullptr;
};

// --server, --token-file, --tls-ca, --tls-server-name and --json, in the
// help's "Service" group.
void AddServiceFlags(CLI::App* command, ServiceFlags* flags);

// Adds submit, watch, cancel, workers and admin (the server's), and status,
// jobs, best and export (the server's, or a database's with --db) to `app`.
void AddServiceCommands(CLI::App* app, ServiceCli* cli);

// The exit code of whichever of those commands was parsed; nullopt when the
// command line named another one. `watch` and `submit --watch` stop
// watching on Ctrl-C (a second Ctrl-C kills the process). `open_local`
// opens --db (null: --db is refused).
std::optional<int> RunParsedServiceCommand(const ServiceCli& cli,
                                           LocalJobSourceOpener open_local);

}  // namespace pruner

#endif  // PRUNER_CLIENT_SERVICE_CLI_H_
