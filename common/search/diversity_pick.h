// AutoTVM's diversity-aware selection (autotvm.md §5.4, submodular_pick as
// its code runs it: the score term weighted 0): from candidates in model
// order, greedily take the one that adds the most knob values not yet
// covered, `k` times; ties go to the earliest candidate (the higher
// predicted score). The paper's objective adds -Σ f̂(s); the code that
// AutoTVM ships multiplies it by 0, so the model acts only through the
// candidates' order and the pre-filter to λ·k of them.
//
// A schedule's knobs here are its steps: knob j of a state is its j-th step
// (StepToString), so two schedules of one sketch differ in the knobs their
// splits, pragmas and annotations set.
#ifndef PRUNER_COMMON_SEARCH_DIVERSITY_PICK_H_
#define PRUNER_COMMON_SEARCH_DIVERSITY_PICK_H_

#include <string>
#include <vector>

#include "common/schedule/state.h"

namespace pruner {

// Knob j of `state`: its j-th step as text.
std::vector<std::string> StateKnobs(const State& state);

// Indices into `knobs` (one knob vector per candidate, best candidate
// first) of min(k, n) picks, in pick order.
std::vector<int> DiversityPick(const std::vector<std::vector<std::string>>& knobs, int k);

}  // namespace pruner

#endif  // PRUNER_COMMON_SEARCH_DIVERSITY_PICK_H_
