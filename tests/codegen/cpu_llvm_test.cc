// The LLVM CPU backend's own parts: what the IR says for a schedule, the
// JIT's cache and unloading, targets and limits, and the runtime's thread
// pool. Whether kernels compute the right thing is checked, for both
// backends, by cpu_codegen_test and cpu_random_schedules_test.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "common/codegen/cpu_build.h"
#include "common/codegen/cpu_kernel.h"
#include "common/codegen/cpu_llvm_codegen.h"
#include "common/codegen/cpu_llvm_jit.h"
#include "common/codegen/cpu_loop_rules.h"
#include "common/codegen/cpu_runtime.h"
#include "common/codegen/cpu_runtime_source.h"
#include "common/graph/stages.h"
#include "common/ir/ops.h"
#include "common/ir/reference.h"
#include "common/lower/lower.h"
#include "gtest/gtest.h"
#include "tests/codegen/cpu_check_util.h"
#include "tests/lower/lower_test_util.h"

namespace pruner {
namespace {

using testing::CpuMatmulSteps;
using testing::ReplayText;
using testing::Share;

Program LowerSteps(std::shared_ptr<const ComputeDag> dag, const std::string& steps) {
  absl::StatusOr<State> state = ReplayText(dag, steps);
  EXPECT_TRUE(state.ok()) << state.status();
  // The local CPU's limits decide nothing in these small programs; the IR
  // tests name their LLVM CPU, so they do not depend on the machine.
  absl::StatusOr<Program> program = Lower(*state, DetectLocalCpu());
  EXPECT_TRUE(program.ok()) << program.status();
  return program.ok() ? *std::move(program) : Program{};
}

// relu over 4 x 64 with the inner loop split 4 x 16 and the 16 vectorized.
Program VectorizedRelu() {
  return LowerSteps(Share(BuildOperator("relu:shape=4x64")), "SP 1 1 64 [16]; AN 1 2 vectorize");
}

TEST(CpuLlvmIr, VectorizedLoopBecomesVectorsOfItsWidth) {
  LlvmCpuTarget target;
  target.cpu = "skylake-avx512";
  absl::StatusOr<std::string> ir = CpuProgramLlvmIr(VectorizedRelu(), target, /*optimized=*/false);
  ASSERT_TRUE(ir.ok()) << ir.status();
  EXPECT_TRUE(absl::StrContains(*ir, "load <16 x float>")) << *ir;
  EXPECT_TRUE(absl::StrContains(*ir, "store <16 x float>")) << *ir;
  // Contiguous at offsets that are multiples of 16 floats: 64-byte aligned.
  EXPECT_TRUE(absl::StrContains(*ir, "align 64")) << *ir;
  // Every access carries its buffer's alias scope.
  EXPECT_TRUE(absl::StrContains(*ir, "!alias.scope")) << *ir;
  EXPECT_TRUE(absl::StrContains(*ir, "!noalias")) << *ir;
  // AVX-512 without the 256-bit preference.
  EXPECT_TRUE(absl::StrContains(*ir, "\"prefer-vector-width\"=\"512\"")) << *ir;
}

// The assembly is the object's machine code as text: the kernel's symbol,
// and a 16-lane relu as zmm maxima, with no scalar fallback.
TEST(CpuLlvmAssembly, SaysWhatTheObjectIsMadeOf) {
  LlvmCpuTarget target;
  target.cpu = "skylake-avx512";
  const Program program = VectorizedRelu();
  absl::StatusOr<std::string> assembly = CpuProgramLlvmAssembly(program, target);
  ASSERT_TRUE(assembly.ok()) << assembly.status();
  EXPECT_TRUE(absl::StrContains(*assembly, CpuKernelSymbol(program) + ":")) << *assembly;
  EXPECT_TRUE(absl::StrContains(*assembly, "vmaxps")) << *assembly;
  EXPECT_TRUE(absl::StrContains(*assembly, "%zmm")) << *assembly;
  EXPECT_FALSE(absl::StrContains(*assembly, "vmaxss")) << *assembly;

  target.cpu = "not-a-cpu";
  EXPECT_FALSE(CpuProgramLlvmAssembly(program, target).ok());
}

TEST(CpuLlvmIr, GuardedLanesUseMaskedAccesses) {
  // 30 columns split by 16: the second chunk's last two lanes are past the
  // row, so the guard becomes a mask and the accesses masked ones.
  Program program =
      LowerSteps(Share(BuildOperator("relu:shape=3x30")), "SP 1 1 30 [16]; AN 1 2 vectorize");
  LlvmCpuTarget target;
  target.cpu = "skylake-avx512";
  absl::StatusOr<std::string> ir = CpuProgramLlvmIr(program, target, false);
  ASSERT_TRUE(ir.ok()) << ir.status();
  EXPECT_TRUE(absl::StrContains(*ir, "llvm.masked.load")) << *ir;
  EXPECT_TRUE(absl::StrContains(*ir, "llvm.masked.store")) << *ir;
}

// Lanes other than a power of two go out as power-of-two vectors, the
// widest first, down to a remainder under 8 lanes kept whole: LLVM
// legalized a 144-lane padding copy into slow code.
TEST(CpuLlvmIr, VectorizedLoopsGoOutAsPowerOfTwoPieces) {
  LlvmCpuTarget target;
  target.cpu = "skylake-avx512";
  auto ir_of = [&](const std::string& op) {
    absl::StatusOr<std::string> ir =
        CpuProgramLlvmIr(LowerSteps(Share(BuildOperator(op)), "AN 1 1 vectorize"), target, false);
    EXPECT_TRUE(ir.ok()) << ir.status();
    return ir.ok() ? *ir : std::string();
  };
  const std::string wide = ir_of("relu:shape=3x144");
  EXPECT_TRUE(absl::StrContains(wide, "load <128 x float>")) << wide;
  EXPECT_TRUE(absl::StrContains(wide, "load <16 x float>")) << wide;
  EXPECT_FALSE(absl::StrContains(wide, "<144 x float>")) << wide;
  const std::string twelve = ir_of("relu:shape=3x12");
  EXPECT_TRUE(absl::StrContains(twelve, "store <8 x float>")) << twelve;
  EXPECT_TRUE(absl::StrContains(twelve, "store <4 x float>")) << twelve;
  const std::string seven = ir_of("relu:shape=3x7");
  EXPECT_TRUE(absl::StrContains(seven, "store <7 x float>")) << seven;
  EXPECT_FALSE(absl::StrContains(seven, "<4 x float>")) << seven;
}

// The pieces compute what the reference does where lanes meet guards and
// shifted reads: a depthwise convolution over 144 channels whose padding is
// copied (144 lanes under a bounds check) into each row band, then read by
// a 4 x 16 register tile at nine offsets.
TEST(CpuLlvmRun, PiecesOfAPaddedDepthwiseTileMatchTheReference) {
  auto dag = Share(BuildOperator(
      "depthwise_conv2d:C=144,H=6,W=6,R=3,S=3,pad=1,bias=1,act=relu,layout=nhwc"));
  const std::string steps =
      "CI 5; SP 4 0 1 [1,1,1]; SP 4 4 6 [2,1,1]; SP 4 8 6 [3,1,2]; SP 4 12 144 [9,1,16]; "
      "SP 4 16 3 [3]; SP 4 18 3 [3]; RE 4 [0,4,8,12,1,5,9,13,16,18,2,6,10,14,17,19,3,7,11,15]; "
      "FSP 6 0 1 2; FSP 6 3 2 2; FSP 6 6 3 2; FSP 6 9 4 2; RE 6 [0,3,6,9,1,4,7,10,2,5,8,11]; "
      "CA 4 6 7; CA 3 6 3; FU 6 [0,1,2,3]; AN 6 0 parallel; PR 4 0 auto_unroll_max_step$512; "
      "AN 3 3 vectorize; AN 4 19 vectorize; AN 6 8 vectorize";
  Program program = LowerSteps(dag, steps);
  const std::vector<Tensor> inputs = RandomInputs(*dag, 3);
  absl::StatusOr<std::vector<Tensor>> want = RunReference(*dag, inputs);
  ASSERT_TRUE(want.ok()) << want.status();
  std::vector<absl::StatusOr<BuiltModule>> built =
      BuildCpuPrograms({&program}, CpuBuildOptions{}, 1, "");
  ASSERT_TRUE(built[0].ok()) << built[0].status();
  absl::StatusOr<LoadedKernel> kernel = LoadedKernel::Load(*built[0]);
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  absl::StatusOr<std::vector<Tensor>> got = RunCpuKernel(*kernel, program, inputs);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(CheckAllClose((*got)[0], (*want)[0], testing::kCpuRtol, testing::kCpuAtol).ok())
      << program.ToString();
}

TEST(CpuLlvmIr, ParallelLoopRunsOnTheRuntimePool) {
  Program program = LowerSteps(Share(Matmul(64, 64, 64)), CpuMatmulSteps(64, 64, 64));
  absl::StatusOr<std::string> ir = CpuProgramLlvmIr(program, LlvmCpuTarget{}, false);
  ASSERT_TRUE(ir.ok()) << ir.status();
  EXPECT_TRUE(absl::StrContains(*ir, "call void @pruner_cpu_parallel_for")) << *ir;
}

// y[i] = fn(x[i]) over 2048 elements: a DAG for the math-function tests.
std::shared_ptr<const ComputeDag> PointwiseCall(CallFn fn) {
  StageBuilder b;
  const int x = b.Placeholder("x", {2048});
  b.Compute("y", StageBuilder::AxesLike({2048}), {}, ReduceKind::kNone, "call",
            [&](const std::vector<Expr>& v) { return Call(fn, {b.Read(x, v)}); });
  absl::StatusOr<ComputeDag> dag = std::move(b).Build();
  EXPECT_TRUE(dag.ok()) << dag.status();
  return std::make_shared<const ComputeDag>(*std::move(dag));
}

// Runs fn over x = lo .. hi (2048 points) through the LLVM backend, as
// vectors of 16 and as scalars, and returns the worst error against libm:
// relative for exp, absolute for erf.
double WorstError(CallFn fn, double lo, double hi, bool relative) {
  auto dag = PointwiseCall(fn);
  Tensor x = Tensor::Zeros({2048});
  for (int i = 0; i < 2048; ++i) x.data[i] = static_cast<float>(lo + (hi - lo) * i / 2047.0);
  double worst = 0;
  for (const char* steps : {"SP 1 0 2048 [16]; AN 1 1 vectorize", ""}) {
    Program program = LowerSteps(dag, steps);
    std::vector<absl::StatusOr<BuiltModule>> built =
        BuildCpuPrograms({&program}, CpuBuildOptions{}, 1, "");
    EXPECT_TRUE(built[0].ok()) << built[0].status();
    if (!built[0].ok()) return 1e9;
    absl::StatusOr<LoadedKernel> kernel = LoadedKernel::Load(*built[0]);
    EXPECT_TRUE(kernel.ok()) << kernel.status();
    if (!kernel.ok()) return 1e9;
    absl::StatusOr<std::vector<Tensor>> got = RunCpuKernel(*kernel, program, {x});
    EXPECT_TRUE(got.ok()) << got.status();
    if (!got.ok()) return 1e9;
    for (int i = 0; i < 2048; ++i) {
      const double want = fn == CallFn::kExp ? std::exp(static_cast<double>(x.data[i]))
                                             : std::erf(static_cast<double>(x.data[i]));
      const double err = std::abs((*got)[0].data[i] - want);
      worst = std::max(worst, relative ? err / std::max(std::abs(want), 1e-30) : err);
    }
  }
  return worst;
}

TEST(CpuLlvmMath, ExpAndErfAreVectorCodeAndAccurate) {
  // Vector code, not a libm call per lane.
  const std::string ir =
      CpuProgramLlvmIr(LowerSteps(PointwiseCall(CallFn::kErf), "SP 1 0 2048 [16]; AN 1 1 vectorize"),
                       LlvmCpuTarget{"x86-64-v3"}, /*optimized=*/true)
          .value_or("");
  EXPECT_FALSE(absl::StrContains(ir, "erff")) << ir.substr(0, 2000);
  EXPECT_LT(WorstError(CallFn::kExp, -87, 88, /*relative=*/true), 1e-6);
  EXPECT_LT(WorstError(CallFn::kErf, -6, 6, /*relative=*/false), 3e-7);
  // Near 0, where erf(x) ~ 1.128 x, the series keeps the error relative.
  EXPECT_LT(WorstError(CallFn::kErf, -1e-3, 1e-3, /*relative=*/true), 1e-6);
}

TEST(CpuLlvmCompile, NamedCpusAndUnknownOnes) {
  LlvmCpuTarget target;
  target.cpu = "sapphirerapids";
  absl::StatusOr<LlvmCpuObject> object = CompileCpuProgramLlvm(VectorizedRelu(), target);
  ASSERT_TRUE(object.ok()) << object.status();
  EXPECT_EQ(object->cpu, "sapphirerapids");
  EXPECT_FALSE(object->object.empty());
  EXPECT_EQ(object->symbol, CpuKernelSymbol(VectorizedRelu()));

  target.cpu = "cortex-a72";
  absl::StatusOr<LlvmCpuObject> arm = CompileCpuProgramLlvm(VectorizedRelu(), target);
  ASSERT_FALSE(arm.ok());
  EXPECT_EQ(arm.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(arm.status().message(), "g++ backend")) << arm.status();
}

TEST(CpuLlvmCompile, RefusesNestsThatUnrollTooFar) {
  // A 256 x 512 elementwise nest, both loops unrolled: 131,072 stores.
  Program program = LowerSteps(Share(BuildOperator("relu:shape=256x512")),
                               "AN 1 0 unroll; AN 1 1 unroll");
  absl::StatusOr<LlvmCpuObject> object = CompileCpuProgramLlvm(program, LlvmCpuTarget{});
  ASSERT_FALSE(object.ok());
  EXPECT_EQ(object.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(object.status().message(), "invalid schedule")) << object.status();
}

TEST(CpuLlvmJit, LoadsOnceAndUnloadsWithTheLastReference) {
  const int before = LoadedJitCpuKernels();
  Program program = VectorizedRelu();
  absl::StatusOr<LlvmCpuObject> object = CompileCpuProgramLlvm(program, LlvmCpuTarget{});
  ASSERT_TRUE(object.ok()) << object.status();
  absl::StatusOr<std::shared_ptr<const JitCpuKernel>> a = LoadCpuObject(*object);
  absl::StatusOr<std::shared_ptr<const JitCpuKernel>> b = LoadCpuObject(*object);
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(a->get(), b->get());
  EXPECT_EQ(LoadedJitCpuKernels(), before + 1);
  a->reset();
  b->reset();
  EXPECT_EQ(LoadedJitCpuKernels(), before);

  // Loaded again after unloading (the same symbol), it still computes.
  absl::StatusOr<std::shared_ptr<const JitCpuKernel>> again = LoadCpuObject(*object);
  ASSERT_TRUE(again.ok()) << again.status();
  BuiltModule module;
  module.symbol = object->symbol;
  module.jit = *again;
  absl::StatusOr<LoadedKernel> kernel = LoadedKernel::Load(module);
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  auto dag = Share(BuildOperator("relu:shape=4x64"));
  const std::vector<Tensor> inputs = RandomInputs(*dag, 3);
  absl::StatusOr<std::vector<Tensor>> got = RunCpuKernel(*kernel, program, inputs);
  absl::StatusOr<std::vector<Tensor>> want = RunReference(*dag, inputs);
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_TRUE(want.ok()) << want.status();
  EXPECT_TRUE(CheckAllClose((*got)[0], (*want)[0], 0, 0).ok());
}

TEST(CpuLlvmJit, ModuleForAnotherCpuHasNoFileAndSaysSo) {
  BuiltModule module;
  module.symbol = "pruner_cpu_0";
  module.command = "llvm -O3 -mcpu=other";
  absl::StatusOr<LoadedKernel> kernel = LoadedKernel::Load(module);
  ASSERT_FALSE(kernel.ok());
  EXPECT_TRUE(absl::StrContains(kernel.status().message(), "cannot run here")) << kernel.status();
}

// What an export ships for an x86 CPU: the object for an ISA level, linked
// with the runtime's exported source by the export's own command, runs
// outside the JIT and computes what the reference does.
TEST(CpuLlvmExport, ObjectLinkedWithTheRuntimeSourceRuns) {
  auto dag = Share(Matmul(64, 48, 40));
  Program program = LowerSteps(dag, CpuMatmulSteps(64, 48, 40));  // parallel loop included
  LlvmCpuTarget target;
  target.cpu = "x86-64-v2";  // every x86-64 machine that runs the tests has it
  absl::StatusOr<LlvmCpuObject> object = CompileCpuProgramLlvm(program, target);
  ASSERT_TRUE(object.ok()) << object.status();
  const std::string dir = testing::MakeWorkDir("export");
  std::ofstream(dir + "/kernel.o", std::ios::binary) << object->object;
  std::ofstream(dir + "/" + kExportedRuntimeHeaderName) << CpuRuntimeHeaderText();
  std::ofstream(dir + "/" + kExportedRuntimeSourceName) << CpuRuntimeSourceText();
  const std::string command = "cd " + dir + " && " + ExportedLibraryLinkCommand("libk.so");
  ASSERT_EQ(std::system(command.c_str()), 0) << command;

  BuiltModule module;
  module.path = dir + "/libk.so";
  module.symbol = object->symbol;
  absl::StatusOr<LoadedKernel> kernel = LoadedKernel::Load(module);
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  const std::vector<Tensor> inputs = RandomInputs(*dag, 5);
  absl::StatusOr<std::vector<Tensor>> got = RunCpuKernel(*kernel, program, inputs);
  absl::StatusOr<std::vector<Tensor>> want = RunReference(*dag, inputs);
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_TRUE(want.ok()) << want.status();
  EXPECT_TRUE(CheckAllClose((*got)[0], (*want)[0], testing::kCpuRtol, testing::kCpuAtol).ok());
  std::filesystem::remove_all(dir);
}

// ---- The runtime's thread pool ----

struct Coverage {
  std::vector<std::atomic<int>> hits;
  explicit Coverage(int64_t n) : hits(n) {}
};

void MarkChunk(void* closure, int64_t begin, int64_t end) {
  auto* c = static_cast<Coverage*>(closure);
  for (int64_t i = begin; i < end; ++i) c->hits[i].fetch_add(1);
}

bool EachOnce(const Coverage& c) {
  for (const auto& h : c.hits) {
    if (h.load() != 1) return false;
  }
  return true;
}

TEST(CpuRuntime, ParallelForRunsEveryIterationOnce) {
  for (int threads : {0, 1, 2, 3, 64}) {
    SetCpuRuntimeThreads(threads);
    for (int64_t extent : {1, 2, 3, 7, 64, 1000}) {
      Coverage c(extent);
      pruner_cpu_parallel_for(&MarkChunk, &c, extent);
      EXPECT_TRUE(EachOnce(c)) << "threads " << threads << " extent " << extent;
    }
  }
  SetCpuRuntimeThreads(0);
}

struct Nested {
  Coverage inner{16};
  std::atomic<int> outer_calls{0};
};

void OuterChunk(void* closure, int64_t begin, int64_t end) {
  auto* n = static_cast<Nested*>(closure);
  for (int64_t i = begin; i < end; ++i) {
    n->outer_calls.fetch_add(1);
    // A parallel loop inside a parallel loop runs on the calling thread.
    Coverage local(8);
    pruner_cpu_parallel_for(&MarkChunk, &local, 8);
    if (EachOnce(local)) n->inner.hits[i].fetch_add(1);
  }
}

TEST(CpuRuntime, NestedParallelLoopsRunInline) {
  Nested n;
  pruner_cpu_parallel_for(&OuterChunk, &n, 16);
  EXPECT_EQ(n.outer_calls.load(), 16);
  EXPECT_TRUE(EachOnce(n.inner));
}

TEST(CpuRuntime, AForkedChildGetsItsOwnPool) {
  Coverage warm(100);
  pruner_cpu_parallel_for(&MarkChunk, &warm, 100);  // the parent's pool exists
  ASSERT_TRUE(EachOnce(warm));
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    Coverage c(1000);
    pruner_cpu_parallel_for(&MarkChunk, &c, 1000);
    _exit(EachOnce(c) ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

TEST(CpuRuntime, AllocationHasTheContractSlackAndAlignment) {
  float* data = pruner_cpu_alloc(10);
  ASSERT_NE(data, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(data) % 64, 0u);
  // The slack on both sides is readable (and writable, for this check).
  data[-kCpuReadSlackBytes / 4] = 1;
  data[10 + kCpuReadSlackBytes / 4 - 1] = 2;
  pruner_cpu_free(data);
  pruner_cpu_free(nullptr);
}

}  // namespace
}  // namespace pruner
