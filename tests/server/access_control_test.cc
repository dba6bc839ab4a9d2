// The credentials file's grammar: what parses, and the line of each error.
// (Authorize itself is exercised end to end in tests/e2e/roles_test.cc,
// where calls carry real metadata.)
#include "server/access_control.h"

#include <cstdio>
#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pruner {
namespace {

using ::testing::HasSubstr;

TEST(ParseCredentialsTest, RolesNamesTokensCommentsAndHashes) {
  const std::string text =
      "# role name token\n"
      "\n"
      "client alice  0123456789abcdef0123   # trailing comment\n"
      "worker\tedge-01/0\tsha256:" + std::string(64, 'a') + "\r\n"
      "admin ops.1 fedcba9876543210fedc\n";
  auto parsed = ParseCredentials(text, "creds");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  ASSERT_EQ(parsed->size(), 3u);
  EXPECT_EQ((*parsed)[0].role, Role::kClient);
  EXPECT_EQ((*parsed)[0].name, "alice");
  EXPECT_EQ((*parsed)[1].role, Role::kWorker);
  EXPECT_EQ((*parsed)[1].name, "edge-01/0");
  EXPECT_EQ((*parsed)[1].token_sha256[0], 0xaa);
  EXPECT_EQ((*parsed)[2].role, Role::kAdmin);
  // A plain token is kept only as its hash.
  EXPECT_NE((*parsed)[0].token_sha256, (*parsed)[2].token_sha256);
}

TEST(ParseCredentialsTest, EachMistakeNamesItsLine) {
  struct Case {
    std::string text;
    std::string error;
  };
  const std::string good = "client alice 0123456789abcdef0123\n";
  const Case cases[] = {
      {good + "client bob\n", "creds:2: expected 'ROLE NAME TOKEN'"},
      {good + "root bob 0123456789abcdef9999\n", "creds:2: unknown role 'root'"},
      {good + "client b;b 0123456789abcdef9999\n", "creds:2: name 'b;b'"},
      {good + "client bob short\n", "creds:2: token shorter than 16"},
      {good + "worker w sha256:abc\n", "creds:2: a sha256: token needs 64 hex digits"},
      {good + "client alice 0123456789abcdef9999\n", "creds:2: client 'alice' is listed twice"},
      {good + "worker bob 0123456789abcdef0123\n", "creds:2: this token is already given"},
  };
  for (const Case& c : cases) {
    auto parsed = ParseCredentials(c.text, "creds");
    ASSERT_FALSE(parsed.ok()) << c.text;
    EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(parsed.status().message()), HasSubstr(c.error));
  }
}

TEST(AccessControlTest, FileMustExistAndListSomeone) {
  auto missing = AccessControl::FromFile("/nonexistent/credentials");
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  const std::string path = ::testing::TempDir() + "/empty-credentials";
  std::ofstream(path) << "# nobody yet\n";
  auto empty = AccessControl::FromFile(path);
  EXPECT_EQ(empty.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(empty.status().message()), HasSubstr("lists no credential"));
  std::ofstream(path) << "client a 0123456789abcdef0123\nworker w 0123456789abcdef4567\n";
  auto two = AccessControl::FromFile(path);
  ASSERT_TRUE(two.ok()) << two.status();
  EXPECT_THAT((*two)->Describe(), HasSubstr("(1 clients, 1 workers, 0 admins)"));
  EXPECT_EQ(AccessControl::SharedToken("")->Describe(), "no token");
  EXPECT_EQ(AccessControl::SharedToken("x")->Describe(), "shared token required");
  std::remove(path.c_str());
}

}  // namespace
}  // namespace pruner
