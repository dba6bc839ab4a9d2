#include "worker/gpu_query.h"

#include <cstdint>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/measure/sandbox.h"

namespace pruner {
namespace {

constexpr double kQueryDeadlineS = 30;  // the first cuInit can take seconds
constexpr char kOk[] = "ok";
constexpr char kError[] = "error";

// The numeric fields, in an order both sides of the pipe share.
std::vector<int64_t> ToNumbers(const CudaDeviceProperties& p) {
  return {p.ordinal,
          p.compute_capability_major,
          p.compute_capability_minor,
          p.sm_count,
          p.warp_size,
          p.max_threads_per_block,
          p.max_threads_per_sm,
          p.registers_per_block,
          p.registers_per_sm,
          p.shared_memory_per_block,
          p.shared_memory_per_block_optin,
          p.shared_memory_per_sm,
          p.l2_cache_bytes,
          p.total_memory_bytes,
          p.clock_khz};
}

CudaDeviceProperties FromNumbers(const std::vector<int64_t>& n, std::string name) {
  CudaDeviceProperties p;
  p.name = std::move(name);
  p.ordinal = static_cast<int>(n[0]);
  p.compute_capability_major = static_cast<int>(n[1]);
  p.compute_capability_minor = static_cast<int>(n[2]);
  p.sm_count = static_cast<int>(n[3]);
  p.warp_size = static_cast<int>(n[4]);
  p.max_threads_per_block = static_cast<int>(n[5]);
  p.max_threads_per_sm = static_cast<int>(n[6]);
  p.registers_per_block = static_cast<int>(n[7]);
  p.registers_per_sm = static_cast<int>(n[8]);
  p.shared_memory_per_block = n[9];
  p.shared_memory_per_block_optin = n[10];
  p.shared_memory_per_sm = n[11];
  p.l2_cache_bytes = n[12];
  p.total_memory_bytes = n[13];
  p.clock_khz = static_cast<int>(n[14]);
  return p;
}

}  // namespace

std::string EncodeGpuQueryReply(const absl::StatusOr<CudaDeviceProperties>& properties) {
  if (!properties.ok()) return absl::StrCat(kError, "\n", properties.status().message());
  return absl::StrCat(kOk, "\n", absl::StrJoin(ToNumbers(*properties), " "), "\n",
                      properties->name);
}

absl::StatusOr<CudaDeviceProperties> DecodeGpuQueryReply(const std::string& reply) {
  std::vector<std::string> lines = absl::StrSplit(reply, absl::MaxSplits('\n', 2));
  if (lines.size() == 2 && lines[0] == kError) return absl::FailedPreconditionError(lines[1]);
  const absl::Status garbled = absl::InvalidArgumentError("garbled GPU query reply");
  if (lines.size() != 3 || lines[0] != kOk) return garbled;
  std::vector<int64_t> numbers;
  for (absl::string_view word : absl::StrSplit(lines[1], ' ')) {
    int64_t value = 0;
    if (!absl::SimpleAtoi(word, &value)) return garbled;
    numbers.push_back(value);
  }
  if (numbers.size() != ToNumbers(CudaDeviceProperties{}).size()) return garbled;
  return FromNumbers(numbers, lines[2]);
}

absl::StatusOr<CudaDeviceProperties> QueryGpuInSandbox() {
  const SandboxReply reply = RunInSandbox(
      [] {
        auto count = CudaDeviceCount();
        if (!count.ok()) return EncodeGpuQueryReply(count.status());
        if (*count < 1) return EncodeGpuQueryReply(absl::FailedPreconditionError("no CUDA device"));
        return EncodeGpuQueryReply(QueryCudaDevice(0));
      },
      kQueryDeadlineS);
  if (!reply.payload.ok()) {
    return absl::FailedPreconditionError(
        absl::StrCat("querying the GPU: ", reply.payload.status().message()));
  }
  return DecodeGpuQueryReply(*reply.payload);
}

}  // namespace pruner
