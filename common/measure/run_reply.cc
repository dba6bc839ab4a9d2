#include "common/measure/run_reply.h"

#include <cstdint>
#include <cstring>

#include "absl/status/status.h"

namespace pruner {
namespace {

template <typename T>
void Put(std::string* out, const T& value) {
  out->append(reinterpret_cast<const char*>(&value), sizeof(T));
}

void PutString(std::string* out, const std::string& s) {
  Put<uint64_t>(out, s.size());
  out->append(s);
}

class Reader {
 public:
  explicit Reader(const std::string& bytes) : bytes_(bytes) {}
  template <typename T>
  bool Get(T* value) {
    if (bytes_.size() - pos_ < sizeof(T)) return false;
    std::memcpy(value, bytes_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return true;
  }
  bool GetString(std::string* s) {
    uint64_t size = 0;
    if (!Get(&size) || bytes_.size() - pos_ < size) return false;
    s->assign(bytes_, pos_, size);
    pos_ += size;
    return true;
  }
  bool AtEnd() const { return pos_ == bytes_.size(); }

 private:
  const std::string& bytes_;
  size_t pos_ = 0;
};

}  // namespace

RunOutcome OutcomeFromSandboxReply(const SandboxReply& reply) {
  RunOutcome outcome;
  if (!reply.payload.ok()) {
    const bool timeout = absl::IsDeadlineExceeded(reply.payload.status());
    outcome = RunOutcome::Failure(timeout ? MeasureError::kRunTimeout : MeasureError::kRunError,
                                  "run", std::string(reply.payload.status().message()));
  } else if (auto decoded = DecodeRunOutcome(*reply.payload); decoded.ok()) {
    outcome = *std::move(decoded);
  } else {
    outcome = RunOutcome::Failure(MeasureError::kRunError, "run",
                                  std::string(decoded.status().message()));
  }
  outcome.wall_s = reply.wall_s;
  return outcome;
}

std::string EncodeRunOutcome(const RunOutcome& outcome) {
  std::string out;
  Put<uint8_t>(&out, static_cast<uint8_t>(outcome.error));
  PutString(&out, outcome.phase);
  PutString(&out, outcome.message);
  Put<uint64_t>(&out, outcome.repeat_costs_s.size());
  for (double c : outcome.repeat_costs_s) Put(&out, c);
  return out;
}

absl::StatusOr<RunOutcome> DecodeRunOutcome(const std::string& bytes) {
  Reader in(bytes);
  RunOutcome o;
  uint8_t error = 0;
  uint64_t count = 0;
  if (!in.Get(&error) || error > static_cast<uint8_t>(MeasureError::kDeviceError) ||
      !in.GetString(&o.phase) || !in.GetString(&o.message) || !in.Get(&count) ||
      count > bytes.size() / sizeof(double)) {
    return absl::InvalidArgumentError("garbled run reply");
  }
  o.error = static_cast<MeasureError>(error);
  o.repeat_costs_s.resize(count);
  for (double& c : o.repeat_costs_s) {
    if (!in.Get(&c)) return absl::InvalidArgumentError("garbled run reply");
  }
  if (!in.AtEnd()) return absl::InvalidArgumentError("garbled run reply: trailing bytes");
  return o;
}

}  // namespace pruner
