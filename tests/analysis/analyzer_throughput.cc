// Throughput of the symbol analyzer on random sketch schedules, one thread:
// lowering alone, the analysis of already lowered programs, and both
// together (what drafting pays per candidate). Not a test; run by hand:
//   build/tests/analysis/analyzer_throughput [--n 1000] [--repeat R] [--op SPEC]
//       [--devices cpu,a100] [--dump K]
// --dump K prints the K-th schedule's program and analysis per device.
// Every phase runs R times (default 3) and the fastest pass counts. Ends
// with "RESULT analyzer_throughput cpu_states_per_s=... gpu_states_per_s=..."
// (lowering included), taking the first CPU and the first GPU device.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "common/analysis/symbol_analyzer.h"
#include "common/device/device_profile.h"
#include "common/ir/ops.h"
#include "common/lower/lower.h"
#include "common/sketch/annotate.h"
#include "common/sketch/sketch.h"

namespace pruner {
namespace {

double Since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

struct Rates {
  double lower_per_s = 0;
  double analyze_per_s = 0;
  double both_per_s = 0;
};

absl::StatusOr<Rates> Run(const std::string& spec, const std::string& device_name, int n,
                          int repeat, int dump) {
  absl::StatusOr<ComputeDag> built = BuildOperator(spec);
  if (!built.ok()) return built.status();
  absl::StatusOr<DeviceProfile> device = GetDeviceProfile(device_name);
  if (!device.ok()) return device.status();
  absl::StatusOr<SymbolAnalyzer> analyzer = SymbolAnalyzer::Create(*device);
  if (!analyzer.ok()) return analyzer.status();
  auto dag = std::make_shared<const ComputeDag>(*std::move(built));
  absl::StatusOr<std::vector<Sketch>> sketches = GenerateSketches(dag, *device);
  if (!sketches.ok()) return sketches.status();
  Rng rng(1);
  const std::vector<State> states = SampleInitPopulation(*sketches, *device, n, rng);
  if (states.empty()) return absl::NotFoundError("no valid schedule sampled");

  std::vector<Program> programs;
  double lower_s = 1e30, analyze_s = 1e30, both_s = 1e30;
  int valid = 0;
  for (int r = 0; r < repeat; ++r) {
    programs.clear();
    auto start = std::chrono::steady_clock::now();
    for (const State& s : states) {
      absl::StatusOr<Program> p = Lower(s, *device);
      if (p.ok()) programs.push_back(*std::move(p));
    }
    lower_s = std::min(lower_s, Since(start));
    start = std::chrono::steady_clock::now();
    valid = 0;
    for (const Program& p : programs) valid += analyzer->EstimateLatency(p).ok();
    analyze_s = std::min(analyze_s, Since(start));
    start = std::chrono::steady_clock::now();
    const std::vector<absl::StatusOr<double>> estimates = analyzer->EstimateStates(states, 1);
    both_s = std::min(both_s, Since(start));
  }
  if (dump >= 0 && dump < static_cast<int>(programs.size())) {
    std::cout << programs[dump].ToString();
    absl::StatusOr<LatencyEstimate> e = analyzer->Analyze(programs[dump]);
    std::cout << (e.ok() ? e->ToString(programs[dump]) : std::string(e.status().message()))
              << "\n";
  }
  const double count = static_cast<double>(states.size());
  std::printf("%-28s %-12s %5zu states %5zu lowered %5d estimated | lower %8.0f/s  analyze %8.0f/s"
              "  both %8.0f/s\n",
              spec.c_str(), device->name.c_str(), states.size(), programs.size(), valid,
              count / lower_s, programs.size() / analyze_s, count / both_s);
  return Rates{count / lower_s, programs.size() / analyze_s, count / both_s};
}

}  // namespace
}  // namespace pruner

int main(int argc, char** argv) {
  int n = 1000, repeat = 3, dump = -1;
  std::string op = "matmul:M=512,K=512,N=512";
  std::string devices = "cpu,a100";
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--n")) n = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--repeat")) repeat = std::max(1, std::atoi(argv[i + 1]));
    else if (!std::strcmp(argv[i], "--op")) op = argv[i + 1];
    else if (!std::strcmp(argv[i], "--devices")) devices = argv[i + 1];
    else if (!std::strcmp(argv[i], "--dump")) dump = std::atoi(argv[i + 1]);
  }
  double cpu_rate = 0, gpu_rate = 0;
  for (const std::string& name : std::vector<std::string>(absl::StrSplit(devices, ','))) {
    absl::StatusOr<pruner::Rates> rates = pruner::Run(op, name, n, repeat, dump);
    if (!rates.ok()) {
      std::cerr << name << ": " << rates.status() << "\n";
      return 1;
    }
    absl::StatusOr<pruner::DeviceProfile> device = pruner::GetDeviceProfile(name);
    double& slot = device->IsGpu() ? gpu_rate : cpu_rate;
    if (slot == 0) slot = rates->both_per_s;
  }
  std::printf("RESULT analyzer_throughput cpu_states_per_s=%.0f gpu_states_per_s=%.0f\n", cpu_rate,
              gpu_rate);
  return 0;
}
