// Real schedules with a synthetic cost, for the end-to-end cost-model tests.
//
// The states are genuine random CPU schedules of a small matmul (sketches
// plus random annotation), so featurization runs on real lowered programs.
// Their "cost" is NOT a measurement: it is a made-up formula over each
// schedule's loop structure (SyntheticThroughput below), so the tests can
// check that a model learns schedule-dependent performance without timing
// anything.
#ifndef PRUNER_TESTS_MODEL_SCHEDULE_DATASET_H_
#define PRUNER_TESTS_MODEL_SCHEDULE_DATASET_H_

#include <algorithm>
#include <cmath>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "common/device/device_profile.h"
#include "common/ir/ops.h"
#include "common/model/cost_model.h"
#include "common/sketch/annotate.h"
#include "common/sketch/random.h"
#include "common/sketch/sketch.h"
#include "gtest/gtest.h"
#include "tests/support/pinned_cpus.h"
#include "tests/model/model_test_util.h"

namespace pruner::testing {

// Rewards what CPUs reward: parallel loops (up to 8-way), a wide vectorized
// loop (up to 16 lanes) and unrolling; a small penalty per loop stands for
// loop overhead. Higher is better; cost = 1 / throughput.
inline double SyntheticThroughput(const State& state) {
  int64_t parallel = 1, vector = 1;
  bool unrolled = false;
  int loops = 0;
  for (const Stage& stage : state.stages()) {
    if (stage.is_placeholder() || stage.compute_at == ComputeAtKind::kInlined) continue;
    unrolled = unrolled || stage.auto_unroll_max_step > 0;
    for (int i = 0; i < static_cast<int>(stage.iters.size()); ++i) {
      ++loops;
      const int64_t extent = std::max<int64_t>(1, stage.iter_extent(i));
      switch (stage.iters[i].annotation) {
        case IterAnnotation::kParallel: parallel *= extent; break;
        case IterAnnotation::kVectorize: vector = std::max(vector, extent); break;
        case IterAnnotation::kUnroll: unrolled = true; break;
        default: break;
      }
    }
  }
  return std::min<int64_t>(parallel, 8) * (1.0 + std::log2(static_cast<double>(std::min<int64_t>(vector, 16)))) *
         (unrolled ? 1.3 : 1.0) / (1.0 + 0.02 * loops);
}

struct ScheduleDataset {
  DeviceProfile device;
  std::shared_ptr<const ComputeDag> dag;
  std::vector<Sketch> sketches;
  std::vector<State> states;       // distinct, concrete
  std::vector<double> throughput;  // SyntheticThroughput of each state

  // Records [begin, end) with cost = 1 / throughput.
  std::vector<MeasuredState> Records(int begin, int end) const {
    std::vector<MeasuredState> out;
    const std::string key = dag->WorkloadKey();
    for (int i = begin; i < end; ++i) out.push_back({states[i], key, 1.0 / throughput[i], true});
    return out;
  }
  std::vector<State> States(int begin, int end) const {
    return std::vector<State>(states.begin() + begin, states.begin() + end);
  }
  std::vector<double> Throughput(int begin, int end) const {
    return std::vector<double>(throughput.begin() + begin, throughput.begin() + end);
  }
};

// `count` random schedules of operator `spec` (BuildOperator's syntax) for
// the pinned EPYC CPU (the schedules, hence the rankings, depend on the
// profile).
inline ScheduleDataset SampleSchedules(const std::string& spec, int count, uint64_t seed) {
  ScheduleDataset d;
  auto built = BuildOperator(spec);
  EXPECT_TRUE(built.ok()) << spec;
  d.device = PinnedEpycCpu();
  d.dag = std::make_shared<const ComputeDag>(*std::move(built));
  auto sketches = GenerateSketches(d.dag, d.device);
  EXPECT_TRUE(sketches.ok()) << sketches.status();
  d.sketches = *std::move(sketches);
  Rng rng(seed);
  d.states = SampleInitPopulation(d.sketches, d.device, count, rng);
  for (const State& s : d.states) d.throughput.push_back(SyntheticThroughput(s));
  return d;
}

// 300 random schedules of a 64x64x64 matmul, sampled once per test binary.
inline const ScheduleDataset& MatmulSchedules() {
  static const ScheduleDataset* data =
      new ScheduleDataset(SampleSchedules("matmul:M=64,K=64,N=64", 300, 2024));
  return *data;
}

// How a model ranks the schedules [begin, end) against their synthetic
// throughput. Chance is a Spearman of 0 (sd 0.1 for 100 items), pairwise
// accuracy 0.5 and, for top-10, random_top10.
struct HeldOutRanking {
  double spearman = 0;
  double pairwise = 0;
  double top10 = 0;         // TopKQuality of the model's 10 best
  double random_top10 = 0;  // the same for 10 picked at random (expected)
};

inline HeldOutRanking RankHeldOut(CostModel& model, const ScheduleDataset& data, int begin,
                                  int end) {
  const std::vector<double> pred = model.Predict(data.States(begin, end));
  const std::vector<double> truth = data.Throughput(begin, end);
  EXPECT_EQ(pred.size(), truth.size());
  for (double p : pred) EXPECT_TRUE(std::isfinite(p));
  std::vector<double> best = truth;
  std::sort(best.begin(), best.end(), std::greater<double>());
  double mean = 0, best10 = 0;
  for (double t : truth) mean += t / static_cast<double>(truth.size());
  for (size_t i = 0; i < 10 && i < best.size(); ++i) best10 += best[i];
  const double k = static_cast<double>(std::min<size_t>(10, best.size()));
  return {Spearman(pred, truth), PairwiseAccuracy(pred, truth), TopKQuality(pred, truth, 10),
          mean * k / best10};
}

inline std::ostream& operator<<(std::ostream& out, const HeldOutRanking& r) {
  return out << "spearman " << r.spearman << " pairwise " << r.pairwise << " top-10 " << r.top10
             << " (random top-10 " << r.random_top10 << ")";
}

}  // namespace pruner::testing

#endif  // PRUNER_TESTS_MODEL_SCHEDULE_DATASET_H_
