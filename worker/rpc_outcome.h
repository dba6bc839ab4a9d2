// How the worker reads the status of a call to the server. Three cases
// decide everything the daemon does next:
// - kAnswered: the server received the call and replied (OK or an error of
//   its own). Results it answered for are never sent again.
// - kUnreachable: no reply came (connection refused or lost, deadline,
//   a server shedding load). Retry with backoff; nothing is lost by sending
//   the same results twice, because the server ignores duplicates.
// - kBadCredentials: the server refused the token. Retrying cannot help, so
//   the daemon stops with this status instead of spinning.
#ifndef PRUNER_WORKER_RPC_OUTCOME_H_
#define PRUNER_WORKER_RPC_OUTCOME_H_

#include <string>

#include "absl/status/status.h"
#include "grpcpp/grpcpp.h"

namespace pruner {

enum class RpcOutcome { kAnswered, kUnreachable, kBadCredentials };

RpcOutcome ClassifyRpcStatus(const grpc::Status& status);

// "UNAVAILABLE: failed to connect to all addresses" for logs.
std::string DescribeRpcStatus(const grpc::Status& status);

// The same code and message as an absl::Status, prefixed with `context`.
absl::Status ToAbslStatus(const grpc::Status& status, const std::string& context);

}  // namespace pruner

#endif  // PRUNER_WORKER_RPC_OUTCOME_H_
