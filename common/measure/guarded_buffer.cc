#include "common/measure/guarded_buffer.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/codegen/cpu_codegen.h"

namespace pruner {
namespace {

constexpr unsigned char kCanary = 0xA5;
constexpr size_t kAlignment = 64;

size_t RoundUp(size_t value, size_t multiple) { return (value + multiple - 1) / multiple * multiple; }

}  // namespace

absl::StatusOr<GuardedBuffer> GuardedBuffer::Allocate(int64_t num_floats) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const size_t data_bytes = static_cast<size_t>(std::max<int64_t>(num_floats, 0)) * sizeof(float);
  // kCpuReadSlackBytes of canary on each side of the data: readable (the
  // kernels' vector code may load just outside a buffer, cpu_codegen.h), and
  // checked, so that a write there is still caught.
  const size_t slack = static_cast<size_t>(kCpuReadSlackBytes);
  const size_t usable_bytes = RoundUp(slack + RoundUp(data_bytes, kAlignment) + slack, page);
  const size_t total = usable_bytes + 2 * page;
  void* mapping = mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapping == MAP_FAILED) {
    return absl::ResourceExhaustedError(
        absl::StrCat("mmap of ", total, " bytes: ", std::strerror(errno)));
  }
  GuardedBuffer b;
  b.mapping_ = static_cast<char*>(mapping);
  b.mapping_bytes_ = total;
  b.usable_begin_ = b.mapping_ + page;
  b.usable_end_ = b.usable_begin_ + usable_bytes;
  if (mprotect(b.mapping_, page, PROT_NONE) != 0 || mprotect(b.usable_end_, page, PROT_NONE) != 0) {
    return absl::ResourceExhaustedError(absl::StrCat("mprotect: ", std::strerror(errno)));
  }
  b.data_ = reinterpret_cast<float*>(b.usable_end_ - slack - RoundUp(data_bytes, kAlignment));
  b.num_floats_ = num_floats;
  std::memset(b.usable_begin_, kCanary, usable_bytes);
  return b;
}

GuardedBuffer::GuardedBuffer(GuardedBuffer&& other) noexcept
    : mapping_(std::exchange(other.mapping_, nullptr)),
      mapping_bytes_(std::exchange(other.mapping_bytes_, 0)),
      usable_begin_(other.usable_begin_),
      usable_end_(other.usable_end_),
      data_(std::exchange(other.data_, nullptr)),
      num_floats_(other.num_floats_) {}

GuardedBuffer& GuardedBuffer::operator=(GuardedBuffer&& other) noexcept {
  if (this != &other) {
    Release();
    mapping_ = std::exchange(other.mapping_, nullptr);
    mapping_bytes_ = std::exchange(other.mapping_bytes_, 0);
    usable_begin_ = other.usable_begin_;
    usable_end_ = other.usable_end_;
    data_ = std::exchange(other.data_, nullptr);
    num_floats_ = other.num_floats_;
  }
  return *this;
}

GuardedBuffer::~GuardedBuffer() { Release(); }

void GuardedBuffer::Release() {
  if (mapping_ != nullptr) munmap(mapping_, mapping_bytes_);
  mapping_ = nullptr;
}

bool GuardedBuffer::CanaryIntact() const {
  const char* data_begin = reinterpret_cast<const char*>(data_);
  const char* data_end = data_begin + num_floats_ * sizeof(float);
  auto intact = [](const char* begin, const char* end) {
    return std::all_of(begin, end, [](char c) { return static_cast<unsigned char>(c) == kCanary; });
  };
  return intact(usable_begin_, data_begin) && intact(data_end, usable_end_);
}

}  // namespace pruner
