// What the stores under one loop have touched so far (TVM's
// for_touch_regions_ entry for that loop), reduced to the sums the reuse
// analysis reads, so that nothing grows with the number of statements.
#ifndef PRUNER_COMMON_FEATURES_LOOP_TOUCHES_H_
#define PRUNER_COMMON_FEATURES_LOOP_TOUCHES_H_

#include <cstdint>
#include <vector>

#include "common/features/store_accesses.h"
#include "common/lower/program.h"

namespace pruner {

class LoopTouches {
 public:
  struct PerBuffer {
    int buffer = -1;
    int entries = 0;          // statements below the loop that touched it
    double min_elements = 0;  // smallest region one of them touched
  };

  void Clear() {
    buffers_.clear();
    all_bytes_ = read_bytes_ = elem_bytes_ = 0;
  }
  // One statement touched `elements` elements of `buffer` while the loop
  // (and every loop inside it) ran.
  void Add(int buffer, AccessType type, double elements, int elem_bytes) {
    all_bytes_ += elements * elem_bytes;
    if (type == AccessType::kRead) read_bytes_ += elements * elem_bytes;
    elem_bytes_ += elem_bytes;
    for (PerBuffer& b : buffers_) {
      if (b.buffer == buffer) {
        ++b.entries;
        if (elements < b.min_elements) b.min_elements = elements;
        return;
      }
    }
    buffers_.push_back({buffer, 1, elements});
  }
  const PerBuffer* Find(int buffer) const {
    for (const PerBuffer& b : buffers_) {
      if (b.buffer == buffer) return &b;
    }
    return nullptr;
  }

  // Bytes of every recorded region.
  double all_bytes() const { return all_bytes_; }
  // Bytes of the read-only regions (TenSet's serial reuse distance skips
  // init and accumulate accesses so they are not counted twice).
  double read_bytes() const { return read_bytes_; }
  // One element of each recorded access: the reuse distance of a reuse
  // carried by the innermost loop.
  double elem_bytes() const { return elem_bytes_; }

 private:
  std::vector<PerBuffer> buffers_;
  double all_bytes_ = 0;
  double read_bytes_ = 0;
  double elem_bytes_ = 0;
};

// A loop enclosing the statement being analysed, outermost first.
struct LoopView {
  int var = -1;
  int64_t extent = 1;
  ForKind kind = ForKind::kSerial;
  LoopTouches* touches = nullptr;
};

}  // namespace pruner

#endif  // PRUNER_COMMON_FEATURES_LOOP_TOUCHES_H_
