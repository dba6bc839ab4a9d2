#include "server/access_control.h"

#include <sys/stat.h>

#include <fstream>
#include <set>
#include <sstream>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/base/absl_compat.h"
#include "common/base/status_macros.h"
#include "openssl/crypto.h"
#include "openssl/evp.h"
#include "proto/daemon_log.h"

namespace pruner {
namespace {

constexpr std::string_view kBearer = "Bearer ";
constexpr std::string_view kSha256Prefix = "sha256:";
// A token short enough to guess is refused at load time.
constexpr size_t kMinTokenLength = 16;

std::array<uint8_t, 32> Sha256(std::string_view text) {
  std::array<uint8_t, 32> digest{};
  unsigned int length = 0;
  EVP_Digest(text.data(), text.size(), digest.data(), &length, EVP_sha256(), nullptr);
  return digest;
}

bool ParseHexDigest(std::string_view hex, std::array<uint8_t, 32>* out) {
  if (hex.size() != 64) return false;
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  for (size_t i = 0; i < 32; ++i) {
    const int hi = nibble(hex[2 * i]), lo = nibble(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return false;
    (*out)[i] = static_cast<uint8_t>(hi * 16 + lo);
  }
  return true;
}

bool ValidName(std::string_view name) {
  if (name.empty() || name.size() > 128) return false;
  for (char c : name) {
    // Worker names are host names, or "host/N" as the systemd unit makes them.
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && std::string_view("-_./:@").find(c) ==
                                                                   std::string_view::npos) {
      return false;
    }
  }
  return true;
}

// The presented bearer token, or an UNAUTHENTICATED status.
grpc::Status BearerToken(const grpc::ServerContext& context, std::string_view* token) {
  const auto& metadata = context.client_metadata();
  auto it = metadata.find("authorization");
  if (it == metadata.end()) {
    return grpc::Status(grpc::StatusCode::UNAUTHENTICATED,
                        "this server requires a token: pass --token-file or set PRUNER_TOKEN");
  }
  std::string_view value(it->second.data(), it->second.size());
  if (!value.starts_with(kBearer)) {
    return grpc::Status(grpc::StatusCode::UNAUTHENTICATED, "invalid token");
  }
  value.remove_prefix(kBearer.size());
  *token = value;
  return grpc::Status::OK;
}

grpc::Status Denied(const Principal& who, std::string_view call, Role needed) {
  return grpc::Status(
      grpc::StatusCode::PERMISSION_DENIED,
      absl::StrCat(ToAbsl(call), needed == Role::kAdmin ? " needs an " : " needs a ",
                   RoleName(needed), " credential; this one is ",
                   RoleName(who.role), " '", who.name, "'"));
}

// The file's credentials: NotFound when it cannot be read, InvalidArgument
// when it does not parse or lists nobody.
absl::StatusOr<std::vector<Credential>> LoadCredentials(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read credentials file '", path, "'"));
  std::ostringstream text;
  text << in.rdbuf();
  PRUNER_ASSIGN_OR_RETURN(std::vector<Credential> credentials, ParseCredentials(text.str(), path));
  if (credentials.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("credentials file '", path, "' lists no credential"));
  }
  return credentials;
}

}  // namespace

const char* RoleName(Role role) {
  switch (role) {
    case Role::kClient: return "client";
    case Role::kWorker: return "worker";
    case Role::kAdmin: return "admin";
  }
  return "?";
}

bool Principal::MayActAsWorker(std::string_view worker_name) const {
  return any_role || (role == Role::kWorker && name == worker_name);
}

absl::StatusOr<std::vector<Credential>> ParseCredentials(std::string_view text,
                                                         std::string_view source) {
  std::vector<Credential> credentials;
  std::set<std::pair<Role, std::string>> names;
  std::set<std::array<uint8_t, 32>> digests;
  int line_number = 0;
  for (absl::string_view line : absl::StrSplit(ToAbsl(text), '\n')) {
    ++line_number;
    if (size_t hash = line.find('#'); hash != absl::string_view::npos) line = line.substr(0, hash);
    std::vector<std::string_view> fields;
    for (absl::string_view field :
         absl::StrSplit(line, absl::ByAnyChar(" \t\r"), absl::SkipEmpty())) {
      fields.push_back(FromAbsl(field));
    }
    if (fields.empty()) continue;
    auto bad = [&](std::string_view why) {
      return absl::InvalidArgumentError(
          absl::StrCat(ToAbsl(source), ":", line_number, ": ", ToAbsl(why)));
    };
    if (fields.size() != 3) return bad("expected 'ROLE NAME TOKEN' (three fields)");
    Credential c;
    if (fields[0] == "client") {
      c.role = Role::kClient;
    } else if (fields[0] == "worker") {
      c.role = Role::kWorker;
    } else if (fields[0] == "admin") {
      c.role = Role::kAdmin;
    } else {
      return bad(absl::StrCat("unknown role '", ToAbsl(fields[0]), "' (client, worker or admin)"));
    }
    if (!ValidName(fields[1])) {
      return bad(absl::StrCat("name '", ToAbsl(fields[1]), "' must be 1-128 of [A-Za-z0-9._/:@-]"));
    }
    c.name = std::string(fields[1]);
    std::string_view token = fields[2];
    if (token.starts_with(kSha256Prefix)) {
      if (!ParseHexDigest(token.substr(kSha256Prefix.size()), &c.token_sha256)) {
        return bad("a sha256: token needs 64 hex digits");
      }
    } else {
      if (token.size() < kMinTokenLength) {
        return bad(absl::StrCat("token shorter than ", kMinTokenLength,
                                " characters (openssl rand -hex 32 makes a good one)"));
      }
      c.token_sha256 = Sha256(token);
    }
    if (!names.insert({c.role, c.name}).second) {
      return bad(absl::StrCat(RoleName(c.role), " '", c.name, "' is listed twice"));
    }
    if (!digests.insert(c.token_sha256).second) {
      return bad("this token is already given to another credential (each needs its own)");
    }
    credentials.push_back(std::move(c));
  }
  return credentials;
}

AccessControl::AccessControl(Mode mode, std::string shared_token, std::string path)
    : mode_(mode), shared_token_(std::move(shared_token)), path_(std::move(path)) {}

std::unique_ptr<AccessControl> AccessControl::Open() {
  return std::unique_ptr<AccessControl>(new AccessControl(Mode::kOpen, "", ""));
}

std::unique_ptr<AccessControl> AccessControl::SharedToken(std::string token) {
  if (token.empty()) return Open();
  return std::unique_ptr<AccessControl>(
      new AccessControl(Mode::kSharedToken, std::move(token), ""));
}

absl::StatusOr<std::unique_ptr<AccessControl>> AccessControl::FromFile(std::string path) {
  // The stamp before the read: an edit in between is read again next call.
  const FileStamp stamp = StampOf(path);
  PRUNER_ASSIGN_OR_RETURN(std::vector<Credential> credentials, LoadCredentials(path));
  std::unique_ptr<AccessControl> access(new AccessControl(Mode::kFile, "", std::move(path)));
  std::lock_guard<std::mutex> lock(access->mu_);
  access->stamp_ = stamp;
  access->credentials_ = std::move(credentials);
  return access;
}

AccessControl::FileStamp AccessControl::StampOf(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return {};
  return {static_cast<int64_t>(st.st_size),
          static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec,
          static_cast<int64_t>(st.st_ino)};
}

void AccessControl::ReloadIfChanged() {
  const FileStamp now = StampOf(path_);
  if (now == stamp_) return;
  stamp_ = now;
  absl::StatusOr<std::vector<Credential>> credentials = LoadCredentials(path_);
  if (!credentials.ok()) {
    LogError(absl::StrCat(credentials.status().message(),
                          "; the previous credentials stay in force"));
    return;
  }
  credentials_ = *std::move(credentials);
  LogInfo(absl::StrCat("credentials reloaded from '", path_, "': ", credentials_.size(),
                       " credentials"));
}

grpc::Status AccessControl::Authorize(const grpc::ServerContext& context, Role needed,
                                      std::string_view call, Principal* caller) {
  Principal ignored;
  Principal* who = caller != nullptr ? caller : &ignored;
  *who = Principal{};
  if (mode_ == Mode::kOpen) {
    who->any_role = true;
    return grpc::Status::OK;
  }
  std::string_view token;
  if (grpc::Status st = BearerToken(context, &token); !st.ok()) return st;
  if (mode_ == Mode::kSharedToken) {
    if (token.size() != shared_token_.size() ||
        CRYPTO_memcmp(token.data(), shared_token_.data(), token.size()) != 0) {
      return grpc::Status(grpc::StatusCode::UNAUTHENTICATED, "invalid token");
    }
    who->any_role = true;
    return grpc::Status::OK;
  }
  const std::array<uint8_t, 32> digest = Sha256(token);
  std::lock_guard<std::mutex> lock(mu_);
  ReloadIfChanged();
  const Credential* found = nullptr;
  // Every entry is compared, in constant time, whatever matches.
  for (const Credential& c : credentials_) {
    if (CRYPTO_memcmp(c.token_sha256.data(), digest.data(), digest.size()) == 0) found = &c;
  }
  if (found == nullptr) {
    return grpc::Status(grpc::StatusCode::UNAUTHENTICATED, "invalid or revoked token");
  }
  who->name = found->name;
  who->role = found->role;
  const bool allowed = found->role == needed || (found->role == Role::kAdmin && needed == Role::kClient);
  if (!allowed) return Denied(*who, call, needed);
  return grpc::Status::OK;
}

std::string AccessControl::Describe() {
  switch (mode_) {
    case Mode::kOpen: return "no token";
    case Mode::kSharedToken: return "shared token required";
    case Mode::kFile: break;
  }
  std::lock_guard<std::mutex> lock(mu_);
  int counts[3] = {0, 0, 0};
  for (const Credential& c : credentials_) ++counts[static_cast<int>(c.role)];
  return absl::StrCat("credentials file ", path_, " (", counts[0], " clients, ", counts[1],
                      " workers, ", counts[2], " admins)");
}

}  // namespace pruner
