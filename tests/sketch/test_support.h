// Shared fixtures of the sketch/annotation/mutation tests: fixed device
// profiles (so sketch counts do not depend on the machine) and the
// operator workloads every test runs over.
#ifndef PRUNER_TESTS_SKETCH_TEST_SUPPORT_H_
#define PRUNER_TESTS_SKETCH_TEST_SUPPORT_H_

#include <memory>
#include <string>
#include <vector>

#include "common/device/device_profile.h"
#include "common/device/gpu_profiles.h"
#include "common/ir/compute_dag.h"
#include "common/ir/ops.h"
#include "gtest/gtest.h"

namespace pruner::testing {

// An 8-thread AVX2 machine: 16 x 8 = 128 parallel iterations saturate it,
// and vectors hold 8 floats.
inline DeviceProfile TestCpu() {
  DeviceProfile cpu;
  cpu.name = "test-cpu";
  cpu.kind = DeviceKind::kCpu;
  cpu.num_cores = 8;
  cpu.physical_cores = 4;
  cpu.vector_unit_bytes = 32;
  cpu.cache_line_bytes = 64;
  cpu.vector_isa = "avx2";
  return cpu;
}

inline DeviceProfile TestGpu() { return A100Sxm40GbProfile(); }

inline std::shared_ptr<const ComputeDag> Build(const std::string& spec) {
  auto dag = BuildOperator(spec);
  EXPECT_TRUE(dag.ok()) << spec << ": " << dag.status();
  if (!dag.ok()) return nullptr;
  return std::make_shared<const ComputeDag>(*std::move(dag));
}

// One small workload per operator of the library (plus epilogue variants),
// with extents that mostly do not divide evenly.
inline std::vector<std::string> SmallWorkloads() {
  return {
      "matmul:M=24,K=36,N=20",
      "dense:M=17,K=40,N=24,bias=1,act=relu",
      "dense:M=16,K=32,N=12,act=gelu",
      "batch_matmul:B=3,M=12,K=20,N=10",
      "batch_matmul:B=2,M=9,K=16,N=12,transpose_b=1",
      "conv2d:N=1,C=6,H=9,W=9,K=8,R=3,S=3,stride=1,pad=1",
      "conv2d:N=1,C=4,H=7,W=11,K=6,R=1,S=7,stride=1,pad_h=0,pad_w=3,bias=1,act=relu",
      "depthwise_conv2d:N=1,C=6,H=11,W=11,R=3,S=3,stride=2,pad=1",
      "max_pool2d:N=1,C=4,H=9,W=9,kernel=3,stride=2,pad=1",
      "avg_pool2d:N=1,C=3,H=8,W=8,kernel=2",
      "softmax:M=6,N=50",
      "layer_norm:M=5,N=36",
      "add:shape=6x20",
      "mul:shape=3x5x7",
      "relu:shape=130",
  };
}

}  // namespace pruner::testing

#endif  // PRUNER_TESTS_SKETCH_TEST_SUPPORT_H_
