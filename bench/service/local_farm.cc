#include "bench/service/local_farm.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>

#include "absl/strings/str_cat.h"
#include "proto/rpc_credentials.h"

namespace pruner::e2e {
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string RandomToken() {
  std::random_device rd;
  std::string token;
  const char* hex = "0123456789abcdef";
  for (int i = 0; i < 32; ++i) token += hex[rd() % 16];
  return token;
}

}  // namespace

Farm::Farm(FarmOptions options) : options_(options) {
  char pattern[] = "/tmp/pruner-farm-XXXXXX";
  dir_ = mkdtemp(pattern);
  token_ = RandomToken();
  std::ofstream(token_file()) << token_ << "\n";
}

Farm::~Farm() {
  for (Process& w : workers_) {
    if (w.pid > 0) Kill(w, SIGKILL);
  }
  if (server_.pid > 0) Kill(server_, SIGKILL);
  if (std::getenv("PRUNER_KEEP_FARM") == nullptr) {
    std::system(("rm -rf " + dir_).c_str());
  }
}

Process Farm::Spawn(const std::string& binary, const std::vector<std::string>& args,
                    const std::string& log_name) {
  Process p;
  p.log_path = absl::StrCat(dir_, "/", log_name, ".log");
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid == 0) {
    // Die with the test, whatever happens to it.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(1);
    const int fd = open(p.log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    dup2(fd, 1);
    dup2(fd, 2);
    unsetenv("PRUNER_TOKEN");
    unsetenv("PRUNER_TOKEN_FILE");
    unsetenv("PRUNER_SERVER");
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(binary.c_str()));
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(binary.c_str(), argv.data());
    _exit(127);
  }
  p.pid = pid;
  return p;
}

bool Farm::StartServer(int port, std::string* error) {
  const std::string port_file = dir_ + "/port";
  std::remove(port_file.c_str());
  std::vector<std::string> args = {
      "--listen",          absl::StrCat("127.0.0.1:", port),
      "--db",              db_path(),
      "--port-file",       port_file,
      "--lease-timeout-ms", std::to_string(options_.lease_timeout_ms),
      "--heartbeat-ms",    std::to_string(options_.heartbeat_ms),
      "--max-running-jobs", std::to_string(options_.max_running_jobs),
      "--max-pending-jobs", std::to_string(options_.max_pending_jobs),
      "--max-attempts",    std::to_string(options_.max_attempts)};
  if (!options_.credentials.empty()) {
    std::ofstream(credentials_file()) << options_.credentials;
    args.push_back("--credentials");
    args.push_back(credentials_file());
  } else if (options_.token) {
    args.push_back("--token-file");
    args.push_back(token_file());
  }
  server_ = Spawn(PRUNER_SERVER_BIN, args, "server");
  const bool up = WaitFor(
      [&] {
        std::ifstream in(port_file);
        int p = 0;
        if (in >> p && p > 0) {
          port_ = p;
          return true;
        }
        int status = 0;
        return waitpid(server_.pid, &status, WNOHANG) == server_.pid;  // died: stop waiting
      },
      std::chrono::seconds(20));
  if (!up || port_ == 0) {
    if (error != nullptr) *error = ServerLog();
    return false;
  }
  return true;
}

Process Farm::StartWorker(const std::string& name, const std::vector<std::string>& extra,
                          bool with_token) {
  return StartWorkerCommand(name, {PRUNER_WORKER_BIN}, extra, with_token);
}

Process Farm::StartWorkerCommand(const std::string& name, const std::vector<std::string>& command,
                                 const std::vector<std::string>& extra, bool with_token) {
  std::vector<std::string> args(command.begin() + 1, command.end());
  for (const std::string& a : {std::string("--server"), address(), std::string("--name"), name}) {
    args.push_back(a);
  }
  if (with_token) {
    args.push_back("--token-file");
    args.push_back(token_file());
  }
  for (const std::string& e : extra) args.push_back(e);
  Process p = Spawn(command.front(), args, "worker-" + name);
  workers_.push_back(p);
  return p;
}

int Farm::Kill(Process& process, int signal) {
  if (process.pid <= 0) return -1;
  kill(process.pid, signal);
  int status = 0;
  waitpid(process.pid, &status, 0);
  for (Process& w : workers_) {
    if (w.pid == process.pid) w.pid = -1;
  }
  if (server_.pid == process.pid) server_.pid = -1;
  process.pid = -1;
  return status;
}

void Farm::Signal(const Process& process, int signal) {
  if (process.pid > 0) kill(process.pid, signal);
}

int Farm::WaitExit(Process& process, std::chrono::milliseconds timeout) {
  int status = -1;
  const bool exited = WaitFor(
      [&] { return waitpid(process.pid, &status, WNOHANG) == process.pid; }, timeout);
  if (!exited) return -1;
  for (Process& w : workers_) {
    if (w.pid == process.pid) w.pid = -1;
  }
  process.pid = -1;
  return status;
}

std::string Farm::address() const { return absl::StrCat("127.0.0.1:", port_); }

std::string Farm::Log(const Process& process) const { return ReadFile(process.log_path); }

std::unique_ptr<v1::TuningService::Stub> Farm::Client() const {
  auto channel = MakeChannel(address(), ClientSecurity{});
  return v1::TuningService::NewStub(*channel);
}

std::unique_ptr<v1::WorkerService::Stub> Farm::WorkerStub() const {
  auto channel = MakeChannel(address(), ClientSecurity{});
  return v1::WorkerService::NewStub(*channel);
}

std::unique_ptr<v1::AdminService::Stub> Farm::AdminStub() const {
  auto channel = MakeChannel(address(), ClientSecurity{});
  return v1::AdminService::NewStub(*channel);
}

std::string Farm::WriteTokenFile(const std::string& name, const std::string& token) const {
  const std::string path = dir_ + "/" + name + ".token";
  std::ofstream(path) << token << "\n";
  return path;
}

std::unique_ptr<grpc::ClientContext> Farm::ContextWithToken(std::chrono::milliseconds deadline,
                                                            const std::string& token) const {
  auto context = std::make_unique<grpc::ClientContext>();
  context->set_deadline(std::chrono::system_clock::now() + deadline);
  ClientSecurity security;
  security.token = token;
  AttachToken(context.get(), security);
  return context;
}

std::unique_ptr<grpc::ClientContext> Farm::Context(std::chrono::milliseconds deadline,
                                                   bool with_token) const {
  auto context = std::make_unique<grpc::ClientContext>();
  context->set_deadline(std::chrono::system_clock::now() + deadline);
  if (with_token && options_.token) {
    ClientSecurity security;
    security.token = token_;
    AttachToken(context.get(), security);
  }
  return context;
}

bool Farm::WaitFor(const std::function<bool()>& done, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return done();
}

v1::JobSpec SmallJob(const std::string& target, const std::vector<std::string>& ops,
                     int64_t budget, int per_round, const std::string& strategy) {
  v1::JobSpec spec;
  spec.set_name("e2e");
  for (const std::string& op : ops) spec.add_ops(op);
  spec.set_target(target);
  spec.set_strategy(strategy);
  spec.set_trial_budget(budget);
  spec.set_measures_per_round(per_round);
  spec.mutable_measure()->set_number(1);
  spec.mutable_measure()->set_repeat(2);
  spec.mutable_measure()->set_min_repeat_ms(1);
  spec.mutable_measure()->set_num_threads(1);
  return spec;
}

}  // namespace pruner::e2e
