#include "common/measure/local_measurer.h"

#include <stdlib.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <memory>
#include <mutex>
#include <numeric>
#include <optional>
#include <string>
#include <thread>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "common/base/parallel_for.h"
#include "common/codegen/cpu_build.h"
#include "common/codegen/cpu_codegen.h"
#include "common/codegen/cpu_compiler.h"
#include "common/codegen/cuda_codegen.h"
#include "common/codegen/cuda_nvrtc.h"
#include "common/lower/lower.h"
#include "common/measure/cpu_runner.h"
#include "common/measure/cuda_compile_sandboxed.h"
#include "common/measure/cuda_runner_sandboxed.h"
#include "common/measure/host_load.h"
#include "common/measure/reference_cache.h"
#include "common/schedule/state.h"

namespace pruner {
namespace {

void Fail(MeasureResult* r, MeasureError error, std::string phase, const absl::Status& status) {
  r->error = error;
  r->phase = std::move(phase);
  r->message = std::string(status.message());
}

// A fresh directory under $TMPDIR removed on destruction, or the caller's.
class WorkDir {
 public:
  explicit WorkDir(const std::string& requested) : path_(requested) {
    if (!path_.empty()) {
      std::error_code ec;
      std::filesystem::create_directories(path_, ec);
      return;
    }
    const char* tmp = getenv("TMPDIR");
    std::string templ = absl::StrCat(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp",
                                     "/pruner_measure_XXXXXX");
    if (mkdtemp(templ.data()) != nullptr) {
      path_ = templ;
      owned_ = true;
    } else {
      path_ = tmp != nullptr && *tmp != '\0' ? tmp : "/tmp";
    }
  }
  ~WorkDir() {
    std::error_code ec;
    if (owned_) std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  bool owned_ = false;
};

// What survives steps 1-2 for one input.
struct Prepared {
  Program program;
  std::shared_ptr<const ReferenceData> reference;
};

std::optional<Prepared> LowerAndFetchReference(const MeasureInput& input,
                                               const MeasureOptions& options,
                                               MeasureResult* result) {
  if (input.dag == nullptr) {
    Fail(result, MeasureError::kInvalidSchedule, "lower", absl::InvalidArgumentError("no DAG"));
    return std::nullopt;
  }
  auto state = State::Replay(input.dag, input.steps);
  if (!state.ok()) {
    Fail(result, MeasureError::kInvalidSchedule, "lower", state.status());
    return std::nullopt;
  }
  auto program = Lower(*state, input.device);
  if (!program.ok()) {
    Fail(result, MeasureError::kInvalidSchedule, "lower", program.status());
    return std::nullopt;
  }
  auto reference = GetReferenceData(*input.dag, options.seed);
  if (!reference.ok()) {
    Fail(result, MeasureError::kRunError, "check",
         absl::InternalError(absl::StrCat("reference executor: ", reference.status().message())));
    return std::nullopt;
  }
  return Prepared{*std::move(program), *std::move(reference)};
}

void Finish(const RunOutcome& outcome, MeasureResult* r) {
  r->run_s = outcome.wall_s;
  if (outcome.error != MeasureError::kNone) {
    r->error = outcome.error;
    r->phase = outcome.phase;
    r->message = outcome.message;
    return;
  }
  r->repeat_costs_s = outcome.repeat_costs_s;
  r->mean_s = std::accumulate(r->repeat_costs_s.begin(), r->repeat_costs_s.end(), 0.0) /
              static_cast<double>(std::max<size_t>(r->repeat_costs_s.size(), 1));
}

std::mutex& RunMutex() {
  static std::mutex* mu = new std::mutex;  // never destroyed: safe at exit
  return *mu;
}

MeasureError CodegenErrorClass(const absl::Status& s) {
  return absl::IsInvalidArgument(s) || absl::IsUnimplemented(s) ? MeasureError::kInvalidSchedule
                                                                 : MeasureError::kBuildError;
}

MeasureError BuildErrorClass(const absl::Status& s) {
  if (absl::IsDeadlineExceeded(s)) return MeasureError::kBuildTimeout;
  if (absl::IsInvalidArgument(s)) return MeasureError::kInvalidSchedule;
  return MeasureError::kBuildError;
}

void MeasureCpu(const std::vector<MeasureInput>& inputs, const std::vector<size_t>& indices,
                const MeasureOptions& options, std::vector<MeasureResult>* results) {
  std::vector<Prepared> prepared;
  std::vector<size_t> owners;  // input index of each prepared program
  for (size_t i : indices) {
    MeasureResult* r = &(*results)[i];
    std::optional<Prepared> p = LowerAndFetchReference(inputs[i], options, r);
    if (!p) continue;
    prepared.push_back(*std::move(p));
    owners.push_back(i);
  }
  if (prepared.empty()) return;
  std::vector<const Program*> programs;
  for (const Prepared& p : prepared) programs.push_back(&p.program);

  const WorkDir work_dir(options.work_dir);
  CpuBuildOptions build = options.build;
  build.timeout = absl::Seconds(options.build_timeout_s);
  const auto modules =
      BuildCpuPrograms(programs, build, options.max_parallel_builds, work_dir.path());

  // The build threads have joined: forking from here on is as safe as a
  // single-threaded fork gets. One run at a time, also across concurrent
  // MeasureBatch calls: timings must not overlap.
  std::lock_guard<std::mutex> one_run_at_a_time(RunMutex());
  // The fastest mean so far per workload in this batch, for
  // MeasureOptions::hopeless_factor.
  absl::flat_hash_map<std::string, double> fastest;
  for (size_t k = 0; k < owners.size(); ++k) {
    MeasureResult* r = &(*results)[owners[k]];
    if (!modules[k].ok()) {
      Fail(r, BuildErrorClass(modules[k].status()), "build", modules[k].status());
      continue;
    }
    r->build_s = modules[k]->build_seconds;
    r->binary_bytes = modules[k]->binary_bytes;
    const std::string workload =
        options.hopeless_factor > 0 ? inputs[owners[k]].dag->WorkloadKey() : std::string();
    double hopeless_after_s = 0;
    if (options.hopeless_factor > 0) {
      if (auto it = fastest.find(workload); it != fastest.end()) {
        hopeless_after_s = options.hopeless_factor * it->second;
      }
    }
    const std::optional<HostCpuSample> before = SampleHostCpu();
    Finish(RunCpuModuleSandboxed(*modules[k], prepared[k].program, prepared[k].reference->inputs,
                                 prepared[k].reference->outputs, options, inputs[owners[k]].device,
                                 hopeless_after_s),
           r);
    if (r->ok() && options.hopeless_factor > 0) {
      auto [it, inserted] = fastest.emplace(workload, r->mean_s);
      if (!inserted) it->second = std::min(it->second, r->mean_s);
    }
    r->host_busy_cores = OtherBusyCores(before, SampleHostCpu());
    if (!modules[k]->path.empty()) {
      std::error_code ec;
      std::filesystem::remove(modules[k]->path, ec);
    }
  }
}

std::string CudaArchName(const DeviceProfile& device) {
  return absl::StrCat("compute_", device.compute_capability_major * 10 +
                                      device.compute_capability_minor);
}

void MeasureGpu(const std::vector<MeasureInput>& inputs, const std::vector<size_t>& indices,
                const MeasureOptions& options, std::vector<MeasureResult>* results) {
  // Probe first: without a usable device nothing else is worth doing, and
  // every input gets the same clean device error.
  const RunOutcome probe = ProbeCudaDevice();
  if (probe.error != MeasureError::kNone) {
    for (size_t i : indices) {
      MeasureResult* r = &(*results)[i];
      r->error = MeasureError::kDeviceError;
      r->phase = "run";
      r->message = probe.message;
    }
    return;
  }
  // Lower, fetch the reference and generate CUDA C, one input at a time.
  struct Pending {
    size_t input;
    Prepared prepared;
    CudaModuleSource module;
    absl::StatusOr<CompiledCuda> compiled = absl::UnknownError("not compiled");
  };
  std::vector<Pending> pending;
  for (size_t i : indices) {
    MeasureResult* r = &(*results)[i];
    std::optional<Prepared> p = LowerAndFetchReference(inputs[i], options, r);
    if (!p) continue;
    auto module = GenerateCudaSource(p->program, inputs[i].device);
    if (!module.ok()) {
      Fail(r, CodegenErrorClass(module.status()), "codegen", module.status());
      continue;
    }
    pending.push_back(Pending{i, *std::move(p), *std::move(module)});
  }
  // NVRTC, up to max_parallel_builds children at once (never in this
  // process: see cuda_compile_sandboxed.h).
  ParallelFor(static_cast<int>(pending.size()), options.max_parallel_builds, [&](int k) {
    pending[k].compiled = CompileCudaSandboxed(
        pending[k].module, CudaArchName(inputs[pending[k].input].device), options.build_timeout_s);
  });
  // Runs, strictly one after another, batched into as few sandbox children
  // as faults allow (each child pays CUDA's initialization once).
  std::vector<CudaRunItem> items;
  std::vector<size_t> item_owner;  // index into pending
  for (size_t k = 0; k < pending.size(); ++k) {
    Pending& p = pending[k];
    MeasureResult* r = &(*results)[p.input];
    if (!p.compiled.ok()) {
      Fail(r, BuildErrorClass(p.compiled.status()), "build", p.compiled.status());
      continue;
    }
    r->build_s = p.compiled->compile_ms / 1e3;
    r->binary_bytes = static_cast<int64_t>(p.compiled->ptx.size());
    items.push_back(CudaRunItem{&p.prepared.program, &p.module, &p.compiled->ptx,
                                &p.prepared.reference->inputs, &p.prepared.reference->outputs});
    item_owner.push_back(k);
  }
  if (items.empty()) return;
  std::lock_guard<std::mutex> one_run_at_a_time(RunMutex());
  const std::vector<RunOutcome> outcomes = RunCudaModulesSandboxed(items, options);
  for (size_t j = 0; j < outcomes.size(); ++j) {
    Finish(outcomes[j], &(*results)[pending[item_owner[j]].input]);
  }
}

}  // namespace

std::vector<MeasureResult> MeasureBatch(const std::vector<MeasureInput>& inputs,
                                        const MeasureOptions& options) {
  std::vector<MeasureResult> results(inputs.size());
  std::vector<size_t> cpu;
  std::vector<size_t> gpu;
  for (size_t i = 0; i < inputs.size(); ++i) (inputs[i].device.IsGpu() ? gpu : cpu).push_back(i);
  if (!cpu.empty()) MeasureCpu(inputs, cpu, options, &results);
  if (!gpu.empty()) MeasureGpu(inputs, gpu, options, &results);
  return results;
}

}  // namespace pruner
