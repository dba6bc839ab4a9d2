// Throughput of feature extraction on random sketch schedules, one thread:
// lowering alone, features of already lowered programs, and both together
// (what the evolutionary search pays per state). Not a test; run by hand:
//   build/tests/features/features_throughput [--n 2000] [--repeat R] [--op SPEC]
//       [--device cpu|a100|...] [--dump]
// Every phase runs R times (--repeat, default 3) and the fastest pass
// counts.
// Ends with one "RESULT features ..." line per device.
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

void Dump(const Program& program, const ProgramFeatures& features) {
  std::cout << program.ToString();
  const std::vector<std::string>& names = StatementFeatureNames();
  for (size_t r = 0; r < features.size(); ++r) {
    std::cout << "row " << r << ":\n";
    for (int i = 0; i < kNumStatementFeatures; ++i) {
      if (features[r][i] != 0.0f) std::cout << "  " << names[i] << " = " << features[r][i] << "\n";
    }
  }
}

int Run(const std::string& spec, const std::string& device_name, int n, int repeat, bool dump) {
  absl::StatusOr<ComputeDag> built = BuildOperator(spec);
  absl::StatusOr<DeviceProfile> device = GetDeviceProfile(device_name);
  if (!built.ok() || !device.ok()) {
    std::cerr << (built.ok() ? device.status() : built.status()) << "\n";
    return 1;
  }
  auto dag = std::make_shared<const ComputeDag>(*std::move(built));
  absl::StatusOr<std::vector<Sketch>> sketches = GenerateSketches(dag, *device);
  if (!sketches.ok()) {
    std::cerr << sketches.status() << "\n";
    return 1;
  }
  Rng rng(1);
  std::vector<State> states;
  for (int attempt = 0; static_cast<int>(states.size()) < n && attempt < 20 * n; ++attempt) {
    absl::StatusOr<State> s = SampleSchedule(rng.Choice(*sketches), *device, rng);
    if (s.ok()) states.push_back(*std::move(s));
  }
  // Each phase runs `repeat` times; the fastest pass counts, so that load
  // from other processes on a shared machine distorts the numbers less.
  std::vector<Program> programs;
  double lower_s = 1e30, features_s = 1e30, both_s = 1e30;
  size_t rows = 0, ok = 0;
  for (int r = 0; r < repeat; ++r) {
    programs.clear();
    auto start = std::chrono::steady_clock::now();
    for (const State& s : states) {
      absl::StatusOr<Program> p = Lower(s, *device);
      if (p.ok()) programs.push_back(*std::move(p));
    }
    lower_s = std::min(lower_s, Since(start));
    rows = 0;
    start = std::chrono::steady_clock::now();
    for (const Program& p : programs) rows += ExtractStatementFeatures(p, *device).size();
    features_s = std::min(features_s, Since(start));
    ok = 0;
    start = std::chrono::steady_clock::now();
    for (const State& s : states) ok += ExtractStateFeatures(s, *device).ok() ? 1 : 0;
    both_s = std::min(both_s, Since(start));
  }
  if (dump && !programs.empty()) Dump(programs[0], ExtractStatementFeatures(programs[0], *device));

  const double np = static_cast<double>(programs.size());
  std::printf(
      "%-28s %-10s %5zu states  lower %8.0f/s  features %8.0f/s (%.1f rows)  "
      "lower+features %8.0f/s\n",
      spec.c_str(), device->name.c_str(), states.size(), np / lower_s, np / features_s,
      rows / std::max(np, 1.0), ok / both_s);
  std::printf(
      "RESULT features op=%s device=%s lower_per_s=%.0f features_per_s=%.0f "
      "lower_features_per_s=%.0f\n",
      spec.c_str(), device->name.c_str(), np / lower_s, np / features_s, ok / both_s);
  return 0;
}

}  // namespace
}  // namespace pruner

int main(int argc, char** argv) {
  int n = 2000;
  int repeat = 3;
  bool dump = false;
  std::vector<std::string> ops;
  std::vector<std::string> devices;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--n") && i + 1 < argc) {
      n = std::atoi(argv[++i]);
    } else if (!std::strcmp(argv[i], "--op") && i + 1 < argc) {
      ops.push_back(argv[++i]);
    } else if (!std::strcmp(argv[i], "--device") && i + 1 < argc) {
      devices.push_back(argv[++i]);
    } else if (!std::strcmp(argv[i], "--repeat") && i + 1 < argc) {
      repeat = std::max(1, std::atoi(argv[++i]));
    } else if (!std::strcmp(argv[i], "--dump")) {
      dump = true;
    } else {
      std::cerr << "usage: features_throughput [--n N] [--repeat R] [--op SPEC]... [--device D]... "
                   "[--dump]\n";
      return 2;
    }
  }
  if (ops.empty()) ops.push_back("dense:M=512,K=512,N=512");
  if (devices.empty()) devices = {"cpu", "a100"};
  int rc = 0;
  for (const std::string& op : ops) {
    for (const std::string& device : devices) rc |= pruner::Run(op, device, n, repeat, dump);
  }
  return rc;
}
