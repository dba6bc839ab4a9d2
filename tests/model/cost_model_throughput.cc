// Speed of the learned cost models on real schedules (not a test; run by
// hand): Update time on N records with the synthetic cost of
// schedule_dataset.h, and Predict throughput on a search-sized batch.
//   build/tests/model/cost_model_throughput [--op SPEC] [--records N] [--batch B] [--threads T]
//       [--torch-threads T]   (PaCM's LibTorch threads; 0 = 1)
// Prints one "RESULT" line per model; PaCM's lines (Pruner's network, then
// ours with the analyzer branch, which also analyzes every state) also give
// the network's share of Predict (scoring already featurized states).
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "common/ir/ops.h"
#include "common/model/mlp_model.h"
#include "common/model/pacm_model.h"
#include "common/model/pacm_symbols.h"
#include "common/model/state_featurizer.h"
#include "common/model/xgb_model.h"
#include "common/sketch/annotate.h"
#include "common/sketch/sketch.h"
#include "tests/model/schedule_dataset.h"

namespace pruner {
namespace {

double Since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// PaCM in online mode (§5.4's schedule: a fresh network, up to 50 epochs).
int RunPaCM(const DeviceProfile& device, const std::vector<MeasuredState>& records,
            const std::vector<State>& probe, int threads, int torch_threads, int symbol_hidden) {
  PaCMModelOptions options;
  options.network.symbol_hidden = symbol_hidden;
  options.featurize_threads = threads;
  options.training.num_threads = torch_threads;
  auto model = MakePaCMModel(device, options);
  auto start = std::chrono::steady_clock::now();
  if (absl::Status s = model->Update(records); !s.ok()) {
    std::cerr << s << "\n";
    return 1;
  }
  const double update_s = Since(start);
  if (!model->IsTrained()) {
    std::cerr << "pacm: nothing trained\n";
    return 1;
  }
  constexpr int kRepeats = 3;
  model->Predict(probe);  // warm caches and thread pools
  start = std::chrono::steady_clock::now();
  for (int r = 0; r < kRepeats; ++r) model->Predict(probe);
  const double predict_s = Since(start) / kRepeats;
  // The network alone, on states featurized beforehand.
  PaCMBatch batch;
  const std::optional<SymbolAnalyzer> analyzer =
      symbol_hidden > 0 ? PaCMSymbolAnalyzer(device) : std::nullopt;
  for (auto& f : FeaturizePaCMStates(
           static_cast<int>(probe.size()), [&](int i) -> const State& { return probe[i]; },
           device, threads, analyzer ? &*analyzer : nullptr)) {
    if (f.ok()) batch.Add(*f);
    else batch.AddInvalid();
  }
  start = std::chrono::steady_clock::now();
  for (int r = 0; r < kRepeats; ++r) model->predictor()->Score(batch);
  const double score_s = Since(start) / kRepeats;
  const int n = static_cast<int>(probe.size());
  std::cout << "RESULT pacm_model network=" << (symbol_hidden > 0 ? "analyzer-branch" : "pruner")
            << " predict_states_per_s=" << n / predict_s << " update_s_"
            << records.size() << "=" << update_s << " fit_s=" << model->last_fit()->seconds
            << " fit_epochs=" << model->last_fit()->iterations
            << " network_states_per_s=" << n / score_s << " predict_batch=" << n
            << " featurize_threads=" << threads << " torch_threads=" << torch_threads << "\n";
  return 0;
}

int Run(const std::string& spec, int num_records, int batch, int threads, int torch_threads) {
  auto device = GetDeviceProfile("cpu");
  auto built = BuildOperator(spec);
  if (!device.ok() || !built.ok()) {
    std::cerr << (device.ok() ? built.status() : device.status()) << "\n";
    return 1;
  }
  auto dag = std::make_shared<const ComputeDag>(*std::move(built));
  auto sketches = GenerateSketches(dag, *device);
  if (!sketches.ok()) {
    std::cerr << sketches.status() << "\n";
    return 1;
  }
  Rng rng(7);
  auto start = std::chrono::steady_clock::now();
  std::vector<State> states = SampleInitPopulation(*sketches, *device, num_records + batch, rng);
  std::cout << "sampled " << states.size() << " schedules of " << spec << " in " << Since(start)
            << " s\n";
  if (static_cast<int>(states.size()) < num_records + 1) return 1;
  std::vector<MeasuredState> records;
  for (int i = 0; i < num_records; ++i) {
    records.push_back({states[i], dag->WorkloadKey(),
                       1.0 / testing::SyntheticThroughput(states[i]), true});
  }
  // The search's batch: the held-out schedules, repeated up to `batch`.
  std::vector<State> probe;
  for (int i = 0; static_cast<int>(probe.size()) < batch; ++i) {
    probe.push_back(states[num_records + i % (static_cast<int>(states.size()) - num_records)]);
  }

  XgbModelOptions xo;
  xo.training.featurize_threads = threads;
  MlpModelOptions mo;
  mo.training.featurize_threads = threads;
  std::unique_ptr<CostModel> models[] = {MakeXgbModel(*device, xo), MakeMlpModel(*device, mo)};
  for (auto& model : models) {
    start = std::chrono::steady_clock::now();
    if (absl::Status s = model->Update(records); !s.ok()) {
      std::cerr << s << "\n";
      return 1;
    }
    const double update_s = Since(start);
    const auto& fit = dynamic_cast<LearnedCostModel&>(*model).last_fit();
    model->Predict(probe);  // warm caches and thread pools
    constexpr int kRepeats = 3;
    start = std::chrono::steady_clock::now();
    for (int r = 0; r < kRepeats; ++r) model->Predict(probe);
    const double predict_s = Since(start) / kRepeats;
    std::cout << "RESULT cost_model model=" << model->Name() << " records=" << num_records
              << " update_s=" << update_s << " fit_s=" << (fit ? fit->seconds : 0.0)
              << " fit_iterations=" << (fit ? fit->iterations : 0) << " predict_batch=" << batch
              << " predict_s=" << predict_s << " states_per_s=" << batch / predict_s
              << " featurize_threads=" << threads << "\n";
  }
  for (int symbol_hidden : {0, PaCMNetworkShape::kAnalyzerBranchWidth}) {
    if (int rc = RunPaCM(*device, records, probe, threads, torch_threads, symbol_hidden)) return rc;
  }
  return 0;
}

}  // namespace
}  // namespace pruner

int main(int argc, char** argv) {
  std::string spec = "matmul:M=256,K=256,N=256";
  int records = 1000, batch = 2048, threads = 0, torch_threads = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--op")) spec = argv[i + 1];
    else if (!std::strcmp(argv[i], "--records")) records = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--batch")) batch = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--threads")) threads = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--torch-threads")) torch_threads = std::atoi(argv[i + 1]);
  }
  return pruner::Run(spec, records, batch, threads, torch_threads);
}
