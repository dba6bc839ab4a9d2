// How fast the engine turns a workload into candidate programs. Every search
// (random, evolutionary, LSE drafting) is bounded by these rates:
// sampling a schedule from a sketch, replaying a stored sentence, and
// lowering a state to a loop-nest program.
//
// Usage: bench_schedule_throughput [--n N] [--seconds S]
// Prints a table per (workload, device) and ends with a RESULT line.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/device/device_profile.h"
#include "common/ir/ops.h"
#include "common/lower/lower.h"
#include "common/sketch/annotate.h"
#include "common/sketch/random.h"
#include "common/sketch/sketch.h"

namespace pruner {
namespace {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

struct Rates {
  double sketch_ms = 0;
  double sampled_per_s = 0;   // valid concrete schedules drawn from sketches
  double attempts_per_s = 0;  // draws including invalid ones
  double replayed_per_s = 0;  // State::Replay of stored sentences
  double lowered_per_s = 0;   // Lower() of valid states
  int lowered_ok = 0;
  int lowered_total = 0;
};

Rates Measure(const std::string& spec, const DeviceProfile& device, int n, double min_seconds) {
  Rates r;
  auto built = BuildOperator(spec);
  if (!built.ok()) {
    std::fprintf(stderr, "%s: %s\n", spec.c_str(), std::string(built.status().message()).c_str());
    std::exit(1);
  }
  auto dag = std::make_shared<const ComputeDag>(*std::move(built));
  auto t0 = Clock::now();
  auto sketches = GenerateSketches(dag, device);
  r.sketch_ms = SecondsSince(t0) * 1e3;
  if (!sketches.ok() || sketches->empty()) {
    std::fprintf(stderr, "%s: no sketches\n", spec.c_str());
    std::exit(1);
  }
  // Sampling: draw until n valid schedules and min_seconds have passed.
  Rng rng(42);
  std::vector<State> states;
  int attempts = 0;
  t0 = Clock::now();
  while (static_cast<int>(states.size()) < n || SecondsSince(t0) < min_seconds) {
    const Sketch& sketch = (*sketches)[rng.Below(sketches->size())];
    ++attempts;
    auto s = SampleSchedule(sketch, device, rng);
    if (s.ok()) states.push_back(*std::move(s));
    if (attempts > 100 * n) break;
  }
  double elapsed = SecondsSince(t0);
  r.sampled_per_s = states.size() / elapsed;
  r.attempts_per_s = attempts / elapsed;
  // Replay: what a worker or the records store does with a sentence.
  std::vector<std::vector<Step>> sentences;
  for (const State& s : states) sentences.push_back(s.steps());
  t0 = Clock::now();
  int replayed = 0;
  do {
    for (const auto& steps : sentences) {
      if (State::Replay(dag, steps).ok()) ++replayed;
    }
  } while (SecondsSince(t0) < min_seconds);
  r.replayed_per_s = replayed / SecondsSince(t0);
  // Lowering.
  t0 = Clock::now();
  do {
    for (const State& s : states) {
      ++r.lowered_total;
      if (Lower(s, device).ok()) ++r.lowered_ok;
    }
  } while (SecondsSince(t0) < min_seconds);
  r.lowered_per_s = r.lowered_total / SecondsSince(t0);
  return r;
}

}  // namespace
}  // namespace pruner

int main(int argc, char** argv) {
  using namespace pruner;
  int n = 300;
  double seconds = 1.0;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--n")) n = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--seconds")) seconds = std::atof(argv[i + 1]);
  }
  const std::vector<std::pair<std::string, std::string>> workloads = {
      {"dense", "dense:M=1024,K=1024,N=1024"},
      {"conv2d", "conv2d:N=1,C=64,H=56,W=56,K=64,R=3,S=3,stride=1,pad=1"},
  };
  const std::vector<std::string> devices = {"cpu", "a100"};
  std::string result = "RESULT schedule_throughput";
  std::printf("%-8s %-10s %10s %12s %12s %12s %12s %10s\n", "workload", "device", "sketch_ms",
              "sampled/s", "attempts/s", "replayed/s", "lowered/s", "lower/smp");
  for (const auto& [name, spec] : workloads) {
    for (const std::string& device_name : devices) {
      auto device = GetDeviceProfile(device_name);
      if (!device.ok()) return 1;
      Rates r = Measure(spec, *device, n, seconds);
      // lower/smp: how many lowerings fit in the time of one sample; the
      // search pays both per candidate.
      std::printf("%-8s %-10s %10.2f %12.0f %12.0f %12.0f %12.0f %10.2f\n", name.c_str(),
                  device->name.c_str(), r.sketch_ms, r.sampled_per_s, r.attempts_per_s,
                  r.replayed_per_s, r.lowered_per_s, r.lowered_per_s / r.sampled_per_s);
      if (r.lowered_ok != r.lowered_total) {
        std::printf("  note: %d of %d sampled schedules failed to lower\n",
                    r.lowered_total - r.lowered_ok, r.lowered_total);
      }
      const std::string key = absl::StrCat(name, "_", device_name);
      absl::StrAppend(&result, " ", key, "_sampled_per_s=", static_cast<int64_t>(r.sampled_per_s),
                      " ", key, "_lowered_per_s=", static_cast<int64_t>(r.lowered_per_s));
    }
  }
  std::printf("%s\n", result.c_str());
  return 0;
}
