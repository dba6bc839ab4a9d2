// Pruner's draft model (the Symbol-based Analyzer, common/analysis) behind
// the CostModel interface, so that the evolutionary search can draft with
// it exactly as it searches with a learned model.
//
// - Predict lowers each state and scores it 1 / estimated latency in
//   seconds: higher is better, as CostModel requires, and the evolutionary
//   search's roulette (proportional to max(score, 0)) then picks parents in
//   proportion to estimated throughput, which is what Pruner's draft GA
//   does with its own score, 1 / L_total. (-log(latency) would rank the
//   same but squeeze the roulette to nearly uniform weights, and turn
//   negative, i.e. weight 0, for anything slower than a second.)
// - A state that does not lower, or whose estimate is not a positive
//   finite latency, scores -infinity: the lowest score, never a parent.
// - Update learns nothing (the analyzer has no parameters); Save writes an
//   empty checkpoint, and Load accepts only an empty one.
// Name() is "psa" (the code name of Pruner's analyzer).
#ifndef PRUNER_COMMON_MODEL_SYMBOL_ANALYZER_MODEL_H_
#define PRUNER_COMMON_MODEL_SYMBOL_ANALYZER_MODEL_H_

#include <memory>

#include "absl/status/statusor.h"
#include "common/analysis/analyzer_options.h"
#include "common/device/device_profile.h"
#include "common/model/cost_model.h"

namespace pruner {

struct SymbolAnalyzerModelOptions {
  // The paper's analyzer, with the CPU issue model on CPUs (Eq. 1 mapped
  // onto a CPU ranks our kernels little better than chance: bench/README.md,
  // "LSE on the CPU").
  AnalyzerOptions analyzer = AnalyzerOptions::Calibrated();
  // Threads that lower and analyze states; 0 = hardware threads.
  int threads = 0;
};

// FailedPrecondition when the profile lacks what the analyzer needs
// (SymbolAnalyzer::Create).
absl::StatusOr<std::unique_ptr<CostModel>> MakeSymbolAnalyzerModel(
    const DeviceProfile& device, const SymbolAnalyzerModelOptions& options = {});

}  // namespace pruner

#endif  // PRUNER_COMMON_MODEL_SYMBOL_ANALYZER_MODEL_H_
