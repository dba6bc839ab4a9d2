// Who may call what. Three roles, each with its own credentials:
// - client: submit, watch, cancel and read jobs, workers and records
//   (TuningService);
// - worker: register, heartbeat, lease and report (WorkerService), under
//   the one worker name its credential is bound to;
// - admin: everything a client may, plus the farm's housekeeping
//   (AdminService: purge a worker's records, release a quarantined worker).
// A worker's token cannot cancel a team's job, and a leaked client token
// cannot register a worker.
//
// Credentials live in a file, one per line:
//
//   # role   name      token (or sha256:<64 hex digits> of the token)
//   client   alice     4c1f…
//   worker   edge-01   sha256:9f86d0…
//   admin    ops       77aa…
//
// The file is re-read whenever it changes (checked on every call), so a
// token is revoked by deleting its line: no restart. A file that cannot be
// read or does not parse leaves the last good table in force and is logged.
//
// Two simpler modes remain for one-person setups: one shared token (every
// role, no names), and no token at all (loopback only; see
// rpc_credentials.h).
#ifndef PRUNER_SERVER_ACCESS_CONTROL_H_
#define PRUNER_SERVER_ACCESS_CONTROL_H_

#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "grpcpp/grpcpp.h"

namespace pruner {

enum class Role { kClient, kWorker, kAdmin };
const char* RoleName(Role role);  // "client", "worker", "admin"

// Who made a call, once authorized.
struct Principal {
  std::string name;  // empty: shared token or open server (no identity)
  Role role = Role::kAdmin;
  bool any_role = false;  // shared token or open server: every call allowed

  // True when a worker of this name may act for a worker registered as
  // `worker_name`: named worker credentials act only for themselves.
  bool MayActAsWorker(std::string_view worker_name) const;
};

struct Credential {
  Role role = Role::kClient;
  std::string name;
  std::array<uint8_t, 32> token_sha256{};
};

// Parses a credentials file's text; errors give `source` and the line.
absl::StatusOr<std::vector<Credential>> ParseCredentials(std::string_view text,
                                                         std::string_view source);

class AccessControl {
 public:
  // Every call allowed (loopback without a token).
  static std::unique_ptr<AccessControl> Open();
  // One bearer token for every role.
  static std::unique_ptr<AccessControl> SharedToken(std::string token);
  // Per-role credentials from `path`, re-read when it changes. Fails when
  // the file cannot be read, does not parse, or names no credential.
  static absl::StatusOr<std::unique_ptr<AccessControl>> FromFile(std::string path);

  // OK and `*who` (if given) filled, UNAUTHENTICATED (no or unknown token) or
  // PERMISSION_DENIED (a known token whose role may not make `call`).
  // Admins may make every client call; workers only worker calls.
  grpc::Status Authorize(const grpc::ServerContext& context, Role needed, std::string_view call,
                         Principal* who);

  // "no token", "shared token", or "credentials file F (2 clients, 3 workers, 1 admin)".
  std::string Describe();

 private:
  enum class Mode { kOpen, kSharedToken, kFile };
  AccessControl(Mode mode, std::string shared_token, std::string path);
  struct FileStamp {
    int64_t size = -1, mtime_ns = -1, inode = -1;
    bool operator==(const FileStamp&) const = default;
  };
  static FileStamp StampOf(const std::string& path);  // all -1 when absent
  // Re-reads the file when its size, mtime or inode changed.
  void ReloadIfChanged();

  const Mode mode_;
  const std::string shared_token_;
  const std::string path_;
  std::mutex mu_;
  std::vector<Credential> credentials_;  // guarded by mu_
  FileStamp stamp_;  // guarded by mu_
};

}  // namespace pruner

#endif  // PRUNER_SERVER_ACCESS_CONTROL_H_
