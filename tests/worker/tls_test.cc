// TLS end to end with the files deploy/make-certs.sh makes: the daemon
// trusts the farm's CA, checks the server's certificate for 127.0.0.1 and
// sends the token from the token file.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "proto/rpc_credentials.h"
#include "tests/worker/fake_worker_service.h"
#include "tests/worker/worker_test_util.h"

namespace pruner {
namespace {

TEST(WorkerTlsTest, RegistersOverTlsWithTheCertificatesAndTokenOfMakeCerts) {
  if (std::system("command -v openssl >/dev/null 2>&1") != 0) GTEST_SKIP() << "no openssl";
  const std::string dir = absl::StrCat(testing::TempDir(), "/worker_tls_", getpid());
  std::filesystem::remove_all(dir);
  const std::string make_certs =
      absl::StrCat(PRUNER_SOURCE_DIR, "/deploy/make-certs.sh '", dir, "' >/dev/null");
  ASSERT_EQ(std::system(make_certs.c_str()), 0) << make_certs;
  EXPECT_EQ(std::filesystem::status(dir + "/token").permissions() & std::filesystem::perms::all,
            std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);

  auto token = ReadTokenFile(dir + "/token");
  ASSERT_TRUE(token.ok()) << token.status();
  EXPECT_EQ(token->size(), 64u);
  ServerSecurity security;
  security.tls_cert_file = dir + "/server.pem";
  security.tls_key_file = dir + "/server.key";
  security.token = *token;
  auto credentials = MakeServerCredentials("127.0.0.1:0", security);
  ASSERT_TRUE(credentials.ok()) << credentials.status();
  FakeServiceConfig config;
  config.token = *token;
  auto server = FakeServer::Start(config, 0, *credentials);
  ASSERT_NE(server, nullptr);

  WorkerOptions options = TestWorkerOptions(server->address());
  options.security.tls_ca_file = dir + "/ca.pem";
  options.security.token = *token;
  DaemonThread worker(options, LocalCpuDevice());
  ASSERT_TRUE(WaitUntil([&] { return server->service().heartbeats().size() >= 1; },
                        std::chrono::seconds(10)));
  EXPECT_EQ(server->service().registers().size(), 1u);
  EXPECT_EQ(server->service().refused_calls(), 0);
  EXPECT_TRUE(worker.StopAndJoin().ok());
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace pruner
