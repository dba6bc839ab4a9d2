// The clocks: a steady clock for durations (never jumps with the wall
// clock) and wall-clock milliseconds since the Unix epoch for timestamps
// that are stored or shown (every *_unix_ms field).
#ifndef PRUNER_COMMON_BASE_CLOCK_H_
#define PRUNER_COMMON_BASE_CLOCK_H_

#include <chrono>
#include <cstdint>

namespace pruner {

using SteadyClock = std::chrono::steady_clock;

// Seconds from `start` to now.
inline double SecondsSince(SteadyClock::time_point start) {
  return std::chrono::duration<double>(SteadyClock::now() - start).count();
}

inline int64_t NowUnixMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace pruner

#endif  // PRUNER_COMMON_BASE_CLOCK_H_
