// codegen_cuda_check: compiles random GPU schedules of every operator with
// NVRTC and reports what ptxas says about them.
//
//   codegen_cuda_check [--n 100] [--seed 1] [--device a100]
//                      [--arch compute_80,compute_90] [--op SPEC]... [--no-ptxas] [--show]
//
// Exit status 0 when every generated module compiled and assembled for
// every architecture, 1 when something failed, 2 for bad arguments, 3 when
// NVRTC is missing.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "common/codegen/cuda_nvrtc.h"
#include "common/device/device_profile.h"
#include "tests/codegen/cuda_compile_check.h"

namespace {

int Usage() {
  std::cerr << "usage: codegen_cuda_check [--n N] [--seed S] [--device NAME] "
               "[--arch A,B] [--op SPEC]... [--no-ptxas] [--show]\n";
  return 2;
}

std::string RegisterSummary(std::vector<int> regs) {
  if (regs.empty()) return "-";
  std::sort(regs.begin(), regs.end());
  double sum = 0;
  for (int r : regs) sum += r;
  char buf[128];
  std::snprintf(buf, sizeof(buf), "min %d / median %d / mean %.1f / max %d", regs.front(),
                regs[regs.size() / 2], sum / regs.size(), regs.back());
  return buf;
}

}  // namespace

int main(int argc, char** argv) {
  pruner::CudaCompileCheckOptions options;
  options.num_schedules = 100;
  std::string device_name = "a100";
  std::vector<std::string> specs;
  bool show = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
    if (arg == "--n") {
      const char* v = value();
      if (v == nullptr) return Usage();
      options.num_schedules = std::atoi(v);
    } else if (arg == "--seed") {
      const char* v = value();
      if (v == nullptr) return Usage();
      options.seed = std::strtoull(v, nullptr, 10);
    } else if (arg == "--device") {
      const char* v = value();
      if (v == nullptr) return Usage();
      device_name = v;
    } else if (arg == "--arch") {
      const char* v = value();
      if (v == nullptr) return Usage();
      options.archs = absl::StrSplit(v, ',', absl::SkipEmpty());
    } else if (arg == "--op") {
      const char* v = value();
      if (v == nullptr) return Usage();
      specs.emplace_back(v);
    } else if (arg == "--no-ptxas") {
      options.run_ptxas = false;
    } else if (arg == "--show") {
      show = true;
    } else {
      return Usage();
    }
  }
  if (specs.empty()) specs = pruner::CudaCheckSpecs();
  auto device = pruner::GetDeviceProfile(device_name);
  if (!device.ok()) {
    std::cerr << device.status() << "\n";
    return 2;
  }
  auto nvrtc = pruner::LoadNvrtc();
  if (!nvrtc.ok()) {
    std::cerr << nvrtc.status().message() << "\n";
    return 3;
  }
  std::cout << "NVRTC " << nvrtc->major << "." << nvrtc->minor << " (" << nvrtc->library
            << "), device profile " << device->name << ", " << options.num_schedules
            << " schedules per operator\n";

  bool all_ok = true;
  for (const std::string& spec : specs) {
    auto report = pruner::CheckCudaCompile(spec, *device, options);
    if (!report.ok()) {
      std::cout << spec << ": " << report.status() << "\n";
      all_ok = false;
      continue;
    }
    std::cout << "\n" << spec << ": sampled " << report->sampled << ", lowered "
              << report->lowered << ", CUDA generated " << report->generated << "\n";
    for (const auto& [arch, s] : report->per_arch) {
      std::cout << "  " << arch << ": NVRTC " << s.compiled << "/" << report->generated;
      if (options.run_ptxas) {
        std::cout << ", ptxas " << s.assembled << "/" << s.compiled << ", registers "
                  << RegisterSummary(s.registers) << ", max smem " << s.max_shared_bytes
                  << " B, kernels spilling " << s.kernels_spilling << ", max cubin "
                  << s.max_cubin_bytes << " B, resource-invalid " << s.resource_invalid;
      }
      if (s.compiled > 0) std::cout << ", NVRTC " << s.nvrtc_ms / s.compiled << " ms avg";
      std::cout << "\n";
      if (s.compiled != report->generated || (options.run_ptxas && s.assembled != s.compiled)) {
        all_ok = false;
      }
    }
    if (report->generated != report->lowered) all_ok = false;
    for (const auto& [what, count] : report->failures) {
      std::cout << "  " << count << "x " << what << "\n";
    }
    if (show && !report->first_failure.empty()) std::cout << report->first_failure << "\n";
    if (show && !report->example_source.empty()) std::cout << report->example_source << "\n";
    std::cout.flush();  // progress shows while the next operator compiles
  }
  std::cout << (all_ok ? "\nall generated modules compiled\n" : "\nFAILURES above\n");
  return all_ok ? 0 : 1;
}
