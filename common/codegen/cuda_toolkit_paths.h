// Where a CUDA toolkit lives on this machine, found at run time: the
// CUDA_HOME / CUDA_PATH variables, the toolkit this binary was configured
// with (if any), /usr/local/cuda, and the folder of an already loaded
// libnvrtc. Internal to the CUDA codegen layer.
#ifndef PRUNER_COMMON_CODEGEN_CUDA_TOOLKIT_PATHS_H_
#define PRUNER_COMMON_CODEGEN_CUDA_TOOLKIT_PATHS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace pruner {

// Toolkit root folders to try, most specific first, without duplicates.
std::vector<std::string> CudaToolkitRoots();
// <root>/lib64 and <root>/lib for every root.
std::vector<std::string> CudaToolkitLibraryDirs();
// The file of the shared library that defines `symbol` ("" if unknown).
std::string LoadedLibraryPath(void* symbol);
// The ptxas executable: PRUNER_PTXAS, then <root>/bin/ptxas for every root,
// then the bin/ folder of the toolkit holding `nvrtc_library` (if given).
absl::StatusOr<std::string> FindPtxas(const std::string& nvrtc_library = "");

}  // namespace pruner

#endif  // PRUNER_COMMON_CODEGEN_CUDA_TOOLKIT_PATHS_H_
