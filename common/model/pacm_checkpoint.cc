#include "common/model/pacm_checkpoint.h"

#include <charconv>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/features/pacm_features.h"
#include "common/base/absl_compat.h"
#include "common/model/checkpoint.h"

namespace pruner {
namespace {

constexpr std::string_view kPayloadMagic = "pacm-payload ";

void AppendU64(uint64_t v, std::string* out) {
  for (int i = 0; i < 8; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

bool TakeU64(std::string_view* in, uint64_t* v) {
  if (in->size() < 8) return false;
  *v = 0;
  for (int i = 0; i < 8; ++i) *v |= static_cast<uint64_t>(static_cast<unsigned char>((*in)[i])) << (8 * i);
  in->remove_prefix(8);
  return true;
}

// A length-prefixed section; false when truncated.
bool TakeSection(std::string_view* in, std::string_view* section) {
  uint64_t size = 0;
  if (!TakeU64(in, &size) || size > in->size()) return false;
  *section = in->substr(0, size);
  in->remove_prefix(size);
  return true;
}

absl::StatusOr<std::string> SerializeOrEmpty(const PaCMNetwork* network) {
  if (network == nullptr) return std::string();
  return network->Serialize();
}

absl::StatusOr<std::unique_ptr<PaCMNetwork>> DeserializeOrNull(std::string_view bytes) {
  if (bytes.empty()) return std::unique_ptr<PaCMNetwork>();
  return PaCMNetwork::Deserialize(bytes);
}

}  // namespace

absl::StatusOr<std::string> EncodePaCMCheckpoint(const PaCMCheckpointContents& contents) {
  ModelCheckpoint c;
  c.model = std::string(kPaCMModelName);
  c.device = contents.device;
  c.columns = kPaCMStatementWidth;
  c.records = contents.records;
  if (contents.predictor != nullptr) {
    PRUNER_ASSIGN_OR_RETURN(std::string predictor, contents.predictor->Serialize());
    PRUNER_ASSIGN_OR_RETURN(std::string siamese, SerializeOrEmpty(contents.siamese));
    c.payload = absl::StrCat(ToAbsl(kPayloadMagic), kPaCMPayloadVersion, "\n");
    AppendU64(static_cast<uint64_t>(contents.moa_updates), &c.payload);
    AppendU64(predictor.size(), &c.payload);
    c.payload += predictor;
    AppendU64(siamese.size(), &c.payload);
    c.payload += siamese;
  }
  return EncodeCheckpoint(c);
}

absl::StatusOr<PaCMCheckpoint> DecodePaCMCheckpoint(std::string_view blob) {
  PRUNER_ASSIGN_OR_RETURN(ModelCheckpoint c, DecodeCheckpoint(blob));
  if (c.model != kPaCMModelName) {
    return absl::InvalidArgumentError(absl::StrCat("checkpoint of a '", c.model,
                                                   "' model, this is '", ToAbsl(kPaCMModelName),
                                                   "'"));
  }
  if (c.columns != kPaCMStatementWidth) {
    return absl::InvalidArgumentError(absl::StrCat("pacm checkpoint has ", c.columns,
                                                   "-wide statement rows, expected ",
                                                   kPaCMStatementWidth));
  }
  PaCMCheckpoint out;
  out.device = c.device;
  out.records = c.records;
  if (c.payload.empty()) return out;  // an untrained model's checkpoint

  std::string_view in = c.payload;
  const size_t eol = in.find('\n');
  int version = 0;
  if (in.substr(0, kPayloadMagic.size()) != kPayloadMagic || eol == std::string_view::npos ||
      std::from_chars(in.data() + kPayloadMagic.size(), in.data() + eol, version).ptr !=
          in.data() + eol) {
    return absl::InvalidArgumentError("pacm checkpoint: payload is not PaCM's");
  }
  if (version != kPaCMPayloadVersion) {
    return absl::InvalidArgumentError(absl::StrCat("pacm checkpoint: payload version ", version,
                                                   ", this build reads version ",
                                                   kPaCMPayloadVersion));
  }
  in.remove_prefix(eol + 1);
  uint64_t updates = 0;
  std::string_view predictor, siamese;
  if (!TakeU64(&in, &updates) || !TakeSection(&in, &predictor) || !TakeSection(&in, &siamese) ||
      !in.empty()) {
    return absl::InvalidArgumentError("pacm checkpoint: payload truncated or with trailing bytes");
  }
  out.moa_updates = static_cast<int64_t>(updates);
  PRUNER_ASSIGN_OR_RETURN(std::unique_ptr<PaCMNetwork> p, DeserializeOrNull(predictor));
  PRUNER_ASSIGN_OR_RETURN(std::unique_ptr<PaCMNetwork> s, DeserializeOrNull(siamese));
  out.predictor = std::move(p);
  out.siamese = std::move(s);
  if (out.predictor == nullptr) {
    return absl::InvalidArgumentError("pacm checkpoint: payload without a predicting network");
  }
  return out;
}

}  // namespace pruner
