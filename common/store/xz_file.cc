#include "common/store/xz_file.h"

#include <lzma.h>

#include <cstdio>
#include <fstream>
#include <vector>

#include "absl/strings/str_cat.h"

namespace pruner {
namespace {

// Streams `in` through `stream` into "<out>.tmp", then renames it.
absl::Status Pump(lzma_stream* stream, const std::string& in_path, const std::string& out_path,
                  const char* what) {
  std::ifstream in(in_path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read '", in_path, "'"));
  const std::string tmp = out_path + ".tmp";
  std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
  if (!out) return absl::PermissionDeniedError(absl::StrCat("cannot write '", tmp, "'"));
  std::vector<uint8_t> in_buf(1 << 16), out_buf(1 << 16);
  lzma_action action = LZMA_RUN;
  stream->next_out = out_buf.data();
  stream->avail_out = out_buf.size();
  while (true) {
    if (stream->avail_in == 0 && action == LZMA_RUN) {
      in.read(reinterpret_cast<char*>(in_buf.data()), static_cast<std::streamsize>(in_buf.size()));
      stream->next_in = in_buf.data();
      stream->avail_in = static_cast<size_t>(in.gcount());
      if (in.eof()) action = LZMA_FINISH;
    }
    const lzma_ret ret = lzma_code(stream, action);
    if (stream->avail_out == 0 || ret == LZMA_STREAM_END) {
      out.write(reinterpret_cast<const char*>(out_buf.data()),
                static_cast<std::streamsize>(out_buf.size() - stream->avail_out));
      stream->next_out = out_buf.data();
      stream->avail_out = out_buf.size();
    }
    if (ret == LZMA_STREAM_END) break;
    if (ret != LZMA_OK) {
      out.close();
      std::remove(tmp.c_str());
      return absl::DataLossError(absl::StrCat(what, " '", in_path, "' failed (liblzma code ",
                                              static_cast<int>(ret),
                                              ret == LZMA_FORMAT_ERROR ? ": not an xz file"
                                              : ret == LZMA_BUF_ERROR  ? ": truncated"
                                                                       : "",
                                              ")"));
    }
  }
  out.close();
  if (!out || std::rename(tmp.c_str(), out_path.c_str()) != 0) {
    std::remove(tmp.c_str());
    return absl::PermissionDeniedError(absl::StrCat("cannot write '", out_path, "'"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CompressFileXz(const std::string& in_path, const std::string& out_path) {
  lzma_stream stream = LZMA_STREAM_INIT;
  // Preset 6 (xz's default): about 94 MB of encoder memory; 9 needs 674 MB.
  if (lzma_easy_encoder(&stream, 6, LZMA_CHECK_CRC64) != LZMA_OK) {
    return absl::InternalError("liblzma: cannot start the encoder");
  }
  absl::Status st = Pump(&stream, in_path, out_path, "compressing");
  lzma_end(&stream);
  return st;
}

absl::Status DecompressFileXz(const std::string& in_path, const std::string& out_path) {
  lzma_stream stream = LZMA_STREAM_INIT;
  if (lzma_stream_decoder(&stream, UINT64_MAX, 0) != LZMA_OK) {
    return absl::InternalError("liblzma: cannot start the decoder");
  }
  absl::Status st = Pump(&stream, in_path, out_path, "decompressing");
  lzma_end(&stream);
  return st;
}

}  // namespace pruner
