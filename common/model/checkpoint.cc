#include "common/model/checkpoint.h"

#include <charconv>

#include "absl/strings/str_cat.h"
#include "common/base/absl_compat.h"
#include "common/base/status_macros.h"

namespace pruner {
namespace {

constexpr std::string_view kMagic = "pruner-cost-model 1";

// Reads "<key> <value>\n" from the front of `rest`.
absl::StatusOr<std::string_view> ReadField(std::string_view& rest, std::string_view key) {
  const size_t eol = rest.find('\n');
  if (eol == std::string_view::npos) {
    return absl::InvalidArgumentError(absl::StrCat("checkpoint: truncated before '", ToAbsl(key), "'"));
  }
  std::string_view line = rest.substr(0, eol);
  rest.remove_prefix(eol + 1);
  if (line.size() <= key.size() || line.substr(0, key.size()) != key || line[key.size()] != ' ') {
    return absl::InvalidArgumentError(
        absl::StrCat("checkpoint: expected '", ToAbsl(key), "', got '", ToAbsl(line.substr(0, 40)), "'"));
  }
  return line.substr(key.size() + 1);
}

template <typename Int>
absl::StatusOr<Int> ReadInt(std::string_view& rest, std::string_view key) {
  PRUNER_ASSIGN_OR_RETURN(std::string_view text, ReadField(rest, key));
  Int value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("checkpoint: bad ", ToAbsl(key), " '", ToAbsl(text), "'"));
  }
  return value;
}

}  // namespace

std::string EncodeCheckpoint(const ModelCheckpoint& c) {
  return absl::StrCat(ToAbsl(kMagic), "\nmodel ", c.model, "\ndevice ", c.device, "\ncolumns ",
                      c.columns, "\nrecords ", c.records, "\npayload ", c.payload.size(), "\n",
                      c.payload);
}

absl::StatusOr<ModelCheckpoint> DecodeCheckpoint(std::string_view blob) {
  if (blob.substr(0, kMagic.size()) != kMagic || blob.size() == kMagic.size() ||
      blob[kMagic.size()] != '\n') {
    return absl::InvalidArgumentError("checkpoint: not a pruner cost-model checkpoint");
  }
  std::string_view rest = blob.substr(kMagic.size() + 1);
  ModelCheckpoint c;
  absl::StatusOr<std::string_view> model = ReadField(rest, "model");
  if (!model.ok()) return model.status();
  c.model = std::string(*model);
  absl::StatusOr<std::string_view> device = ReadField(rest, "device");
  if (!device.ok()) return device.status();
  c.device = std::string(*device);
  absl::StatusOr<int> columns = ReadInt<int>(rest, "columns");
  if (!columns.ok()) return columns.status();
  c.columns = *columns;
  absl::StatusOr<int64_t> records = ReadInt<int64_t>(rest, "records");
  if (!records.ok()) return records.status();
  c.records = *records;
  PRUNER_ASSIGN_OR_RETURN(size_t size, ReadInt<size_t>(rest, "payload"));
  if (rest.size() != size) {
    return absl::InvalidArgumentError(
        absl::StrCat("checkpoint: payload is ", rest.size(), " bytes, header says ", size));
  }
  c.payload = std::string(rest);
  return c;
}

}  // namespace pruner
