// Transport security shared by the server, the workers and the client.
//
// Policy: on loopback, plain TCP is allowed (the local farm and the tests);
// anywhere else the server refuses to start without TLS *and* tokens (one
// shared token, or a credentials file) unless told explicitly that the
// network is trusted. Calls carry "authorization: Bearer <token>"; the
// server checks it and the caller's role (server/access_control.h).
#ifndef PRUNER_PROTO_RPC_CREDENTIALS_H_
#define PRUNER_PROTO_RPC_CREDENTIALS_H_

#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "grpcpp/grpcpp.h"

namespace pruner {

struct ServerSecurity {
  std::string tls_cert_file;  // PEM; with tls_key_file, enables TLS
  std::string tls_key_file;
  std::string token;          // one token for every role; empty: see credentials_file
  // Per-role credentials (server/access_control.h); excludes `token`.
  std::string credentials_file;
  bool allow_insecure_remote = false;  // --insecure: trusted network, no TLS/token
};

struct ClientSecurity {
  std::string tls_ca_file;  // PEM of the CA (or the self-signed cert) to trust; enables TLS
  std::string tls_server_name;  // expected name in the server's certificate, if not the host
  std::string token;
};

// "127.0.0.1:N", "localhost:N", "[::1]:N", "unix:..." (and "0.0.0.0" is not).
bool IsLoopbackAddress(std::string_view address);

// FailedPrecondition, saying what to add, for a non-loopback address without
// TLS and token (unless allow_insecure_remote); NotFound/InvalidArgument for
// unreadable or half-given certificate files.
absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> MakeServerCredentials(
    std::string_view listen_address, const ServerSecurity& security);

// A channel to `address`: TLS when tls_ca_file is set. HTTP proxies are
// bypassed (a proxy in the environment must not capture loopback traffic).
absl::StatusOr<std::shared_ptr<grpc::Channel>> MakeChannel(const std::string& address,
                                                           const ClientSecurity& security);
// Adds the bearer token (if any) to one call.
void AttachToken(grpc::ClientContext* context, const ClientSecurity& security);

// The first line of `path`, trimmed; errors name the file. Empty path: "".
absl::StatusOr<std::string> ReadTokenFile(const std::string& path);

}  // namespace pruner

#endif  // PRUNER_PROTO_RPC_CREDENTIALS_H_
