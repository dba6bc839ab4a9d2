// `pruner export JOB --out DIR`: the server's exported files written under
// a folder the user chose. The paths come from the server, so each one is
// checked before it is joined to the folder: a path that is absolute or
// climbs out with ".." would write wherever the server liked.
#ifndef PRUNER_CLIENT_EXPORT_WRITER_H_
#define PRUNER_CLIENT_EXPORT_WRITER_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "pruner/v1/tuning_service.pb.h"

namespace pruner {

inline constexpr char kExportManifestName[] = "manifest.json";

// OK for a relative path such as "task03_dense.cc" or "cuda/task03.cu".
// InvalidArgument, naming the path, when it is empty, absolute, has a ".."
// component or a NUL byte, or would overwrite the manifest.
absl::Status CheckExportPath(std::string_view path);

// Checks every path first (nothing is written when one is refused), then
// writes each file and DIR/manifest.json, creating folders as needed.
// Returns the paths written, as DIR/path, the manifest last.
absl::StatusOr<std::vector<std::string>> WriteExport(const v1::ExportJobReply& reply,
                                                     const std::string& dir);

}  // namespace pruner

#endif  // PRUNER_CLIENT_EXPORT_WRITER_H_
