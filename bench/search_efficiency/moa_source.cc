#include "bench/search_efficiency/moa_source.h"

#include <cstdio>
#include <memory>

#include "absl/strings/str_cat.h"
#include "bench/measure_baselines.h"
#include "common/schedule/state.h"
#include "common/schedule/step.h"
#include "common/store/records_store.h"
#ifdef PRUNER_WITH_TORCH
#include "common/model/pacm_pretrain.h"
#endif

namespace pruner::bench {

DeviceProfile MakeSourceDevice(const DeviceProfile& native) {
  DeviceProfile d = native;
  d.vector_isa = "avx2";
  d.vector_unit_bytes = 32;
  // Same FMA pipes at half the width.
  d.peak_gflops = native.peak_gflops / 2;
  d.notes = absl::StrCat("bench_search_efficiency: the local CPU as an AVX2 build target (g++ "
                         "-march=", kSourceMarch, "), MoA's source. ", native.notes);
  return WithStableCpuKey(d);
}

MeasureOptions SourceMeasureOptions(MeasureOptions base) {
  base.build.march = kSourceMarch;
  return base;
}

PretrainedSource CollectAndPretrain(Measurer* measurer, const std::vector<SearchTask>& tasks,
                                    const DeviceProfile& source, const RunSettings& settings,
                                    const std::string& strategy, int64_t trials,
                                    const std::string& db_path, const std::atomic<bool>* stop) {
  PretrainedSource out;
  out.device_key = source.name;
#ifndef PRUNER_WITH_TORCH
  (void)measurer, (void)tasks, (void)settings, (void)strategy, (void)trials, (void)db_path,
      (void)stop;
  out.error = "PaCM needs a build with LibTorch (PRUNER_WITH_TORCH=ON)";
  return out;
#else
  auto store = RecordsStore::Open(db_path);
  if (!store.ok()) {
    out.error = std::string(store.status().message());
    return out;
  }
  RunSettings s = settings;
  s.trials = trials;
  TuningOptions options = MakeRunOptions(s, strategy, /*seed=*/101, "");
  options.measure = SourceMeasureOptions(options.measure);
  auto t0 = Clock::now();
  std::printf("collecting %lld source records on %s (%s, -march=%s)\n",
              static_cast<long long>(trials), source.name.c_str(), strategy.c_str(), kSourceMarch);
  RunTrace trace = RunStrategy(store->get(), measurer, tasks, source, options, stop, false);
  out.collect_s = Since(t0);
  if (!trace.ok) {
    out.error = absl::StrCat("source run: ", trace.error);
    return out;
  }
  // Every record of the source device, replayed (failures included: PaCM
  // learns that they are slow).
  std::vector<MeasuredState> records;
  for (const SearchTask& task : tasks) {
    auto stored = (*store)->ListRecords(task.workload_key, source.name);
    if (!stored.ok()) continue;
    for (const StoredRecord& r : *stored) {
      auto steps = ParseSteps(r.steps);
      if (!steps.ok()) continue;
      auto state = State::Replay(task.dag, *steps);
      if (!state.ok()) continue;
      records.push_back(MeasuredState{*std::move(state), task.workload_key, r.result.mean_s,
                                      r.result.ok()});
    }
  }
  out.records = static_cast<int64_t>(records.size());
  int64_t ok = 0;
  for (const MeasuredState& m : records) ok += m.ok ? 1 : 0;
  std::printf("  %lld source records (%lld ok) in %.0f s; pretraining PaCM\n",
              static_cast<long long>(out.records), static_cast<long long>(ok), out.collect_s);
  t0 = Clock::now();
  auto result = PretrainPaCM(records, source);
  out.pretrain_s = Since(t0);
  if (!result.ok()) {
    out.error = absl::StrCat("pretrain: ", result.status().message());
    return out;
  }
  out.checkpoint = result->checkpoint;
  out.train_programs = result->train_programs;
  out.holdout_pairwise_accuracy = result->holdout_pairwise_accuracy;
  std::printf("  pretrained on %lld programs in %.1f s (%d epochs), held-out pairwise accuracy "
              "%.3f over %d workloads\n",
              static_cast<long long>(out.train_programs), out.pretrain_s, result->fit.iterations,
              out.holdout_pairwise_accuracy, result->holdout_workloads);
  out.ok = true;
  return out;
#endif
}

PretrainedSource LoadPretrainedSource(const std::string& db_path, const std::string& device_key,
                                      DeviceProfile* profile) {
  PretrainedSource out;
  out.device_key = device_key;
  auto store = RecordsStore::Open(db_path);
  if (!store.ok()) {
    out.error = absl::StrCat("--source-db: ", store.status().message());
    return out;
  }
  auto device = (*store)->GetDevice(device_key);
  if (!device.ok()) {
    out.error = absl::StrCat("--source-device: ", device.status().message());
    return out;
  }
  auto checkpoint = (*store)->LatestCheckpoint("pacm", device_key);
  if (!checkpoint.ok()) {
    out.error = absl::StrCat("no pacm checkpoint of ", device_key, " in ", db_path,
                             " (run `pruner pretrain --db ", db_path, " --device ", device_key,
                             "`): ", checkpoint.status().message());
    return out;
  }
  *profile = *std::move(device);
  out.checkpoint = *std::move(checkpoint);
  out.ok = true;
  return out;
}

}  // namespace pruner::bench
