// Wall-clock timestamps the store writes (records' measured_at defaults,
// job and checkpoint creation times): milliseconds since the Unix epoch, the
// unit every *_unix_ms field uses.
#ifndef PRUNER_COMMON_STORE_STORE_CLOCK_H_
#define PRUNER_COMMON_STORE_STORE_CLOCK_H_

#include <chrono>
#include <cstdint>

namespace pruner::store_internal {

inline int64_t NowUnixMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace pruner::store_internal

#endif  // PRUNER_COMMON_STORE_STORE_CLOCK_H_
