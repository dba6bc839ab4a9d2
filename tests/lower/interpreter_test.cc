// The interpreter on hand-built programs (bounds checks, barrier phases,
// divergence) and a speed print on a realistic dense layer.
#include <chrono>
#include <cmath>
#include <iostream>
#include <string>

#include "absl/strings/str_cat.h"
#include "common/ir/ops.h"
#include "common/ir/reference.h"
#include "common/lower/interpreter.h"
#include "common/lower/lower.h"
#include "gtest/gtest.h"
#include "tests/lower/lower_test_util.h"

namespace pruner {
namespace {

using testing::ReplayText;
using testing::Share;
using testing::TestCpu;

// Dense 65 x 2048 x 1024 (the evidence) with Ansor's CPU sketch.
TEST(InterpreterSpeed, DenseLayer) {
  auto dag = Share(Dense(65, 2048, 1024));
  const std::string steps =
      "CHW 2 local; SP 2 0 65 [1,4,2]; SP 2 4 1024 [2,4,8]; SP 2 8 2048 [16]; "
      "RE 2 [0,4,1,5,8,2,6,9,3,7]; FSP 3 0 1 2; FSP 3 3 2 2; RE 3 [0,3,1,4,2,5]; "
      "CA 2 3 3; FU 3 [0,1]; AN 3 0 parallel; AN 2 9 vectorize; AN 3 4 vectorize";
  absl::StatusOr<State> state = ReplayText(dag, steps);
  ASSERT_TRUE(state.ok()) << state.status();
  absl::StatusOr<Program> program = Lower(*state, TestCpu());
  ASSERT_TRUE(program.ok()) << program.status();
  const std::vector<Tensor> inputs = RandomInputs(*dag, 1);

  auto t0 = std::chrono::steady_clock::now();
  absl::StatusOr<CompiledProgram> compiled = CompiledProgram::Compile(*program);
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  auto t1 = std::chrono::steady_clock::now();
  absl::StatusOr<std::vector<Tensor>> got = compiled->Run(inputs);
  auto t2 = std::chrono::steady_clock::now();
  ASSERT_TRUE(got.ok()) << got.status();
  absl::StatusOr<std::vector<Tensor>> want = RunReference(*dag, inputs);
  auto t3 = std::chrono::steady_clock::now();
  ASSERT_TRUE(want.ok()) << want.status();
  EXPECT_TRUE(CheckAllClose((*got)[0], (*want)[0], 1e-4, 1e-4).ok());

  const double macs = 65.0 * 2048 * 1024;
  const double run_s = std::chrono::duration<double>(t2 - t1).count();
  std::cout << "dense 65x2048x1024: compile "
            << std::chrono::duration<double>(t1 - t0).count() * 1e3 << " ms, run "
            << run_s * 1e3 << " ms (" << macs / run_s / 1e6 << " M multiply-adds/s), reference "
            << std::chrono::duration<double>(t3 - t2).count() * 1e3 << " ms\n";
}

// A GPU-style matmul 512^3: 64 blocks of 256 threads, shared tiles.
TEST(InterpreterSpeed, GpuMatmul) {
  auto dag = Share(Matmul(512, 512, 512));
  absl::StatusOr<State> state = ReplayText(
      dag, testing::GpuMatmulSteps(512, 512, 512, "[1,16,2,2]", "[2,16,1,2]", "[8,2]", 4));
  ASSERT_TRUE(state.ok()) << state.status();
  absl::StatusOr<Program> program = Lower(*state, testing::TestGpu());
  ASSERT_TRUE(program.ok()) << program.status();
  const std::vector<Tensor> inputs = RandomInputs(*dag, 1);
  absl::StatusOr<CompiledProgram> compiled = CompiledProgram::Compile(*program);
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  auto t0 = std::chrono::steady_clock::now();
  absl::StatusOr<std::vector<Tensor>> got = compiled->Run(inputs);
  auto t1 = std::chrono::steady_clock::now();
  ASSERT_TRUE(got.ok()) << got.status();
  absl::StatusOr<std::vector<Tensor>> want = RunReference(*dag, inputs);
  ASSERT_TRUE(want.ok()) << want.status();
  EXPECT_TRUE(CheckAllClose((*got)[0], (*want)[0], 1e-4, 1e-4).ok());
  const double run_s = std::chrono::duration<double>(t1 - t0).count();
  std::cout << "gpu-style matmul 512^3 (" << program->kernels[0].num_blocks() << " blocks x "
            << program->kernels[0].threads_per_block() << " threads): run " << run_s * 1e3
            << " ms (" << 512.0 * 512 * 512 / run_s / 1e6 << " M multiply-adds/s)\n";
}

}  // namespace
}  // namespace pruner

namespace pruner {
namespace {

// Hand-built programs: one input "in" of `in_size` and one output "out" of
// `out_size`, float32, 1-D.
Program OneDimProgram(DeviceKind target, int64_t in_size, int64_t out_size) {
  Program p;
  p.target = target;
  Buffer in;
  in.id = 0;
  in.name = "in";
  in.shape = {in_size};
  in.role = BufferRole::kInput;
  in.region_min = {IntImm(0)};
  Buffer out = in;
  out.id = 1;
  out.name = "out";
  out.shape = {out_size};
  out.role = BufferRole::kOutput;
  out.stage = 0;
  p.buffers = {in, out};
  p.inputs = {0};
  p.outputs = {1};
  p.stage_names = {"out"};
  p.stage_buffers = {1};
  return p;
}

Tensor Iota(int64_t n) {
  Tensor t = Tensor::Zeros({n});
  for (int64_t i = 0; i < n; ++i) t.data[i] = static_cast<float>(i);
  return t;
}

Expr In(Expr index) { return Read(0, "in", DType::kFloat32, {std::move(index)}); }

TEST(Interpreter, OutOfBoundsWriteIsAnError) {
  Program p = OneDimProgram(DeviceKind::kCpu, 4, 4);
  p.var_names = {"i"};
  Expr i = Var(0, "i");
  Kernel k;
  k.name = "main";
  k.body = MakeFor(0, "i", 5, ForKind::kSerial,
                   MakeStore(1, {i}, FloatImm(1.0), StoreRole::kCompute, 0), 0, 0);
  p.kernels = {k};
  absl::StatusOr<std::vector<Tensor>> r = RunProgram(p, {Iota(4)});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kOutOfRange);
  EXPECT_NE(r.status().message().find("out-of-bounds write to out[4]; its shape is [4]"),
            std::string::npos)
      << r.status();
}

TEST(Interpreter, OutOfBoundsNonAffineReadIsAnError) {
  Program p = OneDimProgram(DeviceKind::kCpu, 5, 7);
  p.var_names = {"i"};
  Expr i = Var(0, "i");
  Kernel k;
  k.name = "main";
  k.body = MakeFor(0, "i", 7, ForKind::kSerial,
                   MakeStore(1, {i}, In(FloorMod(Mul(i, IntImm(3)), IntImm(7))),
                             StoreRole::kCompute, 0));
  p.kernels = {k};
  absl::StatusOr<std::vector<Tensor>> r = RunProgram(p, {Iota(5)});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kOutOfRange) << r.status();
  EXPECT_NE(r.status().message().find("out-of-bounds read of in"), std::string::npos)
      << r.status();
}

TEST(Interpreter, SelectSkipsTheReadsOfTheBranchItDoesNotTake) {
  // out[i] = i < 4 ? in[i] : -1, for i in [0, 6): in[4] and in[5] do not
  // exist and are never read.
  Program p = OneDimProgram(DeviceKind::kCpu, 4, 6);
  p.var_names = {"i"};
  Expr i = Var(0, "i");
  Kernel k;
  k.name = "main";
  k.body = MakeFor(0, "i", 6, ForKind::kVectorized,
                   MakeStore(1, {i},
                             Select(Compare(CompareOp::kLT, i, IntImm(4)), In(i), FloatImm(-1)),
                             StoreRole::kCompute, 0));
  p.kernels = {k};
  absl::StatusOr<std::vector<Tensor>> r = RunProgram(p, {Iota(4)});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ((*r)[0].data, (std::vector<float>{0, 1, 2, 3, -1, -1}));
}

TEST(Interpreter, UnwrittenElementsReadAsNaN) {
  Program p = OneDimProgram(DeviceKind::kCpu, 4, 4);
  p.var_names = {"i"};
  Kernel k;
  k.name = "main";
  k.body = MakeFor(0, "i", 2, ForKind::kSerial,
                   MakeStore(1, {Var(0, "i")}, FloatImm(1.0), StoreRole::kCompute, 0));
  p.kernels = {k};
  absl::StatusOr<std::vector<Tensor>> r = RunProgram(p, {Iota(4)});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ((*r)[0].data[1], 1.0f);
  EXPECT_TRUE(std::isnan((*r)[0].data[2]));
}

// A GPU block of 4 threads exchanges values through shared memory:
// s[tx] = in[tx]; barrier; out[tx] = s[3 - tx]. Without barrier phases
// thread 0 would read s[3] before thread 3 wrote it.
Program ReverseThroughSharedMemory(bool divergent_barrier) {
  Program p = OneDimProgram(DeviceKind::kGpu, 4, 4);
  Buffer s;
  s.id = 2;
  s.name = "s";
  s.scope = MemScope::kShared;
  s.shape = {4};
  s.attached = true;
  s.stage = 1;
  s.region_min = {IntImm(0)};
  p.buffers.push_back(s);
  p.stage_names = {"out", "s"};
  p.stage_buffers = {1, 2};
  p.var_names = {"bx", "tx", "tx2"};
  Expr tx = Var(1, "tx");
  Stmt fill = MakeFor(2, "tx2", 4, ForKind::kThreadX,
                      MakeStore(2, {Var(2, "tx2")}, In(Var(2, "tx2")), StoreRole::kCompute, 1),
                      1, 0);
  Stmt barrier = MakeBarrier();
  if (divergent_barrier) barrier = MakeIf(Compare(CompareOp::kLT, tx, IntImm(2)), barrier);
  Stmt use = MakeStore(1, {tx}, Read(2, "s", DType::kFloat32, {Sub(IntImm(3), tx)}),
                       StoreRole::kCompute, 0);
  Kernel k;
  k.name = "reverse";
  k.root_stage = 0;
  k.block = {4, 1, 1};
  k.body = MakeFor(0, "bx", 1, ForKind::kBlockX,
                   MakeFor(1, "tx", 4, ForKind::kThreadX,
                           MakeAllocate(2, MakeSeq({fill, barrier, use})), 0, 1),
                   0, 0);
  p.kernels = {k};
  return p;
}

TEST(Interpreter, ThreadsRunOneBarrierPhaseAtATime) {
  absl::StatusOr<std::vector<Tensor>> r =
      RunProgram(ReverseThroughSharedMemory(false), {Iota(4)});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ((*r)[0].data, (std::vector<float>{3, 2, 1, 0}));
}

TEST(Interpreter, DivergentBarrierIsAnError) {
  absl::StatusOr<std::vector<Tensor>> r =
      RunProgram(ReverseThroughSharedMemory(true), {Iota(4)});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("divergent barrier"), std::string::npos) << r.status();
}

TEST(Interpreter, RejectsInputsOfTheWrongShape) {
  Program p = OneDimProgram(DeviceKind::kCpu, 4, 4);
  absl::StatusOr<std::vector<Tensor>> r = RunProgram(p, {Iota(5)});
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace pruner
