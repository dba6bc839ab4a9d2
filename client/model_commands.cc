#include "client/model_commands.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <thread>

#include "client/command_exit.h"
#include "absl/strings/str_cat.h"
#include "client/job_source.h"
#include "client/service_connection.h"
#include "client/torchscript_baseline.h"
#include "common/codegen/cpu_runtime_source.h"
#include "common/compile/compiled_model.h"
#include "common/compile/model_compiler.h"
#include "common/device/device_profile.h"
#include "common/graph/onnx_import.h"
#include "common/ir/npy.h"
#include "common/measure/interleaved_timing.h"
#include "common/store/records_store.h"

namespace pruner {
namespace {

// "NAME=path" or a bare path (only when the model has exactly one port).
absl::StatusOr<std::map<std::string, std::string>> PortFiles(
    const std::vector<std::string>& flags, const std::vector<CompiledModel::Port>& ports,
    const char* what) {
  std::map<std::string, std::string> files;
  for (const std::string& f : flags) {
    const size_t eq = f.find('=');
    std::string name, path;
    if (eq == std::string::npos) {
      if (ports.size() != 1) {
        return absl::InvalidArgumentError(absl::StrCat(
            "--", what, " ", f, ": the model has ", ports.size(), " ", what,
            "s; say which with NAME=FILE"));
      }
      name = ports[0].name;
      path = f;
    } else {
      name = f.substr(0, eq);
      path = f.substr(eq + 1);
    }
    bool known = false;
    for (const CompiledModel::Port& p : ports) known = known || p.name == name;
    if (!known) {
      std::string names;
      for (const CompiledModel::Port& p : ports) absl::StrAppend(&names, names.empty() ? "" : ", ", p.name);
      return absl::InvalidArgumentError(
          absl::StrCat("--", what, " ", f, ": the model has no ", what, " '", name, "' (it has ", names, ")"));
    }
    files[name] = path;
  }
  return files;
}

// Steps by time, largest first, with their share of the sum and their
// GFLOP/s; then the totals by kind.
void PrintProfile(std::vector<CompiledModel::StepTime> steps, int runs) {
  double total = 0;
  std::map<std::string, std::pair<int, double>> by_kind;
  for (const CompiledModel::StepTime& s : steps) {
    total += s.seconds;
    by_kind[s.kind].first += 1;
    by_kind[s.kind].second += s.seconds;
  }
  std::stable_sort(steps.begin(), steps.end(),
                   [](const auto& a, const auto& b) { return a.seconds > b.seconds; });
  std::printf("per-step profile, fastest of %d runs each (sum %.3f ms):\n", runs, total * 1e3);
  std::printf("  %-48s %-12s %9s %6s %9s\n", "step", "kind", "ms", "share", "GFLOP/s");
  for (const CompiledModel::StepTime& s : steps) {
    std::printf("  %-48s %-12s %9.4f %5.1f%% %9s\n", s.name.substr(0, 48).c_str(), s.kind.c_str(),
                s.seconds * 1e3, total > 0 ? 100 * s.seconds / total : 0.0,
                s.flops > 0 && s.seconds > 0 ? absl::StrCat(absl::SixDigits(s.flops / s.seconds / 1e9)).c_str()
                                             : "-");
  }
  for (const auto& [kind, v] : by_kind) {
    std::printf("  total %-12s %4d steps %9.4f ms %5.1f%%\n", kind.c_str(), v.first, v.second * 1e3,
                total > 0 ? 100 * v.second / total : 0.0);
  }
}

}  // namespace

int RunCompile(const CompileCommand& c) {
  absl::StatusOr<OnnxImportOptions> import = ImportOptionsFromFlags(c.shapes, c.layout);
  if (!import.ok()) return FailCommand(import.status());
  absl::StatusOr<OnnxModel> model = ImportOnnxFile(c.model, *import);
  if (!model.ok()) return FailCommand(model.status());
  absl::StatusOr<DeviceProfile> local = GetDeviceProfile("cpu");
  if (!local.ok()) return FailCommand(local.status());
  const DeviceProfile device = WithStableCpuKey(*local);
  const std::string target = c.target.empty() ? device.name : c.target;
  std::unique_ptr<RecordsStore> store;
  TunedSchedules tuned = NoTunedSchedules();
  std::string source = "none, default schedules";
  if (c.job > 0) {
    // The server's records database answers: the job's best records.
    const ServiceFlags flags =
        WithEnvironmentDefaults(ServiceFlags{}, [](const char* name) { return std::getenv(name); });
    absl::StatusOr<v1::BestRecordsReply> best = MakeServiceJobSource(flags)->BestRecords(c.job);
    if (!best.ok()) return FailCommand(best.status());
    if (best->target() != device.name) {
      return FailCommand(absl::FailedPreconditionError(absl::StrCat(
          "job ", c.job, " was tuned for ", best->target(), ", this machine is ", device.name,
          ": compile it on a machine of that kind")));
    }
    auto by_key = std::make_shared<std::map<std::string, TunedSchedule>>();
    for (const v1::BestRecord& r : best->records()) {
      (*by_key)[r.workload().key()] = TunedSchedule{r.sentence(), r.result().mean_s()};
    }
    tuned = [by_key](const std::string& key) -> absl::StatusOr<TunedSchedule> {
      auto it = by_key->find(key);
      if (it == by_key->end()) return absl::NotFoundError(key);
      return it->second;
    };
    source = absl::StrCat("job ", c.job, " on ", flags.server, ", ", by_key->size(), " tasks");
  } else if (!c.defaults_only && std::filesystem::exists(c.db)) {
    absl::StatusOr<std::unique_ptr<RecordsStore>> opened = RecordsStore::Open(c.db);
    if (!opened.ok()) return FailCommand(opened.status());
    store = std::move(*opened);
    tuned = TunedSchedulesFrom(*store, target);
    source = c.db;
  }
  CompileModelOptions options;
  options.out_path = c.out;
  options.llvm_cpu = c.cpu;
  options.device = device;
  if (store != nullptr && target != device.name) {
    absl::StatusOr<DeviceProfile> stored = store->GetDevice(target);
    if (!stored.ok()) return FailCommand(stored.status());
    options.device = *stored;
  }
  options.progress = [](const std::string& line) { std::printf("  %s\n", line.c_str()); };
  std::printf("compiling %s for %s (records: %s)\n", c.model.c_str(), options.device.name.c_str(),
              source.c_str());
  absl::StatusOr<CompileReport> report = CompileModel(*model, tuned, options);
  if (!report.ok()) return FailCommand(report.status());
  // The C API and its C++ wrapper, for programs that link the library.
  const std::filesystem::path dir = std::filesystem::absolute(c.out).parent_path();
  for (const auto& [name, text] :
       {std::make_pair(std::string(kModelApiHeaderName), ModelApiHeaderText()),
        std::make_pair(std::string(kModelCppHeaderName), ModelCppHeaderText())}) {
    std::ofstream header(dir / name);
    header << text;
    if (!header) {
      return FailCommand(absl::InternalError(absl::StrCat("cannot write '", (dir / name).string(), "'")));
    }
  }
  int tuned_count = 0;
  std::printf("%-52s %5s %8s %s\n", "kernel", "runs", "schedule", "measured");
  for (const CompiledKernel& k : report->kernels) {
    tuned_count += k.tuned ? 1 : 0;
    std::printf("%-52s %5d %8s %s\n", k.name.substr(0, 52).c_str(), k.occurrences,
                k.tuned ? "tuned" : "default",
                k.tuned ? absl::StrCat(k.tuned_mean_s * 1e3, " ms").c_str() : "");
  }
  // Each layout has its own tasks (nhwc-winograd's Winograd convolutions are
  // not nhwc's), so records of another layout leave kernels untuned.
  const int untuned = static_cast<int>(report->kernels.size()) - tuned_count;
  if (untuned > 0 && store != nullptr) {
    std::printf("%s of these tasks in %s for %s: was the model tuned with another "
                "--layout (this build: %s)?\n",
                tuned_count == 0 ? "no records" : absl::StrCat("no records for ", untuned).c_str(),
                c.db.c_str(), target.c_str(), c.layout.c_str());
  }
  std::printf("%s: %zu kernels (%d tuned, %zu default), %lld steps, arena %.2f MB "
              "(%.2f MB without reuse), weights %.2f MB, %.1f s\n",
              c.out.c_str(), report->kernels.size(), tuned_count,
              report->kernels.size() - tuned_count, static_cast<long long>(report->steps),
              report->arena_bytes / 1e6, report->unshared_bytes / 1e6, report->weight_bytes / 1e6,
              report->seconds);
  std::printf("headers for programs that link it: %s, %s (in %s)\n", kModelApiHeaderName,
              kModelCppHeaderName, dir.string().c_str());
  return 0;
}

int RunModel(const RunCommand& c) {
  absl::StatusOr<std::unique_ptr<CompiledModel>> model =
      CompiledModel::Load(std::filesystem::absolute(c.library).string(), c.threads);
  if (!model.ok()) return FailCommand(model.status());
  CompiledModel& m = **model;
  absl::StatusOr<std::map<std::string, std::string>> in_files = PortFiles(c.inputs, m.inputs(), "input");
  if (!in_files.ok()) return FailCommand(in_files.status());
  std::vector<Tensor> inputs;
  for (const CompiledModel::Port& p : m.inputs()) {
    auto f = in_files->find(p.name);
    if (f == in_files->end()) {
      return FailCommand(absl::InvalidArgumentError(absl::StrCat(
          "no value for input '", p.name, "' ", ShapeToString(p.shape), ": give --input ",
          p.name, "=FILE.npy")));
    }
    absl::StatusOr<Tensor> t = ReadNpy(f->second);
    if (!t.ok()) return FailCommand(t.status());
    inputs.push_back(*std::move(t));
  }
  absl::StatusOr<std::vector<Tensor>> outputs = m.Run(inputs);
  if (!outputs.ok()) return FailCommand(outputs.status());
  int exit_code = 0;
  for (size_t i = 0; i < outputs->size(); ++i) {
    const Tensor& t = (*outputs)[i];
    float lo = 0, hi = 0;
    if (!t.data.empty()) {
      lo = *std::min_element(t.data.begin(), t.data.end());
      hi = *std::max_element(t.data.begin(), t.data.end());
    }
    std::printf("output %s %s: min %.6g, max %.6g\n", m.outputs()[i].name.c_str(),
                ShapeToString(t.shape).c_str(), lo, hi);
  }
  absl::StatusOr<std::map<std::string, std::string>> expect = PortFiles(c.expect, m.outputs(), "expect");
  if (!expect.ok()) return FailCommand(expect.status());
  absl::StatusOr<std::map<std::string, std::string>> save = PortFiles(c.save, m.outputs(), "save");
  if (!save.ok()) return FailCommand(save.status());
  for (size_t i = 0; i < outputs->size(); ++i) {
    const std::string& name = m.outputs()[i].name;
    if (auto f = save->find(name); f != save->end()) {
      if (absl::Status s = WriteNpy(f->second, (*outputs)[i]); !s.ok()) return FailCommand(s);
    }
    if (auto f = expect->find(name); f != expect->end()) {
      absl::StatusOr<Tensor> want = ReadNpy(f->second);
      if (!want.ok()) return FailCommand(want.status());
      absl::Status close = CheckAllClose((*outputs)[i], *want, c.rtol, c.atol);
      std::printf("output %s vs %s (rtol %g, atol %g): %s\n", name.c_str(), f->second.c_str(),
                  c.rtol, c.atol, close.ok() ? "match" : std::string(close.message()).c_str());
      if (!close.ok()) exit_code = 1;
    }
  }
  if (!c.torchscript.empty()) {
    // PyTorch on the same inputs and thread count, checked and then timed
    // interleaved with the compiled model as bench/model times them: each
    // visit first settles (PyTorch's OpenBLAS workers yield-spin ~0.1 s
    // after its calls and would take a core from ours), then counts its
    // calls; the figure is the median call.
    const int threads = c.threads > 0 ? c.threads : static_cast<int>(std::thread::hardware_concurrency());
    absl::StatusOr<std::unique_ptr<TorchScriptBaseline>> torch =
        LoadTorchScript(c.torchscript, inputs, threads);
    if (!torch.ok()) return FailCommand(torch.status());
    absl::StatusOr<Tensor> reference = (*torch)->Run();
    if (!reference.ok()) return FailCommand(reference.status());
    const absl::Status close = CheckAllClose((*outputs)[0], *reference, c.rtol, c.atol);
    std::printf("output %s vs PyTorch's (rtol %g, atol %g): %s\n", m.outputs()[0].name.c_str(),
                c.rtol, c.atol, close.ok() ? "match" : std::string(close.message()).c_str());
    if (!close.ok()) exit_code = 1;
    InterleaveOptions timing;
    timing.rounds = c.rounds;
    timing.settle_s = kModelSettleSeconds;
    timing.min_visit_s = kModelVisitSeconds;
    const std::vector<InterleavedTimes> times =
        TimeInterleaved({{"ours", [&] { (void)m.Run(inputs); }},
                         {"pytorch", [&] { (void)(*torch)->Run(); }}},
                        timing);
    const double ours = times[0].median_call_s * 1e3, base = times[1].median_call_s * 1e3;
    std::printf("latency, median call of %d interleaved rounds (%zu and %zu calls), %d threads: "
                "this model %.3f ms, PyTorch (TorchScript, optimize_for_inference) %.3f ms\n",
                c.rounds, times[0].call_s.size(), times[1].call_s.size(), threads, ours, base);
    std::printf("your model, %.2fx %s than PyTorch on this machine\n",
                ours <= base ? base / ours : ours / base, ours <= base ? "faster" : "slower");
  }
  if (c.profile > 0) {
    absl::StatusOr<std::vector<CompiledModel::StepTime>> steps = m.Profile(inputs, c.profile);
    if (!steps.ok()) return FailCommand(steps.status());
    PrintProfile(*steps, c.profile);
  }
  if (c.bench > 0) {
    std::vector<double> ms;
    for (int r = 0; r < c.bench; ++r) {
      const auto start = std::chrono::steady_clock::now();
      absl::StatusOr<std::vector<Tensor>> again = m.Run(inputs);
      if (!again.ok()) return FailCommand(again.status());
      ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    }
    std::sort(ms.begin(), ms.end());
    std::printf("latency over %d runs: median %.3f ms, min %.3f ms, max %.3f ms\n", c.bench,
                ms[ms.size() / 2], ms.front(), ms.back());
  }
  return exit_code;
}

}  // namespace pruner
