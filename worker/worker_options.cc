#include "worker/worker_options.h"

#include <unistd.h>

#include "absl/strings/str_cat.h"

namespace pruner {

absl::Status ValidateWorkerOptions(const WorkerOptions& o) {
  if (o.server_address.empty()) return absl::InvalidArgumentError("--server: no address given");
  if (o.slots < 1 || o.slots > 256) {
    return absl::InvalidArgumentError(absl::StrCat("--slots ", o.slots, ": must be in [1, 256]"));
  }
  if (o.max_candidates < 1 || o.max_candidates > 4096) {
    return absl::InvalidArgumentError(
        absl::StrCat("--max-candidates ", o.max_candidates, ": must be in [1, 4096]"));
  }
  if (o.build_jobs < 1 || o.build_jobs > 256) {
    return absl::InvalidArgumentError(
        absl::StrCat("--build-jobs ", o.build_jobs, ": must be in [1, 256]"));
  }
  if (o.wait_ms < 0 || o.wait_ms > 600000) {
    return absl::InvalidArgumentError(
        absl::StrCat("--wait-ms ", o.wait_ms, ": must be in [0, 600000]"));
  }
  if (o.rpc_timeout.count() <= 0 || o.report_timeout.count() <= 0 ||
      o.stop_report_timeout.count() <= 0) {
    return absl::InvalidArgumentError("RPC timeouts must be positive");
  }
  return absl::OkStatus();
}

std::string DefaultWorkerName(const std::string& host, const std::string& device_key) {
  return absl::StrCat(host, "/", device_key, "/", getpid());
}

std::string LocalHostName() {
  char name[256] = {};
  if (gethostname(name, sizeof(name) - 1) != 0 || name[0] == '\0') return "localhost";
  return name;
}

}  // namespace pruner
