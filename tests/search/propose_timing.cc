// Times Propose rounds of the evolutionary policy (not a test; run by hand):
//
//   propose_timing [spec] [device] [population] [rounds] [n]
//
// defaults: dense:M=512,K=512,N=512 cpu 2048 5 64, with Ansor's RandomModel
// (so 2 generations). Each round's proposals are "measured" with made-up
// costs and recorded, so later rounds carry measured seeds as in tuning.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "common/model/cost_model.h"
#include "common/search/evolutionary_policy.h"
#include "tests/search/search_test_support.h"

int main(int argc, char** argv) {
  using namespace pruner;
  const std::string spec = argc > 1 ? argv[1] : "dense:M=512,K=512,N=512";
  const std::string device = argc > 2 ? argv[2] : "cpu";
  const int population = argc > 3 ? std::atoi(argv[3]) : 2048;
  const int rounds = argc > 4 ? std::atoi(argv[4]) : 5;
  const int n = argc > 5 ? std::atoi(argv[5]) : 64;

  const SearchTask task = pruner::testing::MakeTask(spec, device);
  if (task.dag == nullptr) return 1;
  std::unique_ptr<CostModel> model = MakeRandomModel(1);
  EvolutionaryOptions options;
  options.population = population;
  options.num_iters = 2;  // Ansor's generations with random scores
  EvolutionarySearchPolicy policy(task, model.get(), options, 1);
  std::printf("%s on %s (%s), population %d, %d generations, n %d, model %s\n", spec.c_str(),
              task.device.name.c_str(), task.device.description.c_str(), population,
              options.num_iters, n, model->Name().c_str());
  std::printf("round  proposed  total_s  sample_s  mutate_s  predict_s  other_s  init  seeds  "
              "mut_ok  mut_fail\n");
  SearchCounters before = policy.Counters();
  const SearchCounters start = before;
  for (int r = 0; r < rounds; ++r) {
    auto states = policy.Propose(n);
    if (!states.ok()) {
      std::fprintf(stderr, "%s\n", states.status().ToString().c_str());
      return 1;
    }
    const SearchCounters now = policy.Counters();
    const SearchCounters d = now - before;
    before = now;
    std::printf("%5d  %8zu  %7.3f  %8.3f  %8.3f  %9.3f  %7.3f  %4d  %5d  %6lld  %8lld\n", r,
                states->size(), d.total_s, d.sample_s, d.mutate_s, d.predict_s,
                d.total_s - d.sample_s - d.mutate_s - d.predict_s - d.sketch_s,
                policy.last_round().init_population, policy.last_round().seeds,
                static_cast<long long>(d.mutations_ok), static_cast<long long>(d.mutations_failed));
    std::vector<MeasuredState> results;
    for (size_t i = 0; i < states->size(); ++i) {
      results.push_back(MeasuredState{(*states)[i], task.workload_key, 1e-3 * (1 + i % 7), true});
    }
    policy.Record(results);
  }
  const SearchCounters all = policy.Counters() - start;
  std::printf("RESULT search_propose rounds=%d seconds_per_round=%.4f sample_s=%.4f mutate_s=%.4f "
              "predict_s=%.4f population=%d\n",
              rounds, all.total_s / std::max(rounds, 1), all.sample_s / std::max(rounds, 1),
              all.mutate_s / std::max(rounds, 1), all.predict_s / std::max(rounds, 1), population);
  return 0;
}
