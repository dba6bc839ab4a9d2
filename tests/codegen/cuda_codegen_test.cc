// CUDA source generation: the printed shape of kernels (needs no toolkit),
// literals, names, the ptxas report parser and the resource check.
#include <memory>
#include <string>

#include "common/codegen/cuda_codegen.h"
#include "common/codegen/cuda_expr.h"
#include "common/codegen/cuda_names.h"
#include "common/codegen/cuda_nvrtc.h"
#include "common/codegen/cuda_ptxas.h"
#include "common/ir/ops.h"
#include "common/lower/lower.h"
#include "common/sketch/annotate.h"
#include "common/sketch/random.h"
#include "common/sketch/sketch.h"
#include "gtest/gtest.h"

namespace pruner {
namespace {

using cuda_internal::CudaFloatLiteral;
using cuda_internal::CudaNameTable;
using cuda_internal::SanitizeIdentifier;

int CountOf(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// Lowered random a100 schedules of one operator.
std::vector<Program> RandomPrograms(const std::string& spec, int n, uint64_t seed) {
  auto device = GetDeviceProfile("a100");
  EXPECT_TRUE(device.ok());
  auto dag = std::make_shared<const ComputeDag>(*BuildOperator(spec));
  auto sketches = GenerateSketches(dag, *device);
  EXPECT_TRUE(sketches.ok()) << sketches.status();
  Rng rng(seed);
  std::vector<Program> programs;
  for (const State& state : SampleInitPopulation(*sketches, *device, n, rng)) {
    auto program = Lower(state, *device);
    if (program.ok()) programs.push_back(*std::move(program));
  }
  return programs;
}

TEST(CudaCodegenTest, KernelsMirrorTheProgram) {
  auto device = GetDeviceProfile("a100");
  ASSERT_TRUE(device.ok());
  const std::vector<Program> programs =
      RandomPrograms("conv2d:N=1,C=4,H=9,W=9,K=8,R=3,S=3,stride=1,pad=1,bias=1,act=relu", 20, 7);
  ASSERT_FALSE(programs.empty());
  int with_shared = 0;
  for (const Program& program : programs) {
    auto module = GenerateCudaSource(program, *device);
    ASSERT_TRUE(module.ok()) << module.status() << "\n" << program.ToString();
    const std::string& src = module->source;
    ASSERT_EQ(module->kernels.size(), program.kernels.size());
    EXPECT_EQ(CountOf(src, "extern \"C\" __global__ void __launch_bounds__("),
              static_cast<int>(program.kernels.size()));
    int barriers = 0;
    for (size_t k = 0; k < program.kernels.size(); ++k) {
      const Kernel& kernel = program.kernels[k];
      const CudaKernelSource& info = module->kernels[k];
      EXPECT_EQ(info.grid, kernel.grid);
      EXPECT_EQ(info.block, kernel.block);
      EXPECT_EQ(info.shared_bytes, kernel.shared_bytes);
      EXPECT_NE(src.find("__launch_bounds__(" + std::to_string(kernel.threads_per_block()) +
                         ") " + info.name + "("),
                std::string::npos);
      VisitStmt(kernel.body, [&](const StmtNode& s) { barriers += s.kind == StmtKind::kBarrier; });
      with_shared += kernel.shared_bytes > 0;
    }
    EXPECT_EQ(CountOf(src, "__syncthreads();"), barriers);
    EXPECT_EQ(src.find('@'), std::string::npos);
  }
  EXPECT_GT(with_shared, 0) << "expected some schedules with shared-memory stages";
}

// out[t] = 1 for t < 4 in a kernel launched with 8 threads; `body_extra`
// goes after the store inside the thread loop.
Program PartialBindingProgram(Stmt body_extra) {
  Program program;
  program.target = DeviceKind::kGpu;
  Buffer out;
  out.id = 0;
  out.name = "out";
  out.shape = {8};
  out.role = BufferRole::kOutput;
  program.buffers.push_back(out);
  program.outputs = {0};
  program.var_names = {"t.x"};
  Stmt store = MakeStore(0, {Var(0, "t.x")}, FloatImm(1), StoreRole::kCompute, 0);
  Kernel kernel;
  kernel.name = "out";
  kernel.block = {8, 1, 1};
  kernel.body = MakeFor(0, "t.x", 4, ForKind::kThreadX,
                        body_extra ? MakeSeq({store, body_extra}) : store);
  program.kernels.push_back(kernel);
  return program;
}

TEST(CudaCodegenTest, PartialThreadBindingIsGuarded) {
  auto device = GetDeviceProfile("a100");
  ASSERT_TRUE(device.ok());
  auto module = GenerateCudaSource(PartialBindingProgram(nullptr), *device);
  ASSERT_TRUE(module.ok()) << module.status();
  EXPECT_NE(module->source.find("const int t_x = (int)threadIdx.x;"), std::string::npos)
      << module->source;
  EXPECT_NE(module->source.find("if (t_x < 4) {"), std::string::npos) << module->source;
  EXPECT_NE(module->source.find("out[t_x] = 1.0f;"), std::string::npos) << module->source;
  EXPECT_NE(module->source.find("__launch_bounds__(8) out_kernel0(float* __restrict__ out)"),
            std::string::npos)
      << module->source;
  // A barrier under that guard would be reached by only half the block.
  auto with_barrier = GenerateCudaSource(PartialBindingProgram(MakeBarrier()), *device);
  EXPECT_EQ(with_barrier.status().code(), absl::StatusCode::kUnimplemented);
}

TEST(CudaCodegenTest, RejectsCpuPrograms) {
  auto device = GetDeviceProfile("a100");
  ASSERT_TRUE(device.ok());
  Program cpu;
  cpu.target = DeviceKind::kCpu;
  EXPECT_EQ(GenerateCudaSource(cpu, *device).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(CudaCodegenTest, FloatLiteralsRoundTrip) {
  EXPECT_EQ(CudaFloatLiteral(0.5), "0.5f");
  EXPECT_EQ(CudaFloatLiteral(3), "3.0f");
  EXPECT_EQ(CudaFloatLiteral(0), "0.0f");
  EXPECT_EQ(CudaFloatLiteral(-2), "(-2.0f)");
  EXPECT_EQ(CudaFloatLiteral(1e-5), "1e-05f");
  EXPECT_EQ(CudaFloatLiteral(-3.40282347e+38), "(-3.4028235e+38f)");
  EXPECT_EQ(std::stof("3.4028235e+38"), 3.40282347e+38f);
  EXPECT_EQ(CudaFloatLiteral(0.7071067811865476), "0.70710677f");
  EXPECT_EQ(CudaFloatLiteral(1e39), "__int_as_float(0x7f800000)");
}

TEST(CudaCodegenTest, IdentifiersAreSanitizedAndUnique) {
  EXPECT_EQ(SanitizeIdentifier("nn.0@ff.0@yy.0@xx.0@"), "nn_0_ff_0_yy_0_xx_0");
  EXPECT_EQ(SanitizeIdentifier("W.shared"), "W_shared");
  EXPECT_EQ(SanitizeIdentifier("0x"), "v0x");
  CudaNameTable names;
  EXPECT_EQ(names.Unique("a.b"), "a_b");
  EXPECT_EQ(names.Unique("a@b"), "a_b_2");
  EXPECT_EQ(names.Unique("int"), "int_2");
  EXPECT_EQ(names.Unique("pr_min"), "vpr_min");
  EXPECT_EQ(names.Unique("threadIdx"), "threadIdx_2");
}

TEST(CudaCodegenTest, ParsesCudaArchitectures) {
  EXPECT_EQ(ParseCudaArch("compute_80")->compute_name(), "compute_80");
  EXPECT_FALSE(ParseCudaArch("compute_80")->real);
  EXPECT_TRUE(ParseCudaArch("sm_90a")->real);
  EXPECT_EQ(ParseCudaArch("sm_90a")->sm_name(), "sm_90a");
  EXPECT_EQ(ParseCudaArch("8.6")->number, 86);
  EXPECT_FALSE(ParseCudaArch("volta").ok());
}

constexpr char kPtxasOutput[] = R"(ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'conv2d_kernel0' for 'sm_80'
ptxas info    : Function properties for conv2d_kernel0
    8 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads
ptxas info    : Used 40 registers, used 1 barriers, 888 bytes smem, 380 bytes cmem[0]
ptxas info    : Compiling entry function 'relu_kernel1' for 'sm_80'
ptxas info    : Function properties for relu_kernel1
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 8 registers, 360 bytes cmem[0]
)";

TEST(CudaPtxasTest, ParsesResourceReport) {
  const CudaResourceReport report = ParsePtxasOutput(kPtxasOutput);
  EXPECT_EQ(report.gpu_name, "sm_80");
  ASSERT_EQ(report.kernels.size(), 2u);
  const KernelResources* conv = report.Find("conv2d_kernel0");
  ASSERT_NE(conv, nullptr);
  EXPECT_EQ(conv->registers, 40);
  EXPECT_EQ(conv->shared_bytes, 888);
  EXPECT_EQ(conv->barriers, 1);
  EXPECT_EQ(conv->stack_bytes, 8);
  EXPECT_EQ(conv->spill_store_bytes, 4);
  EXPECT_EQ(conv->spill_load_bytes, 4);
  const KernelResources* relu = report.Find("relu_kernel1");
  ASSERT_NE(relu, nullptr);
  EXPECT_EQ(relu->registers, 8);
  EXPECT_EQ(relu->shared_bytes, 0);
}

TEST(CudaPtxasTest, TooManyRegistersIsAnInvalidSchedule) {
  auto device = GetDeviceProfile("a100");
  ASSERT_TRUE(device.ok());
  CudaModuleSource module;
  module.kernels.push_back(CudaKernelSource{"k", {1, 1, 1}, {1024, 1, 1}, 0, {}});
  CudaResourceReport report;
  report.kernels.push_back(KernelResources{"k", 64});  // 64 x 1024 = 65536: fits exactly
  EXPECT_TRUE(CheckKernelResources(report, module, *device).ok());
  report.kernels[0].registers = 65;  // rounds up to 72 per thread per warp
  absl::Status st = CheckKernelResources(report, module, *device);
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(std::string(st.message()).rfind("invalid schedule: kernel k:", 0), 0u) << st;
  report.kernels[0].registers = 8;
  report.kernels[0].shared_bytes = device->max_shared_memory_per_block + 4;
  EXPECT_EQ(CheckKernelResources(report, module, *device).code(),
            absl::StatusCode::kInvalidArgument);
  report.kernels[0].name = "other";
  EXPECT_EQ(CheckKernelResources(report, module, *device).code(), absl::StatusCode::kInternal);
}

}  // namespace
}  // namespace pruner
