// Generated kernels run in the benchmark's own process: the workloads with
// their inputs and reference outputs, lowering + codegen + build of one
// schedule, loading and checking the module, and timing repeated calls on
// 64-byte aligned buffers.
//
// In process (no sandbox) because the benchmarks compare kernels with
// libraries call against call, and a fork per timing would add its own noise.
// That makes one rule for the callers: these helpers run OpenMP kernels in
// the calling thread, so nothing may fork a sandbox child from it afterwards
// (see common/measure/sandbox.h).
#ifndef PRUNER_BENCH_INPROCESS_KERNEL_H_
#define PRUNER_BENCH_INPROCESS_KERNEL_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "bench/measure_baselines.h"
#include "common/codegen/cpu_build.h"
#include "common/codegen/cpu_codegen.h"
#include "common/codegen/cpu_compiler.h"
#include "common/codegen/cpu_kernel.h"
#include "common/device/device_profile.h"
#include "common/ir/compute_dag.h"
#include "common/ir/tensor.h"
#include "common/lower/program.h"
#include "common/schedule/state.h"

namespace pruner::bench {

// Tolerances of the output check, the measurement layer's defaults (FMA
// contraction and vector reductions reorder the sums).
constexpr double kRtol = 1e-3;
constexpr double kAtol = 1e-4;

struct AlignedBuffer {
  explicit AlignedBuffer(int64_t n) : storage(AllocateKernelArg(n)), data(storage.get()), elements(n) {}
  KernelArgBuffer storage;  // the codegen's argument contract
  float* data = nullptr;
  int64_t elements = 0;
};

// Aligned argument buffers for repeated calls of one kernel: the inputs
// copied in, the outputs zeroed.
class KernelArgs {
 public:
  KernelArgs(const Program& program, const std::vector<Tensor>& inputs);
  float* const* ptrs() const { return ptrs_.data(); }

 private:
  std::vector<AlignedBuffer> bufs_;
  std::vector<float*> ptrs_;
};

// Seconds of one call.
double TimeCall(CpuEntryFn fn, float* const* args);

// An operator with fixed random inputs and its reference outputs.
struct Workload {
  std::string name;
  std::string spec;
  std::shared_ptr<const ComputeDag> dag;
  std::vector<Tensor> inputs;
  std::vector<Tensor> want;
  double flops = 0;
};
// Builds the operator, draws inputs (seed 7) and runs the reference
// executor; exits the benchmark with a message when any of it fails.
Workload MakeWorkload(const std::string& name, const std::string& spec);
// The same for a DAG built elsewhere (a network's task); `spec` stays empty.
Workload MakeWorkloadFromDag(const std::string& name, std::shared_ptr<const ComputeDag> dag);

// One schedule lowered and turned into C++ (errors kept, not fatal).
struct Candidate {
  std::string label;
  std::string sentence;
  absl::StatusOr<Program> program = absl::UnknownError("not lowered");
  absl::StatusOr<CpuKernelSource> source = absl::UnknownError("not generated");
};
Candidate Prepare(const State& state, const DeviceProfile& device, const std::string& label);

// Builds the candidate's module; the error says which phase failed
// ("lower: ...", "codegen: ...", "build: ...").
absl::StatusOr<BuiltModule> BuildCandidate(const Candidate& c, const CpuBuildOptions& build,
                                           const std::string& dir);

// A loaded module whose outputs matched the reference, with its own
// argument buffers: ready to be called and timed any number of times.
class ReadyKernel {
 public:
  // Loads, runs once on the workload's inputs and checks every output
  // (an error starting with "WRONG OUTPUT" when they differ).
  static absl::StatusOr<ReadyKernel> Load(const BuiltModule& module, const Program& program,
                                          const Workload& w);
  void Call() const { kernel_.entry()(args_->ptrs()); }
  double TimeOneCall() const { return TimeCall(kernel_.entry(), args_->ptrs()); }

 private:
  ReadyKernel(LoadedKernel kernel, std::unique_ptr<KernelArgs> args)
      : kernel_(std::move(kernel)), args_(std::move(args)) {}
  LoadedKernel kernel_;
  std::unique_ptr<KernelArgs> args_;
};

struct Measured {
  bool ok = false;
  std::string error;
  double seconds = 0;  // best call
  double gflops = 0;
};

// `warmup` calls, then calls until `repeats` were made and `min_s` passed
// (the minimum then sees a quiet moment on a busy machine), or `budget_s`
// passed (at least one call).
Measured TimeKernel(const ReadyKernel& kernel, double flops, int warmup, int repeats,
                    double budget_s, double min_s = 0);

// ReadyKernel::Load then TimeKernel; a failure becomes Measured::error.
Measured LoadCheckTime(const BuiltModule& module, const Program& program, const Workload& w,
                       int warmup, int repeats, double budget_s, double min_s = 0);

// BuildCandidate then LoadCheckTime. The module is moved into `*keep` when
// `keep` is given, otherwise its file is removed.
Measured BuildAndMeasure(const Workload& w, const Candidate& c, const CpuBuildOptions& build,
                         const std::string& dir, int warmup, int repeats, double budget,
                         double min_s, std::unique_ptr<BuiltModule>* keep);

// A library baseline's result as a Measured row, its output checked against
// the workload's reference.
Measured CheckBaseline(const BaselineResult& b, const Workload& w);

// A fresh scratch directory "$TMPDIR/<prefix>_<pid>" (TMPDIR defaults to /tmp).
std::string MakeWorkDir(const std::string& prefix);

}  // namespace pruner::bench

#endif  // PRUNER_BENCH_INPROCESS_KERNEL_H_
