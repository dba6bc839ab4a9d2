// The driver path: a clean "no CUDA driver" / "no CUDA device" where there
// is no GPU; where there is one, generated kernels of random schedules run
// and match the reference executor.
#include <memory>
#include <string>

#include "common/codegen/cuda_codegen.h"
#include "common/codegen/cuda_driver.h"
#include "common/codegen/cuda_nvrtc.h"
#include "common/codegen/cuda_runner.h"
#include "common/ir/ops.h"
#include "common/ir/reference.h"
#include "common/lower/lower.h"
#include "common/sketch/annotate.h"
#include "common/sketch/random.h"
#include "common/sketch/sketch.h"
#include "gtest/gtest.h"

namespace pruner {
namespace {

TEST(CudaDriverTest, CountIsADeviceOrACleanError) {
  absl::StatusOr<int> count = CudaDeviceCount();
  if (count.ok()) {
    EXPECT_GT(*count, 0);
    auto props = QueryCudaDevice(0);
    ASSERT_TRUE(props.ok()) << props.status();
    EXPECT_FALSE(props->name.empty());
    EXPECT_GE(props->compute_capability_major, 3);
    EXPECT_GT(props->sm_count, 0);
    EXPECT_EQ(props->warp_size, 32);
    EXPECT_GT(props->shared_memory_per_block, 0);
    std::cout << "device 0: " << props->name << ", cc " << props->compute_capability_major << "."
              << props->compute_capability_minor << ", " << props->sm_count << " SMs\n";
    EXPECT_FALSE(QueryCudaDevice(*count).ok());
    return;
  }
  EXPECT_EQ(count.status().code(), absl::StatusCode::kFailedPrecondition);
  const std::string message(count.status().message());
  EXPECT_TRUE(message.rfind("no CUDA driver", 0) == 0 || message == "no CUDA device") << message;
  // Every other entry point says the same instead of crashing.
  EXPECT_EQ(QueryCudaDevice(0).status(), count.status());
  EXPECT_EQ(CudaDevice::Open(0).status(), count.status());
}

// Random schedules of small operators, compiled for this device's
// architecture, run on it and compared with the reference executor.
TEST(CudaDriverTest, GeneratedKernelsMatchTheReference) {
  auto count = CudaDeviceCount();
  if (!count.ok()) GTEST_SKIP() << count.status().message();
  if (!LoadNvrtc().ok()) GTEST_SKIP() << LoadNvrtc().status().message();
  auto gpu = CudaDevice::Open(0);
  ASSERT_TRUE(gpu.ok()) << gpu.status();
  const CudaDeviceProperties& props = (*gpu)->properties();
  const std::string arch = "compute_" + std::to_string(props.compute_capability_major * 10 +
                                                       props.compute_capability_minor);
  auto profile = GetDeviceProfile(props.compute_capability_major >= 9 ? "h100" : "a100");
  ASSERT_TRUE(profile.ok());
  int checked = 0;
  for (const char* spec : {"matmul:M=33,K=20,N=17", "conv2d:N=1,C=4,H=9,W=9,K=8,R=3,S=3,pad=1",
                           "dense:M=16,K=32,N=24,bias=1,act=gelu", "softmax:M=8,N=40",
                           "layer_norm:M=8,N=24", "max_pool2d:C=3,H=9,W=9,kernel=3,stride=2,pad=1",
                           "depthwise_conv2d:C=8,H=9,W=9,R=3,S=3,pad=1",
                           "avg_pool2d:C=3,H=8,W=8,kernel=2"}) {
    auto dag = std::make_shared<const ComputeDag>(*BuildOperator(spec));
    auto sketches = GenerateSketches(dag, *profile);
    ASSERT_TRUE(sketches.ok()) << sketches.status();
    const std::vector<Tensor> inputs = RandomInputs(*dag, 5);
    auto want = RunReference(*dag, inputs);
    ASSERT_TRUE(want.ok()) << want.status();
    Rng rng(11);
    for (const State& state : SampleInitPopulation(*sketches, *profile, 10, rng)) {
      auto program = Lower(state, *profile);
      if (!program.ok()) continue;
      auto module = GenerateCudaSource(*program, *profile);
      ASSERT_TRUE(module.ok()) << module.status();
      auto compiled = CompileCuda(*module, arch);
      ASSERT_TRUE(compiled.ok()) << compiled.status();
      auto run = RunCudaModule(**gpu, *program, *module, compiled->ptx, inputs, 3);
      ASSERT_TRUE(run.ok()) << spec << ": " << run.status() << "\n" << module->source;
      for (size_t i = 0; i < run->outputs.size(); ++i) {
        absl::Status close = CheckAllClose(run->outputs[i], (*want)[i], 1e-3, 1e-4);
        EXPECT_TRUE(close.ok()) << spec << ": " << close << "\n"
                                << state.ToSentence() << "\n" << module->source;
      }
      EXPECT_GT(run->ms_per_run, 0);
      ++checked;
    }
  }
  std::cout << checked << " schedules ran on " << props.name << " and matched\n";
  EXPECT_GT(checked, 20);
}

}  // namespace
}  // namespace pruner
