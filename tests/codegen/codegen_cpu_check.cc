// codegen_cpu_check: the CPU codegen evidence run. For each operator of the
// library (or the --op ones), samples N random CPU schedules for this
// machine, and sends each through Lower -> GenerateCpuSource -> build (a
// BuildPool) -> dlopen -> run on random inputs -> compare with the reference
// executor. Prints one line of counts per operator and the failures.
//
//   codegen_cpu_check [--n 100] [--seed 1] [--jobs 2] [--op SPEC]...
//                     [--march native] [--backend llvm|gcc] [--redraw-splits]
//                     [--show-failure]
// --redraw-splits redraws every split length from [1, 7] (non-dividing
// tiles, so guards); redrawn schedules over a device limit are "skipped".
// Exit status 0 when every sampled schedule matched.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "absl/time/clock.h"
#include "common/device/device_profile.h"
#include "tests/codegen/cpu_check_util.h"

namespace {

int Usage() {
  std::fprintf(stderr,
               "usage: codegen_cpu_check [--n N] [--seed S] [--jobs J] [--op SPEC]... "
               "[--march TARGET] [--backend llvm|gcc] [--redraw-splits] [--show-failure]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // progress shows when piped to a log
  pruner::testing::CpuCheckOptions options;
  options.num_schedules = 100;
  std::vector<std::string> ops;
  bool show_failure = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--n" && has_value) {
      options.num_schedules = std::atoi(argv[++i]);
    } else if (arg == "--seed" && has_value) {
      options.seed = std::strtoull(argv[++i], nullptr, 10);
    } else if (arg == "--jobs" && has_value) {
      options.max_parallel_builds = std::atoi(argv[++i]);
    } else if (arg == "--op" && has_value) {
      ops.push_back(argv[++i]);
    } else if (arg == "--march" && has_value) {
      options.build.march = argv[++i];
    } else if (arg == "--backend" && has_value) {
      std::optional<pruner::CpuBackend> backend = pruner::ParseCpuBackend(argv[++i]);
      if (!backend) return Usage();
      options.build.backend = *backend;
    } else if (arg == "--redraw-splits") {
      options.redraw_split_lengths = true;
    } else if (arg == "--show-failure") {
      show_failure = true;
    } else {
      return Usage();
    }
  }
  if (ops.empty()) ops = pruner::testing::CpuCheckOperators();

  const pruner::DeviceProfile device = pruner::DetectLocalCpu();
  std::printf("device: %s (%s, %d threads), %d schedules per operator, %d parallel builds\n",
              device.description.c_str(), device.vector_isa.c_str(), device.num_cores,
              options.num_schedules, options.max_parallel_builds);
  const std::string work_dir = pruner::testing::MakeWorkDir("check");
  int total_sampled = 0, total_matched = 0, total_skipped = 0;
  bool all_ok = true;
  for (const std::string& op : ops) {
    const absl::Time start = absl::Now();
    absl::StatusOr<pruner::testing::CpuCheckCounts> counts =
        pruner::testing::CheckRandomCpuSchedules(op, device, options, work_dir);
    if (!counts.ok()) {
      std::printf("%-58s error: %s\n", op.c_str(), std::string(counts.status().message()).c_str());
      all_ok = false;
      continue;
    }
    const int built = counts->built;
    std::printf(
        "%-58s sampled %3d skipped %3d lowered %3d generated %3d built %3d matched %3d  "
        "(avg build %.2f s, avg .so %lld B, wall %.1f s)\n",
        op.c_str(), counts->sampled, counts->skipped, counts->lowered, counts->generated, built, counts->matched,
        built > 0 ? counts->build_seconds / built : 0.0,
        built > 0 ? static_cast<long long>(counts->binary_bytes / built) : 0LL,
        absl::ToDoubleSeconds(absl::Now() - start));
    for (const auto& [failure, count] : counts->failures) {
      std::printf("    %4d x %s\n", count, failure.c_str());
    }
    if (show_failure && !counts->first_failure.empty()) {
      std::printf("first failure:\n%s\n", counts->first_failure.c_str());
    }
    total_sampled += counts->sampled;
    total_matched += counts->matched;
    total_skipped += counts->skipped;
    all_ok = all_ok && counts->matched + counts->skipped == counts->sampled && counts->matched > 0;
  }
  std::printf("total: %d of %d sampled schedules built, ran and matched (%d skipped)\n",
              total_matched, total_sampled, total_skipped);
  std::error_code ec;
  std::filesystem::remove_all(work_dir, ec);
  return all_ok ? 0 : 1;
}
