#include "client/service_connection.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "common/base/status_macros.h"

namespace pruner {
namespace {

std::string FromEnv(const EnvLookup& env, const char* name) {
  const char* value = env ? env(name) : nullptr;
  return value ? std::string(value) : std::string();
}

}  // namespace

ServiceFlags WithEnvironmentDefaults(ServiceFlags flags, const EnvLookup& env) {
  if (flags.server.empty()) flags.server = FromEnv(env, "PRUNER_SERVER");
  if (flags.server.empty()) flags.server = kDefaultServerAddress;
  if (flags.token_file.empty()) flags.token_file = FromEnv(env, "PRUNER_TOKEN_FILE");
  if (flags.token_file.empty() && flags.token.empty()) flags.token = FromEnv(env, "PRUNER_TOKEN");
  return flags;
}

void ServiceConnection::Prepare(grpc::ClientContext* context, bool deadline) const {
  AttachToken(context, security);
  if (deadline && rpc_timeout_s > 0 && std::isfinite(rpc_timeout_s)) {
    context->set_deadline(std::chrono::system_clock::now() +
                          std::chrono::milliseconds(static_cast<int64_t>(rpc_timeout_s * 1e3)));
  }
}

absl::StatusOr<ServiceConnection> Connect(const ServiceFlags& flags) {
  ServiceConnection connection;
  connection.address = flags.server.empty() ? std::string(kDefaultServerAddress) : flags.server;
  connection.rpc_timeout_s = flags.rpc_timeout_s;
  connection.security.tls_ca_file = flags.tls_ca_file;
  connection.security.tls_server_name = flags.tls_server_name;
  if (!flags.token_file.empty()) {
    auto token = ReadTokenFile(flags.token_file);
    if (!token.ok()) return token.status();
    connection.security.token = *std::move(token);
  } else {
    connection.security.token = flags.token;
  }
  PRUNER_ASSIGN_OR_RETURN(auto channel, MakeChannel(connection.address, connection.security));
  connection.stub = v1::TuningService::NewStub(channel);
  connection.admin_stub = v1::AdminService::NewStub(channel);
  return connection;
}

absl::Status RpcErrorStatus(const grpc::Status& status, const std::string& address) {
  const std::string described = DescribeRpcError(status, address);
  absl::string_view text = described;
  absl::ConsumePrefix(&text, "error: ");
  absl::ConsumeSuffix(&text, "\n");
  return absl::Status(static_cast<absl::StatusCode>(status.error_code()), text);
}

std::string DescribeRpcError(const grpc::Status& status, const std::string& address) {
  std::string text = status.error_message().empty()
                         ? absl::StrCat("error: the call failed with gRPC code ",
                                        static_cast<int>(status.error_code()), "\n")
                         : absl::StrCat("error: ", status.error_message(), "\n");
  switch (status.error_code()) {
    case grpc::StatusCode::UNAVAILABLE:
      absl::StrAppend(&text, "hint: is the server running at ", address,
                      "? (deploy/local-farm.sh start)\n");
      break;
    case grpc::StatusCode::UNAUTHENTICATED:
      absl::StrAppend(&text, "hint: pass --token-file or set PRUNER_TOKEN_FILE\n");
      break;
    case grpc::StatusCode::PERMISSION_DENIED:
      absl::StrAppend(&text,
                      "hint: the server knows this token but its role may not do this; clients "
                      "submit and read, workers measure, admins purge and release workers\n");
      break;
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      // A submit or cancel may still have happened: say where to look.
      absl::StrAppend(&text, "hint: the server at ", address,
                      " did not answer in time; the call may still take effect (see `pruner "
                      "jobs`)\n");
      break;
    default:
      break;
  }
  return text;
}

}  // namespace pruner
