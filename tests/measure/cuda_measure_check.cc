// measure_cuda_check: random GPU schedules of every operator carried through
// the whole measurement pipeline on a real GPU — NVRTC, sandboxed launch,
// check against the reference executor, CUDA-event timing — with the tally
// of error classes, the best GFLOP/s found, the pipeline's throughput and
// the run-to-run spread of one schedule measured 10 times.
//
//   measure_cuda_check [--n 100] [--seed 1] [--device h100] [--op SPEC]...
//
// Ends with "RESULT measure_cuda_check ...". Exit status 0 when every
// operator had at least one schedule that ran and matched and nothing was a
// wrong result, 1 otherwise, 2 for bad arguments, 3 without a usable GPU.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/codegen/cuda_nvrtc.h"
#include "common/device/device_profile.h"
#include "common/ir/ops.h"
#include "common/measure/cuda_runner_sandboxed.h"
#include "common/measure/local_measurer.h"
#include "common/sketch/annotate.h"
#include "common/sketch/random.h"
#include "common/sketch/sketch.h"
#include "tests/codegen/cuda_compile_check.h"

namespace pruner {
namespace {

struct OperatorTally {
  std::string spec;
  int sampled = 0;
  std::map<std::string, int> by_class;  // error class name -> count
  int ok = 0;
  double best_s = 0;
  double flops = 0;
  double seconds = 0;  // MeasureBatch wall time
  MeasureInput best_input;
  std::string first_error;
};

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

OperatorTally MeasureOperator(const std::string& spec, const DeviceProfile& device, int n,
                              uint64_t seed, const MeasureOptions& options) {
  OperatorTally tally;
  tally.spec = spec;
  auto built = BuildOperator(spec);
  if (!built.ok()) {
    tally.first_error = std::string(built.status().message());
    return tally;
  }
  auto dag = std::make_shared<const ComputeDag>(*std::move(built));
  tally.flops = dag->FlopCount();
  auto sketches = GenerateSketches(dag, device);
  if (!sketches.ok()) {
    tally.first_error = std::string(sketches.status().message());
    return tally;
  }
  Rng rng(seed);
  std::vector<MeasureInput> inputs;
  for (const State& state : SampleInitPopulation(*sketches, device, n, rng)) {
    inputs.push_back({dag, state.steps(), device});
  }
  tally.sampled = static_cast<int>(inputs.size());
  const double start = Now();
  const std::vector<MeasureResult> results = MeasureBatch(inputs, options);
  tally.seconds = Now() - start;
  for (size_t i = 0; i < results.size(); ++i) {
    const MeasureResult& r = results[i];
    ++tally.by_class[std::string(MeasureErrorName(r.error))];
    if (!r.ok()) {
      if (tally.first_error.empty()) tally.first_error = absl::StrCat(r.phase, ": ", r.message);
      continue;
    }
    ++tally.ok;
    if (tally.best_s == 0 || r.mean_s < tally.best_s) {
      tally.best_s = r.mean_s;
      tally.best_input = inputs[i];
    }
  }
  return tally;
}

// One schedule measured `times` times, each a separate MeasureBatch call:
// the coefficient of variation of the means.
double Spread(const MeasureInput& input, const MeasureOptions& options, int times) {
  std::vector<double> means;
  for (int i = 0; i < times; ++i) {
    const std::vector<MeasureResult> r = MeasureBatch({input}, options);
    if (r.size() == 1 && r[0].ok()) means.push_back(r[0].mean_s);
  }
  if (means.size() < 2) return -1;
  double sum = 0;
  for (double m : means) sum += m;
  const double mean = sum / means.size();
  double var = 0;
  for (double m : means) var += (m - mean) * (m - mean);
  return std::sqrt(var / (means.size() - 1)) / mean;
}

int Usage() {
  std::fprintf(stderr, "usage: measure_cuda_check [--n N] [--seed S] [--device NAME] [--op SPEC]...\n");
  return 2;
}

}  // namespace
}  // namespace pruner

int main(int argc, char** argv) {
  using namespace pruner;
  int n = 100;
  uint64_t seed = 1;
  std::string device_name = "h100";
  std::vector<std::string> specs;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (i + 1 >= argc) return Usage();
    const char* v = argv[++i];
    if (arg == "--n") {
      n = std::atoi(v);
    } else if (arg == "--seed") {
      seed = std::strtoull(v, nullptr, 10);
    } else if (arg == "--device") {
      device_name = v;
    } else if (arg == "--op") {
      specs.emplace_back(v);
    } else {
      return Usage();
    }
  }
  if (n < 1) return Usage();
  auto device = GetDeviceProfile(device_name);
  if (!device.ok() || !device->IsGpu()) {
    std::fprintf(stderr, "--device %s: not a GPU profile\n", device_name.c_str());
    return 2;
  }
  RunOutcome probe = ProbeCudaDevice();
  if (probe.error != MeasureError::kNone) {
    std::printf("no usable GPU: %s\n", probe.message.c_str());
    return 3;
  }
  if (auto nvrtc = LoadNvrtc(); !nvrtc.ok()) {
    std::printf("no NVRTC: %s\n", std::string(nvrtc.status().message()).c_str());
    return 3;
  }
  if (specs.empty()) {
    specs = CudaCheckSpecs();
    // The two workloads every benchmark of this project reports.
    specs.push_back("dense:M=1024,K=1024,N=1024");
    specs.push_back("conv2d:N=1,C=64,H=56,W=56,K=64,R=3,S=3,stride=1,pad=1");
  }
  // Tuning-run timing: one warm-up, 3 repeats of at least 5 ms (GPU kernels
  // are short: 5 ms is hundreds of launches for most of them).
  MeasureOptions options;
  options.number = 1;
  options.repeat = 3;
  options.min_repeat_ms = 5;
  options.run_timeout_s = 10;
  options.max_parallel_builds = 8;

  std::printf("profile %s (%s), %d random schedules per operator, seed %llu\n\n",
              device->name.c_str(), device->description.c_str(), n,
              static_cast<unsigned long long>(seed));
  std::printf("%-62s %5s %5s %-44s %10s %8s\n", "operator", "n", "ok", "other classes",
              "best us", "GFLOP/s");
  int total = 0, total_ok = 0, wrong = 0, operators_without_ok = 0;
  double total_seconds = 0;
  std::vector<OperatorTally> tallies;
  for (const std::string& spec : specs) {
    OperatorTally t = MeasureOperator(spec, *device, n, seed, options);
    std::string classes;
    for (const auto& [name, count] : t.by_class) {
      if (name == "ok" || name == "none") continue;
      absl::StrAppend(&classes, classes.empty() ? "" : ", ", name, " ", count);
    }
    std::printf("%-62s %5d %5d %-44s %10.2f %8.1f\n", spec.c_str(), t.sampled, t.ok,
                classes.empty() ? "-" : classes.c_str(), t.best_s * 1e6,
                t.best_s > 0 ? t.flops / t.best_s * 1e-9 : 0.0);
    if (t.ok == 0) {
      ++operators_without_ok;
      std::printf("    first error: %s\n", t.first_error.substr(0, 300).c_str());
    }
    std::fflush(stdout);  // a row per operator as it finishes
    total += t.sampled;
    total_ok += t.ok;
    total_seconds += t.seconds;
    auto w = t.by_class.find(std::string(MeasureErrorName(MeasureError::kWrongResult)));
    if (w != t.by_class.end()) wrong += w->second;
    tallies.push_back(std::move(t));
  }
  const double per_s = total / total_seconds;
  std::printf("\n%d schedules, %d ran and matched the reference, %d wrong results; "
              "%.1f candidates/s through the pipeline (NVRTC %d in parallel, runs serial)\n",
              total, total_ok, wrong, per_s, options.max_parallel_builds);

  double dense_gflops = 0, conv_gflops = 0, cv = -1;
  for (const OperatorTally& t : tallies) {
    if (t.best_s <= 0) continue;
    if (t.spec == "dense:M=1024,K=1024,N=1024") {
      dense_gflops = t.flops / t.best_s * 1e-9;
      cv = Spread(t.best_input, options, 10);
      std::printf("spread: the best dense 1024^3 schedule measured 10 times: CV %.4f\n", cv);
    }
    if (t.spec.rfind("conv2d:N=1,C=64,H=56,W=56,K=64", 0) == 0 && t.spec.find("act") == std::string::npos) {
      conv_gflops = t.flops / t.best_s * 1e-9;
    }
  }
  std::printf("RESULT measure_cuda_check device=%s schedules=%d ok=%d wrong=%d "
              "operators_without_ok=%d candidates_per_s=%.2f dense1024_best_random_gflops=%.1f "
              "conv2d_best_random_gflops=%.1f spread_cv=%.4f\n",
              device->name.c_str(), total, total_ok, wrong, operators_without_ok, per_s,
              dense_gflops, conv_gflops, cv);
  return (operators_without_ok == 0 && wrong == 0) ? 0 : 1;
}
