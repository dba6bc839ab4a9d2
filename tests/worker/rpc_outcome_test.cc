// How the daemon reads call statuses: answered, unreachable (retry), bad
// credentials (stop).
#include "worker/rpc_outcome.h"

#include "gtest/gtest.h"

namespace pruner {
namespace {

TEST(WorkerRpcOutcomeTest, TransportFailuresAreRetried) {
  for (grpc::StatusCode code :
       {grpc::StatusCode::UNAVAILABLE, grpc::StatusCode::DEADLINE_EXCEEDED,
        grpc::StatusCode::RESOURCE_EXHAUSTED, grpc::StatusCode::ABORTED,
        grpc::StatusCode::CANCELLED}) {
    EXPECT_EQ(ClassifyRpcStatus(grpc::Status(code, "x")), RpcOutcome::kUnreachable) << code;
  }
}

TEST(WorkerRpcOutcomeTest, CredentialsStopTheWorker) {
  EXPECT_EQ(ClassifyRpcStatus(grpc::Status(grpc::StatusCode::UNAUTHENTICATED, "x")),
            RpcOutcome::kBadCredentials);
  EXPECT_EQ(ClassifyRpcStatus(grpc::Status(grpc::StatusCode::PERMISSION_DENIED, "x")),
            RpcOutcome::kBadCredentials);
}

TEST(WorkerRpcOutcomeTest, TheServersOwnAnswersCountAsAnswered) {
  EXPECT_EQ(ClassifyRpcStatus(grpc::Status::OK), RpcOutcome::kAnswered);
  for (grpc::StatusCode code :
       {grpc::StatusCode::INVALID_ARGUMENT, grpc::StatusCode::NOT_FOUND,
        grpc::StatusCode::FAILED_PRECONDITION, grpc::StatusCode::INTERNAL}) {
    EXPECT_EQ(ClassifyRpcStatus(grpc::Status(code, "x")), RpcOutcome::kAnswered) << code;
  }
}

TEST(WorkerRpcOutcomeTest, StatusesKeepTheirCodeAndMessage) {
  const grpc::Status refused(grpc::StatusCode::UNAUTHENTICATED, "invalid token");
  EXPECT_EQ(DescribeRpcStatus(refused), "UNAUTHENTICATED: invalid token");
  const absl::Status converted = ToAbslStatus(refused, "server said: ");
  EXPECT_TRUE(absl::IsUnauthenticated(converted));
  EXPECT_EQ(converted.message(), "server said: invalid token");
  EXPECT_TRUE(ToAbslStatus(grpc::Status::OK, "ignored").ok());
}

}  // namespace
}  // namespace pruner
