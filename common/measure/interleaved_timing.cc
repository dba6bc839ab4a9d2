#include "common/measure/interleaved_timing.h"

#include <algorithm>

#include "common/base/clock.h"

namespace pruner {

double Median(std::vector<double> xs) {
  if (xs.empty()) return 0;
  std::sort(xs.begin(), xs.end());
  const size_t n = xs.size();
  return n % 2 == 1 ? xs[n / 2] : (xs[n / 2 - 1] + xs[n / 2]) / 2;
}

std::vector<InterleavedTimes> TimeInterleaved(const std::vector<Contender>& contenders,
                                              const InterleaveOptions& options) {
  const size_t n = contenders.size();
  std::vector<InterleavedTimes> out(n);
  for (const Contender& c : contenders) {
    for (int i = 0; i < options.warmup; ++i) c.call();
  }
  for (int r = 0; r < options.rounds; ++r) {
    if (options.before_round) options.before_round(r);
    for (size_t j = 0; j < n; ++j) {
      const size_t k = (j + static_cast<size_t>(r)) % n;
      const auto visit = SteadyClock::now();
      while (SecondsSince(visit) < options.settle_s) contenders[k].call();
      double best = 1e30;
      const auto counted = SteadyClock::now();
      for (int i = 0; i < 10000; ++i) {
        auto t = SteadyClock::now();
        contenders[k].call();
        const double s = SecondsSince(t);
        best = std::min(best, s);
        out[k].call_s.push_back(s);
        out[k].call_round.push_back(r);
        if (i + 1 >= options.calls_per_round && SecondsSince(counted) >= options.min_visit_s) break;
      }
      out[k].round_s.push_back(best);
    }
  }
  for (InterleavedTimes& t : out) {
    t.median_s = Median(t.round_s);
    t.min_s = t.round_s.empty() ? 0 : *std::min_element(t.round_s.begin(), t.round_s.end());
    t.median_call_s = Median(t.call_s);
  }
  return out;
}

}  // namespace pruner
