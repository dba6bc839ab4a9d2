#include "bench/inprocess_kernel.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/ir/ops.h"
#include "common/ir/reference.h"
#include "common/lower/lower.h"

namespace pruner::bench {

KernelArgs::KernelArgs(const Program& program, const std::vector<Tensor>& inputs) {
  // Layout-free inputs go in the layout the program chose (transposed
  // here, untimed, as the library baselines' weight reorders are).
  for (size_t i = 0; i < program.inputs.size(); ++i) {
    const std::vector<float> data =
        InputInBufferLayout(program.buffer(program.inputs[i]), inputs[i]).value();
    bufs_.emplace_back(static_cast<int64_t>(data.size()));
    std::memcpy(bufs_.back().data, data.data(), data.size() * 4);
  }
  for (int id : program.outputs) {
    bufs_.emplace_back(program.buffer(id).num_elements());
    std::memset(bufs_.back().data, 0, bufs_.back().elements * 4);
  }
  for (auto& b : bufs_) ptrs_.push_back(b.data);
}

double TimeCall(CpuEntryFn fn, float* const* args) {
  auto t = Clock::now();
  fn(args);
  return Since(t);
}

Workload MakeWorkload(const std::string& name, const std::string& spec) {
  absl::StatusOr<ComputeDag> built = BuildOperator(spec);
  if (!built.ok()) {
    std::fprintf(stderr, "%s: %s\n", spec.c_str(), std::string(built.status().message()).c_str());
    std::exit(1);
  }
  Workload w = MakeWorkloadFromDag(name, std::make_shared<const ComputeDag>(*std::move(built)));
  w.spec = spec;
  return w;
}

Workload MakeWorkloadFromDag(const std::string& name, std::shared_ptr<const ComputeDag> dag) {
  Workload w;
  w.name = name;
  w.dag = std::move(dag);
  w.inputs = RandomInputs(*w.dag, 7);
  absl::StatusOr<std::vector<Tensor>> want = RunReference(*w.dag, w.inputs);
  if (!want.ok()) {
    std::fprintf(stderr, "reference: %s\n", std::string(want.status().message()).c_str());
    std::exit(1);
  }
  w.want = *std::move(want);
  w.flops = w.dag->FlopCount();
  return w;
}

Candidate Prepare(const State& state, const DeviceProfile& device, const std::string& label) {
  Candidate c;
  c.label = label;
  c.sentence = state.ToSentence();
  c.program = Lower(state, device);
  if (c.program.ok()) c.source = GenerateCpuSource(*c.program, device);
  return c;
}

absl::StatusOr<BuiltModule> BuildCandidate(const Candidate& c, const CpuBuildOptions& build,
                                           const std::string& dir) {
  if (!c.program.ok()) {
    return absl::Status(c.program.status().code(), absl::StrCat("lower: ", c.program.status().message()));
  }
  if (!c.source.ok()) {
    return absl::Status(c.source.status().code(), absl::StrCat("codegen: ", c.source.status().message()));
  }
  absl::StatusOr<BuiltModule> mod =
      build.backend == CpuBackend::kGcc ? BuildCpuModule(*c.source, build, dir)
                                        : std::move(BuildCpuPrograms({&*c.program}, build, 1, dir)[0]);
  if (!mod.ok()) {
    return absl::Status(mod.status().code(), absl::StrCat("build: ", mod.status().message()));
  }
  return mod;
}

absl::StatusOr<ReadyKernel> ReadyKernel::Load(const BuiltModule& module, const Program& program,
                                              const Workload& w) {
  PRUNER_ASSIGN_OR_RETURN(LoadedKernel kernel, LoadedKernel::Load(module));
  PRUNER_ASSIGN_OR_RETURN(std::vector<Tensor> got, RunCpuKernel(kernel, program, w.inputs));
  for (size_t i = 0; i < got.size(); ++i) {
    absl::Status close = CheckAllClose(got[i], w.want[i], kRtol, kAtol);
    if (!close.ok()) return absl::DataLossError(absl::StrCat("WRONG OUTPUT: ", close.message()));
  }
  return ReadyKernel(std::move(kernel), std::make_unique<KernelArgs>(program, w.inputs));
}

Measured TimeKernel(const ReadyKernel& kernel, double flops, int warmup, int repeats,
                    double budget_s, double min_s) {
  Measured m;
  for (int i = 0; i < warmup; ++i) kernel.Call();
  m.seconds = 1e30;
  auto start = Clock::now();
  for (int i = 0; i < 10000; ++i) {
    m.seconds = std::min(m.seconds, kernel.TimeOneCall());
    const double elapsed = Since(start);
    if (elapsed > budget_s || (i + 1 >= repeats && elapsed > min_s)) break;
  }
  m.gflops = flops / m.seconds / 1e9;
  m.ok = true;
  return m;
}

Measured LoadCheckTime(const BuiltModule& module, const Program& program, const Workload& w,
                       int warmup, int repeats, double budget_s, double min_s) {
  absl::StatusOr<ReadyKernel> kernel = ReadyKernel::Load(module, program, w);
  if (!kernel.ok()) {
    Measured m;
    m.error = std::string(kernel.status().message());
    return m;
  }
  return TimeKernel(*kernel, w.flops, warmup, repeats, budget_s, min_s);
}

Measured BuildAndMeasure(const Workload& w, const Candidate& c, const CpuBuildOptions& build,
                         const std::string& dir, int warmup, int repeats, double budget,
                         double min_s, std::unique_ptr<BuiltModule>* keep) {
  absl::StatusOr<BuiltModule> mod = BuildCandidate(c, build, dir);
  if (!mod.ok()) {
    Measured m;
    m.error = std::string(mod.status().message());
    return m;
  }
  Measured m = LoadCheckTime(*mod, *c.program, w, warmup, repeats, budget, min_s);
  if (keep != nullptr) {
    *keep = std::make_unique<BuiltModule>(*std::move(mod));
  } else if (!mod->path.empty()) {
    std::error_code ec;
    std::filesystem::remove(mod->path, ec);
  }
  return m;
}

Measured CheckBaseline(const BaselineResult& b, const Workload& w) {
  Measured m;
  if (!b.available) {
    m.error = b.error;
    return m;
  }
  absl::Status close = CheckAllClose(b.output, w.want[0], kRtol, kAtol);
  m.ok = close.ok();
  m.error = close.ok() ? "" : absl::StrCat("WRONG OUTPUT: ", close.message());
  m.seconds = b.seconds;
  m.gflops = w.flops / b.seconds / 1e9;
  return m;
}

std::string MakeWorkDir(const std::string& prefix) {
  const char* tmp = std::getenv("TMPDIR");
  std::string dir = absl::StrCat(tmp != nullptr ? tmp : "/tmp", "/", prefix, "_", getpid());
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace pruner::bench
