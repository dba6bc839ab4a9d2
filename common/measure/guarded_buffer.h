// Kernel argument buffers fenced by inaccessible pages, so that an
// out-of-bounds access faults (SIGSEGV in the sandbox child: a run error)
// instead of silently corrupting other data.
//
// Layout of one mapping (P = page size, S = kCpuReadSlackBytes):
//   [guard P: PROT_NONE][slack | canary >= S | data (64-aligned) | canary S][guard P]
// The data ends S bytes (plus the 64-byte rounding) before the trailing
// guard page: the kernels' contract (cpu_codegen.h) lets their vector code
// load, never store, up to S bytes outside a buffer. Everything around the
// data is filled with a canary pattern, so writes outside it, which no guard
// page catches, are caught by CanaryIntact(); an access farther than S bytes
// past the end faults.
#ifndef PRUNER_COMMON_MEASURE_GUARDED_BUFFER_H_
#define PRUNER_COMMON_MEASURE_GUARDED_BUFFER_H_

#include <cstddef>
#include <cstdint>

#include "absl/status/statusor.h"

namespace pruner {

class GuardedBuffer {
 public:
  // ResourceExhausted when mmap or mprotect fails.
  static absl::StatusOr<GuardedBuffer> Allocate(int64_t num_floats);

  GuardedBuffer(GuardedBuffer&& other) noexcept;
  GuardedBuffer& operator=(GuardedBuffer&& other) noexcept;
  GuardedBuffer(const GuardedBuffer&) = delete;
  GuardedBuffer& operator=(const GuardedBuffer&) = delete;
  ~GuardedBuffer();

  float* data() const { return data_; }
  int64_t size() const { return num_floats_; }
  // False when a byte of the slack around the data has changed: the kernel
  // wrote just outside its buffer.
  bool CanaryIntact() const;

 private:
  GuardedBuffer() = default;
  void Release();

  char* mapping_ = nullptr;
  size_t mapping_bytes_ = 0;
  char* usable_begin_ = nullptr;  // after the leading guard page
  char* usable_end_ = nullptr;    // the trailing guard page
  float* data_ = nullptr;
  int64_t num_floats_ = 0;
};

}  // namespace pruner

#endif  // PRUNER_COMMON_MEASURE_GUARDED_BUFFER_H_
