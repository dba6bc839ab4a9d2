// Where the tuning service is and how to reach it: the flags every service
// command shares, their environment defaults, the channel with TLS and the
// bearer token, and what to tell the user when a call fails.
#ifndef PRUNER_CLIENT_SERVICE_CONNECTION_H_
#define PRUNER_CLIENT_SERVICE_CONNECTION_H_

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "grpcpp/grpcpp.h"
#include "proto/rpc_credentials.h"
#include "pruner/v1/admin_service.grpc.pb.h"
#include "pruner/v1/tuning_service.grpc.pb.h"

namespace pruner {

inline constexpr char kDefaultServerAddress[] = "127.0.0.1:7070";

struct ServiceFlags {
  std::string server;           // host:port of the scheduler server
  std::string token_file;       // first line is the bearer token; wins over `token`
  std::string token;            // the token itself (from $PRUNER_TOKEN only: not a flag,
                                // so it never shows in `ps`)
  std::string tls_ca_file;      // PEM to trust; enables TLS
  std::string tls_server_name;  // name in the server's certificate, if not the host
  bool json = false;            // print replies as JSON instead of tables
  // Every call but WatchJob has this deadline: a server that accepts the
  // connection and never answers must not hang a script.
  double rpc_timeout_s = 30;
};

// The environment as a function, so tests need not touch the real one.
using EnvLookup = std::function<const char*(const char*)>;

// Fills what the flags leave empty: server from $PRUNER_SERVER, else
// kDefaultServerAddress; token file from $PRUNER_TOKEN_FILE; failing both, a
// literal token from $PRUNER_TOKEN.
ServiceFlags WithEnvironmentDefaults(ServiceFlags flags, const EnvLookup& env);

// A stub with the security its calls need.
struct ServiceConnection {
  std::string address;
  ClientSecurity security;
  double rpc_timeout_s = 30;
  std::unique_ptr<v1::TuningService::Stub> stub;
  std::unique_ptr<v1::AdminService::Stub> admin_stub;  // same channel

  v1::TuningService::Stub& StubFor(const v1::TuningService::Stub*) const { return *stub; }
  v1::AdminService::Stub& StubFor(const v1::AdminService::Stub*) const { return *admin_stub; }

  // Attaches the token and, when `deadline` is set, the call's deadline.
  void Prepare(grpc::ClientContext* context, bool deadline = true) const;
};

// Reads the token file and the CA; errors name the file. Connecting is lazy
// (the first call connects), so an unreachable server shows up as the
// call's UNAVAILABLE.
absl::StatusOr<ServiceConnection> Connect(const ServiceFlags& flags);

// "error: <server message>\n" followed by what to do about it when there is
// something to say: start the server (UNAVAILABLE), pass a token
// (UNAUTHENTICATED), wait or raise the deadline (DEADLINE_EXCEEDED).
// Refusals (INVALID_ARGUMENT, NOT_FOUND, RESOURCE_EXHAUSTED, ...) speak for
// themselves and get no hint.
std::string DescribeRpcError(const grpc::Status& status, const std::string& address);

// The same as a status: the gRPC code, and DescribeRpcError's text without
// its "error: " prefix and last newline (so "error: " + message prints it).
absl::Status RpcErrorStatus(const grpc::Status& status, const std::string& address);

template <typename Stub, typename Request, typename Reply>
using ServiceCall = grpc::Status (Stub::*)(grpc::ClientContext*, const Request&, Reply*);
template <typename Request, typename Reply>
using TuningServiceCall = ServiceCall<v1::TuningService::Stub, Request, Reply>;

// Connects and makes one unary call (TuningService or AdminService) under
// the deadline.
template <typename Stub, typename Request, typename Reply>
absl::StatusOr<Reply> CallServer(const ServiceFlags& flags,
                                        ServiceCall<Stub, Request, Reply> call,
                                        const Request& request) {
  absl::StatusOr<ServiceConnection> connection = Connect(flags);
  if (!connection.ok()) return connection.status();
  grpc::ClientContext context;
  connection->Prepare(&context);
  Reply reply;
  Stub& stub = connection->StubFor(static_cast<const Stub*>(nullptr));
  const grpc::Status status = (stub.*call)(&context, request, &reply);
  if (!status.ok()) return RpcErrorStatus(status, connection->address);
  return reply;
}

}  // namespace pruner

#endif  // PRUNER_CLIENT_SERVICE_CONNECTION_H_
