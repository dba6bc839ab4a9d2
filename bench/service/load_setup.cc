#include "bench/service/load_setup.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "common/device/device_profile.h"
#include "proto/wire_convert.h"

namespace pruner::bench {
namespace {

// Small shapes: each has a search space of many thousands of distinct
// schedules, so the random policy never runs dry within a run, while
// sketch generation and the records stay cheap.
constexpr const char* kOps[] = {
    "matmul:M=64,K=64,N=64",           "matmul:M=128,K=64,N=64",
    "matmul:M=64,K=128,N=64",          "matmul:M=64,K=64,N=128",
    "matmul:M=128,K=128,N=128",        "matmul:M=256,K=64,N=128",
    "matmul:M=96,K=96,N=96",           "matmul:M=128,K=256,N=64",
    "dense:M=64,K=128,N=256",          "dense:M=32,K=512,N=128",
    "dense:M=128,K=128,N=128",         "dense:M=16,K=1024,N=256",
    "dense:M=64,K=256,N=64,bias=1",    "dense:M=48,K=192,N=96",
    "dense:M=128,K=64,N=512,act=relu", "dense:M=256,K=256,N=64,bias=1,act=relu",
};

}  // namespace

v1::Device SimulatedDevice() {
  DeviceProfile profile = DetectLocalCpu();
  profile.name = "sim-cpu";
  profile.description = absl::StrCat("simulated worker (no measurement) on ", profile.description);
  return DeviceToWire(profile);
}

int JobsToKeepBusy(int max_workers, int max_candidates, int per_round) {
  const int64_t in_flight = 2 * static_cast<int64_t>(max_workers) * max_candidates;
  const int64_t jobs = (in_flight + per_round - 1) / std::max(1, per_round);
  return static_cast<int>(std::max<int64_t>(16, jobs));
}

std::vector<v1::JobSpec> LoadJobSpecs(const LoadJobSettings& settings, const std::string& target) {
  std::vector<v1::JobSpec> specs;
  constexpr int kNumOps = sizeof(kOps) / sizeof(kOps[0]);
  for (int i = 0; i < settings.jobs; ++i) {
    v1::JobSpec spec;
    spec.set_name(absl::StrCat("service-load-", i, " (simulated workers)"));
    spec.add_ops(kOps[i % kNumOps]);
    spec.set_target(target);
    spec.set_strategy("random");
    spec.set_scheduler("round-robin");
    spec.set_trial_budget(settings.budget);
    spec.set_measures_per_round(settings.per_round);
    spec.set_seed(static_cast<uint64_t>(i + 1));
    specs.push_back(std::move(spec));
  }
  return specs;
}

}  // namespace pruner::bench
