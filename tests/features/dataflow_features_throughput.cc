// Throughput of PaCM's feature extraction on random sketch schedules, one
// thread: states/s of ExtractPaCMFeatures (lowering, statement rows and
// dataflow blocks: what scoring a state with PaCM costs before the model),
// next to ExtractStateFeatures (the statement rows alone) and the
// dataflow blocks of already lowered programs. Not a test; run by hand:
//   build/tests/features/dataflow_features_throughput [--n 500] [--repeat R] [--op SPEC]
// Every phase runs R times (default 3) and the fastest pass counts. Ends
// with one line:
//   RESULT dataflow_features_throughput cpu_states_per_s=... gpu_states_per_s=...
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "common/device/device_profile.h"
#include "common/features/dataflow_features.h"
#include "common/features/pacm_features.h"
#include "common/features/statement_features.h"
#include "common/ir/ops.h"
#include "common/lower/lower.h"
#include "common/sketch/annotate.h"
#include "common/sketch/sketch.h"

namespace pruner {
namespace {

double Since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// PaCM states/s for one device, or a negative value on error.
double Run(const std::string& spec, const DeviceProfile& device, int n, int repeat) {
  absl::StatusOr<ComputeDag> built = BuildOperator(spec);
  if (!built.ok()) {
    std::cerr << built.status() << "\n";
    return -1;
  }
  auto dag = std::make_shared<const ComputeDag>(*std::move(built));
  absl::StatusOr<std::vector<Sketch>> sketches = GenerateSketches(dag, device);
  if (!sketches.ok()) {
    std::cerr << sketches.status() << "\n";
    return -1;
  }
  Rng rng(1);
  std::vector<State> states;
  for (int attempt = 0; static_cast<int>(states.size()) < n && attempt < 20 * n; ++attempt) {
    absl::StatusOr<State> s = SampleSchedule(rng.Choice(*sketches), device, rng);
    if (s.ok()) states.push_back(*std::move(s));
  }
  std::vector<Program> programs;
  for (const State& s : states) {
    absl::StatusOr<Program> p = Lower(s, device);
    if (p.ok()) programs.push_back(*std::move(p));
  }
  double pacm_s = 1e30, statement_s = 1e30, blocks_s = 1e30;
  size_t ok = 0, with_pattern = 0;
  for (int r = 0; r < repeat; ++r) {
    auto start = std::chrono::steady_clock::now();
    ok = 0;
    for (const State& s : states) ok += ExtractPaCMFeatures(s, device).ok() ? 1 : 0;
    pacm_s = std::min(pacm_s, Since(start));
    start = std::chrono::steady_clock::now();
    for (const State& s : states) (void)ExtractStateFeatures(s, device);
    statement_s = std::min(statement_s, Since(start));
    start = std::chrono::steady_clock::now();
    with_pattern = 0;
    for (const Program& p : programs) with_pattern += ExtractDataflowFeatures(p, device).has_pattern;
    blocks_s = std::min(blocks_s, Since(start));
  }
  const double ns = static_cast<double>(states.size());
  const double np = static_cast<double>(programs.size());
  std::printf(
      "%-28s %-10s %5zu states (%zu with the pattern)  pacm %8.0f/s  statement rows only "
      "%8.0f/s  blocks of lowered programs %8.0f/s\n",
      spec.c_str(), device.name.c_str(), states.size(), with_pattern, ok / pacm_s,
      ns / statement_s, np / blocks_s);
  return ok / pacm_s;
}

}  // namespace
}  // namespace pruner

int main(int argc, char** argv) {
  int n = 500;
  int repeat = 3;
  std::string op = "dense:M=512,K=512,N=512";
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--n") && i + 1 < argc) {
      n = std::max(1, std::atoi(argv[++i]));
    } else if (!std::strcmp(argv[i], "--op") && i + 1 < argc) {
      op = argv[++i];
    } else if (!std::strcmp(argv[i], "--repeat") && i + 1 < argc) {
      repeat = std::max(1, std::atoi(argv[++i]));
    } else {
      std::cerr << "usage: dataflow_features_throughput [--n N] [--repeat R] [--op SPEC]\n";
      return 2;
    }
  }
  absl::StatusOr<pruner::DeviceProfile> cpu = pruner::GetDeviceProfile("cpu");
  absl::StatusOr<pruner::DeviceProfile> gpu = pruner::GetDeviceProfile("a100");
  if (!cpu.ok() || !gpu.ok()) return 1;
  const double cpu_rate = pruner::Run(op, *cpu, n, repeat);
  const double gpu_rate = pruner::Run(op, *gpu, n, repeat);
  if (cpu_rate < 0 || gpu_rate < 0) return 1;
  std::printf("RESULT dataflow_features_throughput cpu_states_per_s=%.0f gpu_states_per_s=%.0f\n",
              cpu_rate, gpu_rate);
  return 0;
}
