// xz (LZMA2) files, the compression of dataset shards: what `xz -dk` reads
// and `xz` writes, done in process with liblzma so that no tool has to be
// installed for it. Writes go to "<out>.tmp" and are renamed, so a failure
// leaves no partial file.
#ifndef PRUNER_COMMON_STORE_XZ_FILE_H_
#define PRUNER_COMMON_STORE_XZ_FILE_H_

#include <string>

#include "absl/status/status.h"

namespace pruner {

absl::Status CompressFileXz(const std::string& in_path, const std::string& out_path);
// DataLoss for a file that is not xz or is truncated.
absl::Status DecompressFileXz(const std::string& in_path, const std::string& out_path);

}  // namespace pruner

#endif  // PRUNER_COMMON_STORE_XZ_FILE_H_
