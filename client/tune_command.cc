#include "client/tune_command.h"

#include <atomic>
#include <cctype>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <memory>

#include "absl/strings/str_cat.h"
#include "common/device/device_profile.h"
#include "common/graph/networks.h"
#include "common/graph/onnx_import.h"
#include "common/graph/tasks.h"
#include "common/ir/ops.h"
#include "common/lower/lower.h"
#include "common/schedule/state.h"
#include "common/schedule/step.h"
#include "common/store/records_store.h"
#include "common/tune/job_tasks.h"
#include "common/measure/measurer.h"
#include "common/tune/tuning_job.h"
#include "client/job_format.h"
#include "server/job_info.h"

namespace pruner {
namespace {

std::atomic<bool> g_stop{false};

void OnSignal(int) { g_stop.store(true); }

int Fail(const absl::Status& status) {
  std::cerr << "error: " << status.message() << "\n";
  return 2;
}

}  // namespace

int RunTasks(const std::string& network, const std::string& model,
             const std::vector<std::string>& shapes) {
  if (network.empty() == model.empty()) {
    return Fail(absl::InvalidArgumentError("give --network NAME or --model FILE.onnx"));
  }
  absl::StatusOr<Graph> graph;
  std::string what = network;
  if (!model.empty()) {
    absl::StatusOr<OnnxImportOptions> import = ImportOptionsFromShapes(shapes);
    if (!import.ok()) return Fail(import.status());
    absl::StatusOr<OnnxModel> imported = ImportOnnxFile(model, *import);
    if (!imported.ok()) return Fail(imported.status());
    std::printf("%s: ONNX opset %d from %s, %d nodes after import\n", model.c_str(),
                imported->opset, imported->producer.c_str(), imported->graph.num_nodes());
    for (size_t i = 0; i < imported->inputs.size(); ++i) {
      std::printf("  input  %s %s\n", imported->input_names[i].c_str(),
                  ShapeToString(imported->graph.tensor(imported->inputs[i]).shape).c_str());
    }
    for (size_t i = 0; i < imported->outputs.size(); ++i) {
      std::printf("  output %s %s\n", imported->output_names[i].c_str(),
                  ShapeToString(imported->graph.tensor(imported->outputs[i]).shape).c_str());
    }
    graph = std::move(imported->graph);
    what = model;
  } else {
    graph = BuildNetwork(network);
  }
  if (!graph.ok()) return Fail(graph.status());
  absl::StatusOr<std::vector<GraphTask>> tasks = ExtractTasks(*graph);
  if (!tasks.ok()) return Fail(tasks.status());
  const double total = WeightedFlops(*tasks);
  std::printf("%zu tasks, %.3f GFLOP per run\n", tasks->size(), total * 1e-9);
  std::printf("%4s %6s %10s %6s  %-44s %s\n", "#", "weight", "MFLOP", "share", "task",
              "output shape");
  for (size_t i = 0; i < tasks->size(); ++i) {
    const GraphTask& t = (*tasks)[i];
    const Op& out = *t.dag->ops().back();
    std::printf("%4zu %6d %10.2f %5.1f%%  %-44s %s\n", i, t.weight, t.flops * 1e-6,
                total > 0 ? 100.0 * t.weight * t.flops / total : 0.0, t.name.c_str(),
                ShapeToString(out.shape).c_str());
  }
  return 0;
}

int RunTune(const TuneCommand& c) {
  auto store = RecordsStore::Open(c.db);
  if (!store.ok()) return Fail(store.status());
  // The measurer's thread starts before any model or OpenMP code runs.
  std::unique_ptr<TuningJob> job;
  std::unique_ptr<Measurer> measurer;
  if (c.resume_job > 0) {
    auto stored = (*store)->GetJob(c.resume_job);
    if (!stored.ok()) return Fail(stored.status());
    auto options = TuningOptionsFromJson(stored->options_json);
    if (!options.ok()) return Fail(options.status());
    auto device = (*store)->GetDevice(stored->device_key);
    if (!device.ok()) return Fail(device.status());
    if (device->IsGpu()) {
      return Fail(absl::FailedPreconditionError(
          "job targets a GPU; in-process tuning measures on the local CPU only"));
    }
    auto local = GetDeviceProfile("cpu");
    if (!local.ok()) return Fail(local.status());
    if (WithStableCpuKey(*local).name != device->name) {
      return Fail(absl::FailedPreconditionError(absl::StrCat(
          "job ", c.resume_job, " was tuned on ", device->name, ", this machine is ",
          WithStableCpuKey(*local).name, ": its records would not compare")));
    }
    measurer = MakeLocalMeasurer(options->measure);
    auto resumed = TuningJob::Resume(store->get(), measurer.get(), c.resume_job);
    if (!resumed.ok()) return Fail(resumed.status());
    job = std::move(*resumed);
    std::printf("resuming job %lld: %lld of %lld trials done\n",
                static_cast<long long>(job->id()), static_cast<long long>(job->trials()),
                static_cast<long long>(job->options().trial_budget));
  } else {
    auto device = GetDeviceProfile(c.device);
    if (!device.ok()) return Fail(device.status());
    if (device->IsGpu()) {
      return Fail(absl::InvalidArgumentError(absl::StrCat(
          "device ", device->name,
          ": in-process tuning measures on the local CPU only (tune for a GPU through the "
          "service: `pruner submit` to a server with a worker on that GPU)")));
    }
    absl::StatusOr<std::vector<SearchTask>> tasks;
    if (!c.model.empty()) {
      if (!c.ops.empty() || !c.network.empty()) {
        return Fail(absl::InvalidArgumentError("give --op, --network or --model, only one"));
      }
      absl::StatusOr<OnnxImportOptions> import = ImportOptionsFromShapes(c.shapes);
      if (!import.ok()) return Fail(import.status());
      tasks = BuildModelTasks(c.model, *import);
    } else {
      tasks = BuildJobTasks(c.ops, c.network);
    }
    if (!tasks.ok()) return Fail(tasks.status());
    measurer = MakeLocalMeasurer(c.options.measure);
    auto created = TuningJob::Create(store->get(), measurer.get(), *std::move(tasks),
                                     WithStableCpuKey(*device), c.options);
    if (!created.ok()) return Fail(created.status());
    job = std::move(*created);
    std::printf("job %lld: %zu tasks on %s, strategy %s, scheduler %s, %lld trials, db %s\n",
                static_cast<long long>(job->id()), job->TaskStatuses().size(),
                WithStableCpuKey(*device).name.c_str(), c.options.strategy.c_str(),
                c.options.scheduler.c_str(), static_cast<long long>(c.options.trial_budget),
                c.db.c_str());
  }
  std::signal(SIGINT, OnSignal);
  std::signal(SIGTERM, OnSignal);
  RunLimits limits;
  limits.stop = &g_stop;
  // Rounds print as `pruner watch` prints a server job's (job_format.h):
  // the job's view from the database, each round laid over it.
  auto info = JobInfoFromStore(**store, job->id());
  if (!info.ok()) return Fail(info.status());
  info->set_status("running");
  bool table_is_current = false;
  absl::Status status = job->Run(
      [&](const RoundReport& r) {
        const v1::ProgressEvent event = ProgressEventFromRound(r, &*info);
        std::cout << FormatProgressEvent(event);
        table_is_current = !c.quiet && r.round % 10 == 0;
        if (table_is_current) std::cout << FormatTaskTable(*info);
        std::cout << std::flush;
      },
      limits);
  if (!status.ok()) return Fail(status);
  if (!table_is_current) std::cout << FormatTaskTable(*info);
  std::printf("%s job %lld: %lld trials, estimated total latency %.4f ms\n",
              g_stop.load() ? "stopped" : "finished", static_cast<long long>(job->id()),
              static_cast<long long>(job->trials()), job->EstimatedLatency() * 1e3);
  if (g_stop.load()) {
    std::printf("continue with: pruner tune --db %s --resume %lld\n", c.db.c_str(),
                static_cast<long long>(job->id()));
  }
  return 0;
}

}  // namespace pruner
