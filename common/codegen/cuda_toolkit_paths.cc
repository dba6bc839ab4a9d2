#include "common/codegen/cuda_toolkit_paths.h"

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace pruner {
namespace {

void AddUnique(std::vector<std::string>* list, std::string value) {
  while (value.size() > 1 && value.back() == '/') value.pop_back();
  if (value.empty()) return;
  if (std::find(list->begin(), list->end(), value) == list->end()) list->push_back(value);
}

}  // namespace

std::vector<std::string> CudaToolkitRoots() {
  std::vector<std::string> roots;
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"}) {
    if (const char* v = std::getenv(var); v != nullptr) AddUnique(&roots, v);
  }
#ifdef PRUNER_CUDA_TOOLKIT_ROOT
  // The toolkit CMake found when this binary was configured.
  AddUnique(&roots, PRUNER_CUDA_TOOLKIT_ROOT);
#endif
  AddUnique(&roots, "/usr/local/cuda");
  return roots;
}

std::vector<std::string> CudaToolkitLibraryDirs() {
  std::vector<std::string> dirs;
  for (const std::string& root : CudaToolkitRoots()) {
    AddUnique(&dirs, root + "/lib64");
    AddUnique(&dirs, root + "/lib");
  }
  return dirs;
}

std::string LoadedLibraryPath(void* symbol) {
  Dl_info info{};
  if (symbol == nullptr || dladdr(symbol, &info) == 0 || info.dli_fname == nullptr) return "";
  char resolved[4096];
  if (realpath(info.dli_fname, resolved) != nullptr) return resolved;
  return info.dli_fname;
}

absl::StatusOr<std::string> FindPtxas(const std::string& nvrtc_library) {
  std::vector<std::string> candidates;
  if (const char* v = std::getenv("PRUNER_PTXAS"); v != nullptr && *v != '\0') {
    candidates.emplace_back(v);
  }
  for (const std::string& root : CudaToolkitRoots()) candidates.push_back(root + "/bin/ptxas");
  // <toolkit>/lib64/libnvrtc.so.13 -> <toolkit>/bin/ptxas
  if (!nvrtc_library.empty()) {
    const std::string dir = nvrtc_library.substr(0, nvrtc_library.rfind('/'));
    candidates.push_back(dir.substr(0, dir.rfind('/')) + "/bin/ptxas");
  }
  for (const std::string& path : candidates) {
    if (access(path.c_str(), X_OK) == 0) return path;
  }
  std::string tried;
  for (const std::string& path : candidates) absl::StrAppend(&tried, tried.empty() ? "" : ", ", path);
  return absl::FailedPreconditionError(
      absl::StrCat("ptxas not found (tried ", tried, "); set CUDA_HOME or PRUNER_PTXAS"));
}

}  // namespace pruner
