#include "common/ir/npy.h"

#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace pruner {
namespace {

constexpr char kMagic[] = "\x93NUMPY";

// The value of `key` in the header dict, e.g. "'<f4'" or "(1, 3)".
std::string HeaderField(const std::string& header, const std::string& key) {
  const size_t at = header.find(absl::StrCat("'", key, "'"));
  if (at == std::string::npos) return "";
  size_t start = header.find(':', at);
  if (start == std::string::npos) return "";
  ++start;
  while (start < header.size() && header[start] == ' ') ++start;
  size_t end = start;
  if (header[start] == '(') {
    end = header.find(')', start);
    return end == std::string::npos ? "" : header.substr(start, end - start + 1);
  }
  while (end < header.size() && header[end] != ',' && header[end] != '}') ++end;
  return header.substr(start, end - start);
}

}  // namespace

absl::StatusOr<Tensor> ParseNpy(const std::string& bytes, const std::string& what) {
  auto bad = [&](const std::string& why) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": not a readable .npy file (", why, ")"));
  };
  if (bytes.size() < 10 || bytes.compare(0, 6, kMagic, 6) != 0) return bad("no NUMPY magic");
  const int major = static_cast<unsigned char>(bytes[6]);
  size_t header_len = 0, offset = 0;
  if (major == 1) {
    header_len = static_cast<unsigned char>(bytes[8]) | (static_cast<unsigned char>(bytes[9]) << 8);
    offset = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) return bad("short header");
    uint32_t len;
    std::memcpy(&len, bytes.data() + 8, 4);
    header_len = len;
    offset = 12;
  } else {
    return bad(absl::StrCat("format version ", major));
  }
  if (bytes.size() < offset + header_len) return bad("short header");
  const std::string header = bytes.substr(offset, header_len);
  offset += header_len;
  std::string descr = HeaderField(header, "descr");
  descr = std::string(absl::StripSuffix(absl::StripPrefix(descr, "'"), "'"));
  if (HeaderField(header, "fortran_order") != "False") return bad("Fortran order");
  std::string shape_text = HeaderField(header, "shape");
  if (shape_text.size() < 2) return bad("no shape");
  shape_text = shape_text.substr(1, shape_text.size() - 2);
  Tensor t;
  for (absl::string_view part : absl::StrSplit(shape_text, ',', absl::SkipWhitespace())) {
    int64_t d;
    if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(part), &d) || d < 0) return bad("bad shape");
    t.shape.push_back(d);
  }
  const int64_t n = NumElements(t.shape);
  int width = 0;
  if (descr == "<f4" || descr == "<i4") width = 4;
  if (descr == "<f8" || descr == "<i8") width = 8;
  if (width == 0) return bad(absl::StrCat("dtype ", descr, "; expected little-endian float32"));
  if (bytes.size() - offset != static_cast<size_t>(n * width)) {
    return bad(absl::StrCat(bytes.size() - offset, " data bytes for ", n, " elements of ", width));
  }
  // Integer arrays (token ids) keep their dtype; values are exact below 2^24.
  if (descr == "<i4") t.dtype = DType::kInt32;
  if (descr == "<i8") t.dtype = DType::kInt64;
  t.data.resize(n);
  const char* d = bytes.data() + offset;
  for (int64_t i = 0; i < n; ++i) {
    const char* e = d + i * width;
    if (descr == "<f4") { std::memcpy(&t.data[i], e, 4); continue; }
    if (descr == "<f8") { double v; std::memcpy(&v, e, 8); t.data[i] = static_cast<float>(v); continue; }
    if (descr == "<i4") { int32_t v; std::memcpy(&v, e, 4); t.data[i] = static_cast<float>(v); continue; }
    int64_t v;
    std::memcpy(&v, e, 8);
    t.data[i] = static_cast<float>(v);
  }
  return t;
}

absl::StatusOr<Tensor> ReadNpy(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot open '", path, "'"));
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return ParseNpy(bytes.str(), path);
}

std::string SerializeNpy(const Tensor& t) {
  std::string shape;
  for (int64_t d : t.shape) absl::StrAppend(&shape, d, ",");
  if (t.shape.size() > 1) shape.pop_back();  // (3,) for rank 1, (2,3) otherwise
  std::string header =
      absl::StrCat("{'descr': '<f4', 'fortran_order': False, 'shape': (", shape, "), }");
  // Pad with spaces so that the data starts 64-byte aligned, ending in '\n'.
  while ((10 + header.size() + 1) % 64 != 0) header.push_back(' ');
  header.push_back('\n');
  std::string out(kMagic, 6);
  out.push_back('\x01');
  out.push_back('\x00');
  out.push_back(static_cast<char>(header.size() & 0xff));
  out.push_back(static_cast<char>(header.size() >> 8));
  out += header;
  out.append(reinterpret_cast<const char*>(t.data.data()), t.data.size() * sizeof(float));
  return out;
}

absl::Status WriteNpy(const std::string& path, const Tensor& t) {
  std::ofstream out(path, std::ios::binary);
  const std::string bytes = SerializeNpy(t);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) return absl::InternalError(absl::StrCat("cannot write '", path, "'"));
  return absl::OkStatus();
}

}  // namespace pruner
