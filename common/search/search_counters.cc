#include "common/search/search_counters.h"

namespace pruner {

SearchCounters& SearchCounters::operator+=(const SearchCounters& o) {
  rounds += o.rounds;
  proposed += o.proposed;
  total_s += o.total_s;
  sketch_s += o.sketch_s;
  sample_s += o.sample_s;
  mutate_s += o.mutate_s;
  predict_s += o.predict_s;
  sample_attempts += o.sample_attempts;
  sampled_valid += o.sampled_valid;
  mutations_ok += o.mutations_ok;
  mutations_failed += o.mutations_failed;
  predict_calls += o.predict_calls;
  predicted_states += o.predicted_states;
  return *this;
}

SearchCounters operator-(SearchCounters a, const SearchCounters& b) {
  a.rounds -= b.rounds;
  a.proposed -= b.proposed;
  a.total_s -= b.total_s;
  a.sketch_s -= b.sketch_s;
  a.sample_s -= b.sample_s;
  a.mutate_s -= b.mutate_s;
  a.predict_s -= b.predict_s;
  a.sample_attempts -= b.sample_attempts;
  a.sampled_valid -= b.sampled_valid;
  a.mutations_ok -= b.mutations_ok;
  a.mutations_failed -= b.mutations_failed;
  a.predict_calls -= b.predict_calls;
  a.predicted_states -= b.predicted_states;
  return a;
}

}  // namespace pruner
