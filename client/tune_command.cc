#include "client/tune_command.h"

#include <atomic>
#include <cctype>
#include <cstdio>
#include <iostream>
#include <memory>

#include "client/command_exit.h"
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
#include "common/tune/strategy_spec.h"
#include "common/tune/tuning_job.h"
#include "client/job_format.h"
#include "server/job_info.h"

namespace pruner {
int RunTasks(const std::string& network, const std::string& model,
             const std::vector<std::string>& shapes, const std::string& layout) {
  if (network.empty() == model.empty()) {
    return FailCommand(absl::InvalidArgumentError("give --network NAME or --model FILE.onnx"));
  }
  absl::StatusOr<Graph> graph;
  std::string what = network;
  if (!model.empty()) {
    absl::StatusOr<OnnxImportOptions> import = ImportOptionsFromFlags(shapes, layout);
    if (!import.ok()) return FailCommand(import.status());
    absl::StatusOr<OnnxModel> imported = ImportOnnxFile(model, *import);
    if (!imported.ok()) return FailCommand(imported.status());
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
  if (!graph.ok()) return FailCommand(graph.status());
  absl::StatusOr<std::vector<GraphTask>> tasks = ExtractTasks(*graph);
  if (!tasks.ok()) return FailCommand(tasks.status());
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
  if (!store.ok()) return FailCommand(store.status());
  // The measurer's thread starts before any model or OpenMP code runs.
  std::unique_ptr<TuningJob> job;
  std::unique_ptr<Measurer> measurer;
  if (c.resume_job > 0) {
    auto stored = (*store)->GetJob(c.resume_job);
    if (!stored.ok()) return FailCommand(stored.status());
    auto options = TuningOptionsFromJson(stored->options_json);
    if (!options.ok()) return FailCommand(options.status());
    auto device = (*store)->GetDevice(stored->device_key);
    if (!device.ok()) return FailCommand(device.status());
    if (device->IsGpu()) {
      return FailCommand(absl::FailedPreconditionError(
          "job targets a GPU; in-process tuning measures on the local CPU only"));
    }
    auto local = GetDeviceProfile("cpu");
    if (!local.ok()) return FailCommand(local.status());
    if (WithStableCpuKey(*local).name != device->name) {
      return FailCommand(absl::FailedPreconditionError(absl::StrCat(
          "job ", c.resume_job, " was tuned on ", device->name, ", this machine is ",
          WithStableCpuKey(*local).name, ": its records would not compare")));
    }
    measurer = MakeLocalMeasurer(options->measure);
    auto resumed = TuningJob::Resume(store->get(), measurer.get(), c.resume_job);
    if (!resumed.ok()) return FailCommand(resumed.status());
    job = std::move(*resumed);
    std::printf("resuming job %lld: %lld of %lld trials done\n",
                static_cast<long long>(job->id()), static_cast<long long>(job->trials()),
                static_cast<long long>(job->options().trial_budget));
  } else {
    auto device = GetDeviceProfile(c.device);
    if (!device.ok()) return FailCommand(device.status());
    if (device->IsGpu()) {
      return FailCommand(absl::InvalidArgumentError(absl::StrCat(
          "device ", device->name,
          ": in-process tuning measures on the local CPU only (tune for a GPU through the "
          "service: `pruner submit` to a server with a worker on that GPU)")));
    }
    absl::StatusOr<std::vector<SearchTask>> tasks;
    if (!c.model.empty()) {
      if (!c.ops.empty() || !c.network.empty()) {
        return FailCommand(absl::InvalidArgumentError("give --op, --network or --model, only one"));
      }
      absl::StatusOr<OnnxImportOptions> import = ImportOptionsFromFlags(c.shapes, c.layout);
      if (!import.ok()) return FailCommand(import.status());
      tasks = BuildModelTasks(c.model, *import);
    } else {
      tasks = BuildJobTasks(c.ops, c.network);
    }
    if (!tasks.ok()) return FailCommand(tasks.status());
    measurer = MakeLocalMeasurer(c.options.measure);
    auto created = TuningJob::Create(store->get(), measurer.get(), *std::move(tasks),
                                     WithStableCpuKey(*device), c.options);
    if (!created.ok()) return FailCommand(created.status());
    job = std::move(*created);
    std::printf("job %lld: %zu tasks on %s, strategy %s, scheduler %s, %lld trials, db %s\n",
                static_cast<long long>(job->id()), job->TaskStatuses().size(),
                WithStableCpuKey(*device).name.c_str(), c.options.strategy.c_str(),
                c.options.scheduler.c_str(), static_cast<long long>(c.options.trial_budget),
                c.db.c_str());
  }
  bool calibrated = false;
  job->DraftConstants(&calibrated);
  const auto strategy = ParseStrategy(job->options().strategy);
  if (calibrated && strategy.ok() && strategy->search == SearchMethod::kDraftVerify) {
    std::printf("LSE drafts with the constants `pruner calibrate` stored for this device\n");
  }
  const std::atomic<bool>* stop = StopOnSignals();
  RunLimits limits;
  limits.stop = stop;
  // Rounds print as `pruner watch` prints a server job's (job_format.h):
  // the job's view from the database, each round laid over it.
  auto info = JobInfoFromStore(**store, job->id());
  if (!info.ok()) return FailCommand(info.status());
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
  if (!status.ok()) return FailCommand(status);
  if (!table_is_current) std::cout << FormatTaskTable(*info);
  std::printf("%s job %lld: %lld trials, estimated total latency %.4f ms\n",
              stop->load() ? "stopped" : "finished", static_cast<long long>(job->id()),
              static_cast<long long>(job->trials()), job->EstimatedLatency() * 1e3);
  if (stop->load()) {
    std::printf("continue with: pruner tune --db %s --resume %lld\n", c.db.c_str(),
                static_cast<long long>(job->id()));
  }
  return 0;
}

}  // namespace pruner
