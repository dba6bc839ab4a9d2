// The sandbox and the guard pages on their own, without any compiler.
#include "common/measure/sandbox.h"

#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/codegen/cpu_codegen.h"
#include "common/measure/guarded_buffer.h"
#include "gtest/gtest.h"

namespace pruner {
namespace {

TEST(SandboxTest, ReturnsTheBodysReply) {
  SandboxReply reply = RunInSandbox([] { return std::string("hello\0world", 11); }, 10);
  ASSERT_TRUE(reply.payload.ok()) << reply.payload.status();
  EXPECT_EQ(*reply.payload, std::string("hello\0world", 11));
  EXPECT_GT(reply.wall_s, 0);
}

TEST(SandboxTest, LargeReplyPassesThePipe) {
  SandboxReply reply = RunInSandbox([] { return std::string(1 << 20, 'x'); }, 10);
  ASSERT_TRUE(reply.payload.ok()) << reply.payload.status();
  EXPECT_EQ(reply.payload->size(), size_t{1} << 20);
}

TEST(SandboxTest, SignalIsNamed) {
  SandboxReply reply = RunInSandbox(
      [] {
        raise(SIGBUS);
        return std::string();
      },
      10);
  ASSERT_TRUE(absl::IsInternal(reply.payload.status())) << reply.payload.status();
  std::printf("SIGBUS: %s\n", std::string(reply.payload.status().message()).c_str());
  EXPECT_NE(reply.payload.status().message().find("SIGBUS"), absl::string_view::npos);
}

TEST(SandboxTest, HangIsKilledAtTheDeadline) {
  SandboxReply reply = RunInSandbox(
      [] {
        for (;;) pause();
        return std::string();
      },
      0.3);
  EXPECT_TRUE(absl::IsDeadlineExceeded(reply.payload.status())) << reply.payload.status();
  EXPECT_GE(reply.wall_s, 0.3);
  EXPECT_LT(reply.wall_s, 5);
  std::printf("hang: %s\n", std::string(reply.payload.status().message()).c_str());
}

TEST(SandboxTest, ExitWithoutReplyIsAnError) {
  SandboxReply reply = RunInSandbox(
      [] {
        _exit(3);
        return std::string();
      },
      10);
  ASSERT_TRUE(absl::IsInternal(reply.payload.status())) << reply.payload.status();
  EXPECT_NE(reply.payload.status().message().find("status 3"), absl::string_view::npos);
}

TEST(SandboxStreamTest, RepliesArriveInOrderAndTheEndIsClean) {
  SandboxStream stream = RunInSandboxStreaming(
      [](const SandboxEmit& emit) {
        emit("one");
        emit(std::string(200000, 'x'));  // larger than a pipe buffer
        emit("");
      },
      10);
  EXPECT_TRUE(stream.end.ok()) << stream.end;
  ASSERT_EQ(stream.replies.size(), 3u);
  EXPECT_EQ(stream.replies[0], "one");
  EXPECT_EQ(stream.replies[1].size(), 200000u);
  EXPECT_EQ(stream.replies[2], "");
  EXPECT_EQ(stream.reply_wall_s.size(), 3u);
}

TEST(SandboxStreamTest, CrashAfterTwoRepliesKeepsThemAndNamesTheSignal) {
  SandboxStream stream = RunInSandboxStreaming(
      [](const SandboxEmit& emit) {
        emit("a");
        emit("b");
        raise(SIGSEGV);
      },
      10);
  ASSERT_EQ(stream.replies.size(), 2u);
  EXPECT_EQ(stream.replies[1], "b");
  ASSERT_TRUE(absl::IsInternal(stream.end)) << stream.end;
  EXPECT_NE(stream.end.message().find("SIGSEGV"), absl::string_view::npos) << stream.end;
}

TEST(SandboxStreamTest, TheDeadlineCountsFromTheLastReply) {
  // Four replies 0.2 s apart under a 0.5 s deadline: 0.8 s in all, more
  // than the deadline, yet no gap exceeds it. Then a hang: killed.
  SandboxStream stream = RunInSandboxStreaming(
      [](const SandboxEmit& emit) {
        for (int i = 0; i < 4; ++i) {
          usleep(200000);
          emit("tick");
        }
        for (;;) pause();
      },
      0.5);
  EXPECT_EQ(stream.replies.size(), 4u);
  EXPECT_TRUE(absl::IsDeadlineExceeded(stream.end)) << stream.end;
  EXPECT_GE(stream.tail_wall_s, 0.5);
  EXPECT_LT(stream.tail_wall_s, 5);
}

TEST(GuardedBufferTest, AlignedWithCanariesAllAround) {
  for (int64_t n : {0, 1, 35, 1024, 4096 / 4, 100000}) {
    auto b = GuardedBuffer::Allocate(n);
    ASSERT_TRUE(b.ok()) << b.status();
    EXPECT_EQ(reinterpret_cast<uintptr_t>(b->data()) % 64, 0u);
    for (int64_t i = 0; i < n; ++i) b->data()[i] = 1.0f;
    EXPECT_TRUE(b->CanaryIntact()) << n;
  }
  auto b = GuardedBuffer::Allocate(35);
  ASSERT_TRUE(b.ok());
  b->data()[35] = 0;  // inside the 64-byte rounding slack
  EXPECT_FALSE(b->CanaryIntact());
  auto c = GuardedBuffer::Allocate(35);
  ASSERT_TRUE(c.ok());
  c->data()[-1] = 0;
  EXPECT_FALSE(c->CanaryIntact());
  // A write into the read slack after a buffer that fills whole vectors.
  auto d = GuardedBuffer::Allocate(1024);
  ASSERT_TRUE(d.ok());
  d->data()[1024 + kCpuReadSlackBytes / 4 - 1] = 0;
  EXPECT_FALSE(d->CanaryIntact());
}

// The kernels' contract (cpu_codegen.h): vector code may load one vector's
// worth outside a buffer, as GCC 12's constant-mask loads do. Those loads must
// not fault; anything farther must.
TEST(GuardedBufferTest, ReadsWithinTheSlackDoNotFault) {
  auto b = GuardedBuffer::Allocate(1024);  // 4 KiB: whole vectors, no rounding
  ASSERT_TRUE(b.ok());
  const float* data = b->data();
  const int64_t slack_floats = kCpuReadSlackBytes / 4;
  SandboxReply reply = RunInSandbox(
      [data, slack_floats] {
        float sum = 0;
        for (int64_t i = -slack_floats; i < 1024 + slack_floats; ++i) {
          sum += static_cast<const volatile float*>(data)[i];
        }
        return absl::StrCat("read ", sum != 0 ? "canaries" : "zeros");
      },
      10);
  EXPECT_TRUE(reply.payload.ok()) << reply.payload.status();
}

TEST(GuardedBufferTest, WritePastTheSlackFaultsInTheChild) {
  auto b = GuardedBuffer::Allocate(1024);
  ASSERT_TRUE(b.ok());
  float* data = b->data();
  const int64_t past = 1024 + kCpuReadSlackBytes / 4;
  SandboxReply reply = RunInSandbox(
      [data, past] {
        static_cast<volatile float*>(data)[past] = 1.0f;
        return std::string("survived");
      },
      10);
  ASSERT_FALSE(reply.payload.ok()) << "the write past the end did not fault";
  EXPECT_NE(reply.payload.status().message().find("SIGSEGV"), absl::string_view::npos)
      << reply.payload.status();
}

}  // namespace
}  // namespace pruner
