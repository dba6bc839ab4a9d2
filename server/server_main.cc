// pruner-server: the central scheduler. See deploy/README.md for running a
// farm and `pruner-server --help` for the flags.
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <thread>

#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"
#include "proto/daemon_log.h"
#include "server/pruner_server.h"

namespace {

std::string EnvOr(const char* name, const std::string& fallback) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? value : fallback;
}

bool WritePortFile(const std::string& path, int port) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp);
    if (!out) return false;
    out << port << "\n";
    if (!out) return false;
  }
  return std::rename(tmp.c_str(), path.c_str()) == 0;
}

}  // namespace

int main(int argc, char** argv) {
  pruner::ServerOptions options;
  std::string port_file;
  std::string token_file = EnvOr("PRUNER_TOKEN_FILE", "");
  int lease_timeout_ms = static_cast<int>(options.dispatcher.lease_timeout.count());
  int heartbeat_ms = static_cast<int>(options.dispatcher.heartbeat_interval.count());

  CLI::App app{"pruner-server: the tuning scheduler (jobs, search, records) for a farm of workers"};
  app.add_option("--listen", options.listen, "host:port to serve on (port 0: any free port)")
      ->capture_default_str();
  app.add_option("--db", options.db, "records database (SQLite)")->capture_default_str();
  app.add_option("--port-file", port_file, "write the selected port here once listening");
  app.add_option("--token-file", token_file,
                 "require this one bearer token from clients and workers, for every role "
                 "(env PRUNER_TOKEN_FILE)");
  options.security.credentials_file = EnvOr("PRUNER_CREDENTIALS_FILE", "");
  app.add_option("--credentials", options.security.credentials_file,
                 "per-role tokens: lines 'ROLE NAME TOKEN' (client, worker, admin), re-read when "
                 "the file changes (env PRUNER_CREDENTIALS_FILE)");
  app.add_option("--tls-cert", options.security.tls_cert_file, "PEM certificate (with --tls-key)");
  app.add_option("--tls-key", options.security.tls_key_file, "PEM private key");
  app.add_flag("--insecure", options.security.allow_insecure_remote,
               "allow a non-loopback address without TLS and token (trusted networks only)");
  app.add_option("--lease-timeout-ms", lease_timeout_ms,
                 "a lease without heartbeat for this long is re-queued")
      ->capture_default_str()
      ->check(CLI::Range(100, 3600000));
  app.add_option("--heartbeat-ms", heartbeat_ms, "heartbeat interval asked of workers")
      ->capture_default_str()
      ->check(CLI::Range(20, 600000));
  app.add_option("--max-attempts", options.dispatcher.max_attempts,
                 "leases a candidate may lose before it is given up")
      ->capture_default_str()
      ->check(CLI::Range(1, 100));
  app.add_option("--max-running-jobs", options.jobs.max_running_jobs, "jobs tuned at once")
      ->capture_default_str()
      ->check(CLI::Range(1, 1024));
  app.add_option("--max-pending-jobs", options.jobs.max_pending_jobs,
                 "jobs allowed to wait; more submissions are refused")
      ->capture_default_str()
      ->check(CLI::Range(0, 100000));
  std::string log_level = "info";
  app.add_option("--log-level", log_level, "debug, info, warning or error")->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  if (absl::Status logging = pruner::InitDaemonLog("pruner-server", log_level); !logging.ok()) {
    std::cerr << "error: " << logging.message() << "\n";
    return 2;
  }
  options.dispatcher.lease_timeout = std::chrono::milliseconds(lease_timeout_ms);
  options.dispatcher.heartbeat_interval = std::chrono::milliseconds(heartbeat_ms);
  if (heartbeat_ms * 2 > lease_timeout_ms) {
    std::cerr << "error: --heartbeat-ms must be at most half of --lease-timeout-ms\n";
    return 2;
  }
  auto token = pruner::ReadTokenFile(token_file);
  if (!token.ok()) {
    std::cerr << "error: " << token.status().message() << "\n";
    return 2;
  }
  options.security.token = *token;
  if (options.security.token.empty() && options.security.credentials_file.empty()) {
    const std::string literal = EnvOr("PRUNER_TOKEN", "");
    options.security.token = literal;
  }

  // Signals are taken by one thread with sigwait, so every other thread
  // (gRPC's, the jobs') must start with them blocked.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  auto server = pruner::PrunerServer::Start(options);
  if (!server.ok()) {
    std::cerr << "error: " << server.status().message() << "\n";
    return 2;
  }
  std::printf("pruner-server listening on %s (db %s, %s, %s; resumed %d jobs)\n",
              (*server)->address().c_str(), options.db.c_str(),
              options.security.tls_cert_file.empty() ? "plaintext" : "TLS",
              (*server)->access_description().c_str(), (*server)->resumed_jobs());
  std::fflush(stdout);
  if (!port_file.empty() && !WritePortFile(port_file, (*server)->port())) {
    std::cerr << "error: cannot write the port file " << port_file << "\n";
    return 2;
  }
  pruner::PrunerServer* raw = server->get();
  std::thread signal_thread([raw, &signals] {
    int signal = 0;
    sigwait(&signals, &signal);
    pruner::LogInfo(absl::StrCat("signal ", signal, ", stopping (jobs stay resumable)"));
    raw->Shutdown();
  });
  (*server)->Wait();
  // Wait() also returns if the server stopped for another reason; make sure
  // the signal thread ends.
  pthread_kill(signal_thread.native_handle(), SIGTERM);
  signal_thread.join();
  return 0;
}
