#include "client/export_writer.h"

#include <filesystem>
#include <fstream>
#include <set>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"

namespace pruner {
namespace {

absl::Status Refuse(std::string_view path, std::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat("refusing to write exported file '",
                                                 absl::string_view(path.data(), path.size()),
                                                 "': ", absl::string_view(why.data(), why.size())));
}

absl::Status WriteFile(const std::filesystem::path& path, const std::string& content) {
  std::error_code error;
  std::filesystem::create_directories(path.parent_path(), error);
  if (error) {
    return absl::PermissionDeniedError(
        absl::StrCat("cannot create folder '", path.parent_path().string(), "': ", error.message()));
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
  out.close();
  if (!out) return absl::PermissionDeniedError(absl::StrCat("cannot write '", path.string(), "'"));
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckExportPath(std::string_view path) {
  if (path.empty()) return Refuse(path, "empty path");
  if (path.find('\0') != std::string_view::npos) return Refuse(path, "NUL byte in the path");
  const std::filesystem::path p{std::string(path)};
  if (p.is_absolute() || path.front() == '/') return Refuse(path, "absolute path");
  for (const std::filesystem::path& part : p) {
    if (part == "..") return Refuse(path, "'..' in the path");
  }
  if (p.lexically_normal() == kExportManifestName) {
    return Refuse(path, "it would overwrite the manifest");
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<std::string>> WriteExport(const v1::ExportJobReply& reply,
                                                     const std::string& dir) {
  if (dir.empty()) return absl::InvalidArgumentError("no output folder given (--out DIR)");
  std::set<std::string> seen;
  for (const v1::ExportedFile& file : reply.files()) {
    PRUNER_RETURN_IF_ERROR(CheckExportPath(file.path()));
    if (!seen.insert(std::filesystem::path(file.path()).lexically_normal().string()).second) {
      return Refuse(file.path(), "the server sent it twice");
    }
  }
  const std::filesystem::path root(dir);
  std::vector<std::string> written;
  for (const v1::ExportedFile& file : reply.files()) {
    const std::filesystem::path path = root / file.path();
    PRUNER_RETURN_IF_ERROR(WriteFile(path, file.content()));
    written.push_back(path.string());
  }
  const std::filesystem::path manifest = root / kExportManifestName;
  PRUNER_RETURN_IF_ERROR(WriteFile(manifest, reply.manifest_json()));
  written.push_back(manifest.string());
  return written;
}

}  // namespace pruner
