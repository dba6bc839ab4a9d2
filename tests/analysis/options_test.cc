// Every switch of AnalyzerOptions changes the estimate where its term is
// active, and only there: the Table-10 ablations ("each penalty removed")
// and the paper-versus-code comparison rest on that.
#include <string>
#include <vector>

#include "common/analysis/analyzer_options.h"
#include "common/analysis/symbol_analyzer.h"
#include "gtest/gtest.h"
#include "tests/analysis/analysis_test_util.h"
#include "tests/lower/lower_test_util.h"

namespace pruner {
namespace {

struct Case {
  std::string name;
  Program program;
  DeviceProfile device;
};

// Programs that, between them, make every penalty bite:
// - GPU matmul 256^3 with 4 blocks of 32 threads, a 32x16 tile per thread
//   (S1 = 560 registers) and 32 KiB of shared tiles: every GPU penalty < 1.
// - GPU element-wise add and max-only ReLU: compute rows with global
//   traffic (sum vs max, the code's traffic rule, the flop count).
// - CPU matmuls on the hand CPU with a 64 KiB L2: one with a 32x4 register
//   tile (S1 = 164 > 128), a 47 KiB reduction tile, B fetched in 80-byte
//   panels and 52 tasks on 8 cores; one with a 1x4 register tile (a single
//   accumulator chain).
std::vector<Case> Cases() {
  std::vector<Case> cases;
  auto add = [&](std::string name, const std::string& spec, const std::string& steps,
                 const DeviceProfile& device) {
    absl::StatusOr<Program> p = testing::LowerSteps(spec, steps, device);
    EXPECT_TRUE(p.ok()) << name << ": " << p.status();
    if (p.ok()) cases.push_back({std::move(name), *std::move(p), device});
  };
  const DeviceProfile gpu = testing::TestGpu();
  add("gpu matmul", "matmul:M=256,K=256,N=256",
      testing::GpuMatmulSteps(256, 256, 256, "[1,4,8,4]", "[1,8,4,4]", "[16,2]", 4), gpu);
  add("gpu add", "add:shape=64x256",
      "FU 2 [0,1]; SP 2 0 16384 [32]; AN 2 0 blockIdx.x; AN 2 1 threadIdx.x", gpu);
  add("gpu relu", "relu:shape=64x256",
      "FU 1 [0,1]; SP 1 0 16384 [64]; AN 1 0 blockIdx.x; AN 1 1 threadIdx.x", gpu);
  DeviceProfile cpu = testing::HandCpu();
  cpu.l2_cache_bytes = 64 * 1024;
  const std::string cpu_sketch =
      "RE 2 [0,4,1,5,8,2,6,9,3,7]; FSP 3 0 1 2; FSP 3 3 2 2; RE 3 [0,3,1,4,2,5]; CA 2 3 3; "
      "FU 3 [0,1]; AN 3 0 parallel; AN 2 9 vectorize; AN 3 4 vectorize";
  add("cpu matmul, big register tile", "matmul:M=256,K=256,N=256",
      "CHW 2 local; SP 2 0 256 [1,2,32]; SP 2 4 256 [1,5,4]; SP 2 8 256 [128]; " + cpu_sketch,
      cpu);
  add("cpu matmul, one chain", "matmul:M=256,K=256,N=256",
      "CHW 2 local; SP 2 0 256 [4,4,1]; SP 2 4 256 [2,1,4]; SP 2 8 256 [256]; " + cpu_sketch,
      cpu);
  return cases;
}

double Estimate(const Case& c, const AnalyzerOptions& options) {
  absl::StatusOr<double> latency = EstimateLatency(c.program, c.device, options);
  EXPECT_TRUE(latency.ok()) << c.name << ": " << latency.status();
  return latency.ok() ? *latency : 0;
}

// The value of penalty p in a row (alpha rides with P_l1,c).
double PenaltyValue(const RowPenalties& r, Penalty p) {
  switch (p) {
    case Penalty::kL0Compute: return r.l0_compute;
    case Penalty::kL1Compute: return r.l1_compute * r.l1_waste;
    case Penalty::kL2Compute: return r.l2_compute;
    case Penalty::kL0Memory: return r.l0_memory;
    case Penalty::kL1Memory: return r.l1_memory;
    case Penalty::kL2Memory: return r.l2_memory;
  }
  return 1;
}

// Removing a penalty lowers the estimate exactly when it was below 1 on a
// row whose time it scales; over the cases, every penalty bites somewhere.
TEST(AnalyzerOptions, EachPenaltySwitchChangesTheEstimateWhereItBites) {
  const std::vector<Case> cases = Cases();
  ASSERT_EQ(cases.size(), 5u);
  std::vector<bool> bit(kNumPenalties, false);
  for (const Case& c : cases) {
    absl::StatusOr<SymbolAnalyzer> analyzer = SymbolAnalyzer::Create(c.device);
    ASSERT_TRUE(analyzer.ok());
    absl::StatusOr<LatencyEstimate> full = analyzer->Analyze(c.program);
    ASSERT_TRUE(full.ok()) << full.status();
    SCOPED_TRACE(c.name + "\n" + full->ToString(c.program));
    for (Penalty p : kAllPenalties) {
      bool bites = false;
      for (const RowLatency& row : full->rows) {
        const double scaled = IsComputePenalty(p) ? row.compute_s : row.memory_s;
        bites = bites || (scaled > 0 && PenaltyValue(row.penalties, p) < 1);
      }
      const double without = Estimate(c, AnalyzerOptions().Without(p));
      if (bites) {
        EXPECT_LT(without, full->latency_s) << PenaltyName(p);
        bit[static_cast<int>(p)] = true;
      } else {
        EXPECT_DOUBLE_EQ(without, full->latency_s) << PenaltyName(p);
      }
    }
  }
  for (Penalty p : kAllPenalties) EXPECT_TRUE(bit[static_cast<int>(p)]) << PenaltyName(p);
}

// Table 10's two ablations remove a whole side; the master switches and
// the per-penalty switches agree.
TEST(AnalyzerOptions, RemovingComputeOrMemoryPenaltiesLowersTheEstimate) {
  for (const Case& c : Cases()) {
    SCOPED_TRACE(c.name);
    const double full = Estimate(c, AnalyzerOptions());
    const double no_compute = Estimate(c, AnalyzerOptions().WithoutComputePenalties());
    const double no_memory = Estimate(c, AnalyzerOptions().WithoutMemoryPenalties());
    EXPECT_LT(no_compute, full);
    EXPECT_LE(no_memory, full);
    AnalyzerOptions each = AnalyzerOptions();
    for (Penalty p : kAllPenalties) {
      if (!IsComputePenalty(p)) each = each.Without(p);
    }
    EXPECT_DOUBLE_EQ(Estimate(c, each), no_memory);
  }
}

// The switches that are not penalties: each one changes at least one
// case's estimate, and CodeBehaviour flips them all.
TEST(AnalyzerOptions, EveryPaperVersusCodeSwitchChangesSomeEstimate) {
  const std::vector<Case> cases = Cases();
  struct Switch {
    const char* name;
    AnalyzerOptions options;
  };
  std::vector<Switch> switches;
  auto flip = [&](const char* name, auto change) {
    AnalyzerOptions o;
    change(o);
    switches.push_back({name, o});
  };
  flip("use_memory_penalties", [](AnalyzerOptions& o) { o.use_memory_penalties = false; });
  flip("use_s7", [](AnalyzerOptions& o) { o.use_s7 = false; });
  flip("register_penalty_on_compute",
       [](AnalyzerOptions& o) { o.register_penalty_on_compute = true; });
  flip("fold_warp_scheduling_into_grid",
       [](AnalyzerOptions& o) { o.fold_warp_scheduling_into_grid = true; });
  flip("combine", [](AnalyzerOptions& o) { o.combine = RowCombine::kMax; });
  flip("count_actual_global_traffic",
       [](AnalyzerOptions& o) { o.count_actual_global_traffic = false; });
  flip("count_all_float_ops", [](AnalyzerOptions& o) { o.count_all_float_ops = false; });
  flip("code_units", [](AnalyzerOptions& o) { o.code_units = true; });
  flip("cpu_fallback_gbps_per_core", [](AnalyzerOptions& o) {
    o.cpu_fallback_gbps_per_core = 5;
  });
  // The fallback bandwidth only matters where the profile has none.
  std::vector<Case> all = cases;
  for (const Case& c : cases) {
    if (c.device.IsGpu()) continue;
    Case unknown = c;
    unknown.name += ", unknown bandwidth";
    unknown.device.mem_bandwidth_gbps = 0;
    all.push_back(unknown);
    break;
  }
  for (const Switch& s : switches) {
    bool changed = false;
    for (const Case& c : all) changed = changed || Estimate(c, s.options) != Estimate(c, {});
    EXPECT_TRUE(changed) << s.name;
    EXPECT_NE(s.options.Describe(), AnalyzerOptions().Describe()) << s.name;
  }
  EXPECT_EQ(AnalyzerOptions::CodeBehaviour().Describe(), "code");
  EXPECT_EQ(AnalyzerOptions().Describe(), "paper");
  EXPECT_EQ(AnalyzerOptions().Without(Penalty::kL1Memory).Describe(), "paper -P_l1,m");
}

}  // namespace
}  // namespace pruner
