// pruner-worker: measures candidate schedules for a pruner server.
//
//   pruner-worker --server 10.0.0.5:7070 --tls-ca ca.pem --token-file token --device a100
//
// Exit status: 0 after SIGTERM/SIGINT (the current chunk of each lease is
// finished, the rest reported back for re-queueing); 2 for a configuration
// the worker cannot start with (unknown device, no GPU for a GPU profile,
// unreadable token or CA file); 3 when the server refuses the credentials;
// 1 for any other fatal error (the server refused the registration).
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include "CLI/CLI.hpp"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/base/absl_compat.h"
#include "google/protobuf/util/json_util.h"
#include "proto/daemon_log.h"
#include "proto/rpc_credentials.h"
#include "worker/worker_daemon.h"
#include "worker/worker_device.h"
#include "worker/worker_options.h"

namespace pruner {
namespace {

constexpr int kExitFatal = 1;
constexpr int kExitConfiguration = 2;
constexpr int kExitBadCredentials = 3;

int g_signal_pipe[2] = {-1, -1};
pid_t g_main_pid = 0;

// Writes the signal number to a pipe that a watcher thread reads: Stop()
// takes a lock, which a signal handler must not.
extern "C" void OnStopSignal(int signal) {
  // Sandbox children are forks of this process and inherit the handler. A
  // SIGTERM sent to the whole group must neither end a child's timed run
  // early nor be taken for a second signal: only the daemon stops them.
  if (getpid() != g_main_pid) return;
  const int saved_errno = errno;
  const unsigned char byte = static_cast<unsigned char>(signal);
  [[maybe_unused]] const ssize_t n = write(g_signal_pipe[1], &byte, 1);
  errno = saved_errno;
}

bool InstallStopSignals() {
  g_main_pid = getpid();
  if (pipe2(g_signal_pipe, O_CLOEXEC) != 0) return false;
  struct sigaction action = {};
  action.sa_handler = OnStopSignal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  return sigaction(SIGTERM, &action, nullptr) == 0 && sigaction(SIGINT, &action, nullptr) == 0;
}

// The first signal stops the daemon gracefully; a second one exits at once.
// A zero byte (written by main) ends the watcher.
void WatchStopSignals(WorkerDaemon* daemon) {
  int received = 0;
  while (true) {
    unsigned char byte = 0;
    const ssize_t n = read(g_signal_pipe[0], &byte, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n != 1 || byte == 0) return;
    const char* name = sigabbrev_np(byte);
    if (++received == 1) {
      LogInfo(absl::StrCat("SIG", name != nullptr ? name : "?",
                             ": stopping after the current measurement "
                             "(signal again to exit now)"));
      daemon->Stop();
    } else {
      LogInfo("second signal: exiting now, abandoning the current measurement");
      _exit(128 + byte);
    }
  }
}

int ExitCodeFor(const absl::Status& status) {
  if (status.ok()) return 0;
  if (absl::IsUnauthenticated(status) || absl::IsPermissionDenied(status)) {
    return kExitBadCredentials;
  }
  if (absl::IsInvalidArgument(status) || absl::IsNotFound(status)) return kExitConfiguration;
  return kExitFatal;
}

int ShowDevice(const WorkerDevice& device) {
  std::string json;
  google::protobuf::util::JsonPrintOptions print;
  print.add_whitespace = true;
  print.preserve_proto_field_names = true;
  if (!google::protobuf::util::MessageToJsonString(WorkerDeviceToWire(device), &json, print).ok()) {
    return kExitFatal;
  }
  std::fputs(json.c_str(), stdout);
  return 0;
}

int Main(int argc, char** argv) {
  CLI::App app{"pruner-worker: leases candidate schedules from a pruner server, builds, runs, "
               "checks and times them in a sandbox, and reports the results."};
  WorkerOptions options;
  std::string token_file;
  std::string device_name = "cpu";
  bool show_device = false;
  app.add_option("--server", options.server_address, "server address HOST:PORT")
      ->envname("PRUNER_SERVER")
      ->capture_default_str();
  app.add_option("--token-file", token_file,
                 "file whose first line is the server's token (else env PRUNER_TOKEN)")
      ->envname("PRUNER_TOKEN_FILE");
  app.add_option("--tls-ca", options.security.tls_ca_file,
                 "PEM of the CA that signed the server's certificate; enables TLS")
      ->envname("PRUNER_TLS_CA");
  app.add_option("--tls-server-name", options.security.tls_server_name,
                 "name expected in the server's certificate, if not the host of --server")
      ->envname("PRUNER_TLS_SERVER_NAME");
  app.add_option("--name", options.name, "unique worker name (default HOST/DEVICE/PID)")
      ->envname("PRUNER_WORKER_NAME");
  app.add_option("--slots", options.slots, "leases held at once (one thread each)")
      ->envname("PRUNER_SLOTS")
      ->check(CLI::Range(1, 256))
      ->capture_default_str();
  app.add_option("--device", device_name,
                 "'cpu' (this machine's CPU) or a GPU profile (a100, h100, h200, orin, titan-v)")
      ->envname("PRUNER_DEVICE")
      ->capture_default_str();
  app.add_option("--max-candidates", options.max_candidates, "candidates per lease")
      ->check(CLI::Range(1, 4096))
      ->capture_default_str();
  app.add_option("--build-jobs", options.build_jobs,
                 "compilers each slot runs at once (a lease is measured in chunks of this many)")
      ->check(CLI::Range(1, 256))
      ->capture_default_str();
  app.add_option("--wait-ms", options.wait_ms, "long poll of a lease request, ms")
      ->check(CLI::Range(0, 600000))
      ->capture_default_str();
  app.add_option("--work-dir", options.work_dir,
                 "where kernels are built (default: a fresh directory under $TMPDIR per batch)")
      ->envname("PRUNER_WORK_DIR");
  std::string cpu_backend = CpuBackendName(options.cpu_build.backend);
  app.add_option("--cpu-backend", cpu_backend,
                 "CPU kernels: 'llvm' (in process) or 'gcc' (generated C++ built by --cxx)")
      ->envname("PRUNER_CPU_BACKEND")
      ->capture_default_str();
  app.add_option("--cxx", options.cpu_build.compiler,
                 "compiler of the gcc backend (a cross compiler under an emulator, e.g. "
                 "aarch64-linux-gnu-g++)")
      ->envname("PRUNER_CXX")
      ->capture_default_str();
  app.add_option("--march", options.cpu_build.march,
                 "-march of CPU kernels ('native': this host's CPU; '' passes none)")
      ->envname("PRUNER_MARCH")
      ->capture_default_str();
  app.add_flag("--show-device", show_device,
               "print the device this worker would register, as JSON, and exit");
  std::string log_level = "info";
  app.add_option("--log-level", log_level, "debug, info, warning or error")->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  if (absl::Status logging = InitDaemonLog("pruner-worker", log_level); !logging.ok()) {
    std::fprintf(stderr, "pruner-worker: %s\n", std::string(logging.message()).c_str());
    return kExitConfiguration;
  }

  if (auto backend = ParseCpuBackend(cpu_backend); backend.has_value()) {
    options.cpu_build.backend = *backend;
  } else {
    std::fprintf(stderr, "pruner-worker: --cpu-backend '%s': expected 'llvm' or 'gcc'\n",
                 cpu_backend.c_str());
    return kExitConfiguration;
  }
  auto device = ResolveWorkerDevice(device_name);
  if (!device.ok()) {
    std::fprintf(stderr, "pruner-worker: %s\n", std::string(device.status().message()).c_str());
    return kExitConfiguration;
  }
  if (show_device) return ShowDevice(*device);

  if (!token_file.empty()) {
    auto token = ReadTokenFile(token_file);
    if (!token.ok()) {
      std::fprintf(stderr, "pruner-worker: %s\n", std::string(token.status().message()).c_str());
      return kExitConfiguration;
    }
    options.security.token = *std::move(token);
  } else if (const char* token = std::getenv("PRUNER_TOKEN"); token != nullptr) {
    options.security.token = token;
  }

  if (!InstallStopSignals()) {
    std::perror("pruner-worker: installing signal handlers");
    return kExitFatal;
  }
  WorkerDaemon daemon(std::move(options), *std::move(device));
  LogInfo(absl::StrCat("pruner-worker ", daemon.name(), " starting"));
  std::thread watcher(WatchStopSignals, &daemon);
  const absl::Status status = daemon.Run();
  const unsigned char done = 0;
  [[maybe_unused]] const ssize_t n = write(g_signal_pipe[1], &done, 1);
  watcher.join();
  if (!status.ok()) {
    LogError(FromAbsl(status.message()));
    return ExitCodeFor(status);
  }
  LogInfo("stopped");
  return 0;
}

}  // namespace
}  // namespace pruner

int main(int argc, char** argv) { return pruner::Main(argc, argv); }
