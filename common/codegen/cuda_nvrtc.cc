#include "common/codegen/cuda_nvrtc.h"

#include <dlfcn.h>

#include <chrono>
#include <cstdlib>
#include <future>
#include <memory>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/codegen/cuda_toolkit_paths.h"
#include "common/base/absl_compat.h"

namespace pruner {
namespace {

// The slice of nvrtc.h we use. NVRTC's C ABI has been stable since CUDA 7.
using nvrtcResult = int;
constexpr nvrtcResult kNvrtcSuccess = 0;
struct NvrtcProgramOpaque;
using nvrtcProgram = NvrtcProgramOpaque*;

struct NvrtcApi {
  NvrtcInfo info;
  const char* (*GetErrorString)(nvrtcResult) = nullptr;
  nvrtcResult (*Version)(int*, int*) = nullptr;
  nvrtcResult (*CreateProgram)(nvrtcProgram*, const char*, const char*, int, const char* const*,
                               const char* const*) = nullptr;
  nvrtcResult (*DestroyProgram)(nvrtcProgram*) = nullptr;
  nvrtcResult (*CompileProgram)(nvrtcProgram, int, const char* const*) = nullptr;
  nvrtcResult (*GetPTXSize)(nvrtcProgram, size_t*) = nullptr;
  nvrtcResult (*GetPTX)(nvrtcProgram, char*) = nullptr;
  nvrtcResult (*GetCUBINSize)(nvrtcProgram, size_t*) = nullptr;
  nvrtcResult (*GetCUBIN)(nvrtcProgram, char*) = nullptr;
  nvrtcResult (*GetProgramLogSize)(nvrtcProgram, size_t*) = nullptr;
  nvrtcResult (*GetProgramLog)(nvrtcProgram, char*) = nullptr;
};

template <typename F>
bool Resolve(void* handle, const char* symbol, F* out) {
  *out = reinterpret_cast<F>(dlsym(handle, symbol));
  return *out != nullptr;
}

absl::StatusOr<NvrtcApi> LoadApi() {
  std::vector<std::string> candidates;
  if (const char* env = std::getenv("PRUNER_NVRTC_LIBRARY"); env != nullptr && *env != '\0') {
    candidates.emplace_back(env);
  }
  for (const char* soname : {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"}) {
    candidates.emplace_back(soname);
  }
  for (const std::string& dir : CudaToolkitLibraryDirs()) {
    candidates.push_back(dir + "/libnvrtc.so");
  }
  void* handle = nullptr;
  std::string tried;
  for (const std::string& path : candidates) {
    handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle != nullptr) break;
    absl::StrAppend(&tried, tried.empty() ? "" : ", ", path);
  }
  if (handle == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat("NVRTC not found (tried ", tried,
                     "); install the CUDA toolkit or set PRUNER_NVRTC_LIBRARY"));
  }
  NvrtcApi api;
  const bool ok = Resolve(handle, "nvrtcGetErrorString", &api.GetErrorString) &&
                  Resolve(handle, "nvrtcVersion", &api.Version) &&
                  Resolve(handle, "nvrtcCreateProgram", &api.CreateProgram) &&
                  Resolve(handle, "nvrtcDestroyProgram", &api.DestroyProgram) &&
                  Resolve(handle, "nvrtcCompileProgram", &api.CompileProgram) &&
                  Resolve(handle, "nvrtcGetPTXSize", &api.GetPTXSize) &&
                  Resolve(handle, "nvrtcGetPTX", &api.GetPTX) &&
                  Resolve(handle, "nvrtcGetCUBINSize", &api.GetCUBINSize) &&
                  Resolve(handle, "nvrtcGetCUBIN", &api.GetCUBIN) &&
                  Resolve(handle, "nvrtcGetProgramLogSize", &api.GetProgramLogSize) &&
                  Resolve(handle, "nvrtcGetProgramLog", &api.GetProgramLog);
  if (!ok) {
    return absl::FailedPreconditionError(
        absl::StrCat("NVRTC not found: the loaded libnvrtc lacks ", dlerror()));
  }
  api.Version(&api.info.major, &api.info.minor);
  api.info.library = LoadedLibraryPath(reinterpret_cast<void*>(api.Version));
  // libnvrtc dlopens libnvrtc-builtins by soname, which only the loader
  // cache or LD_LIBRARY_PATH can resolve. Loading it first from libnvrtc's
  // own folder makes that later dlopen find the copy already in memory.
  const std::string dir = api.info.library.substr(0, api.info.library.rfind('/') + 1);
  const std::string builtins =
      absl::StrCat(dir, "libnvrtc-builtins.so.", api.info.major, ".", api.info.minor);
  if (dlopen(builtins.c_str(), RTLD_NOW | RTLD_GLOBAL) == nullptr) dlerror();
  return api;
}

const absl::StatusOr<NvrtcApi>& Api() {
  static const absl::StatusOr<NvrtcApi> api = LoadApi();  // C++11 thread-safe init
  return api;
}

// Frees the NVRTC program on every path out of the compile.
struct ProgramGuard {
  const NvrtcApi* api;
  nvrtcProgram program = nullptr;
  ~ProgramGuard() {
    if (program != nullptr) api->DestroyProgram(&program);
  }
};

absl::StatusOr<CompiledCuda> CompileNow(const NvrtcApi& api, const std::string& source,
                                        const CudaArch& arch) {
  const auto start = std::chrono::steady_clock::now();
  ProgramGuard guard{&api};
  nvrtcResult r =
      api.CreateProgram(&guard.program, source.c_str(), "pruner_kernels.cu", 0, nullptr, nullptr);
  if (r != kNvrtcSuccess) {
    return absl::InternalError(absl::StrCat("build error: nvrtcCreateProgram: ", api.GetErrorString(r)));
  }
  const std::string arch_option =
      absl::StrCat("--gpu-architecture=", arch.real ? arch.sm_name() : arch.compute_name());
  const char* options[] = {arch_option.c_str(), "--std=c++17", "-default-device"};
  r = api.CompileProgram(guard.program, 3, options);

  CompiledCuda out;
  out.arch = arch;
  size_t log_size = 0;
  if (api.GetProgramLogSize(guard.program, &log_size) == kNvrtcSuccess && log_size > 1) {
    out.log.resize(log_size);
    api.GetProgramLog(guard.program, out.log.data());
    out.log.resize(log_size - 1);  // drop the terminating NUL
  }
  if (r != kNvrtcSuccess) {
    return absl::InternalError(
        absl::StrCat("build error: NVRTC (", arch_option, "): ", api.GetErrorString(r), "\n", out.log));
  }
  size_t size = 0;
  if (api.GetPTXSize(guard.program, &size) == kNvrtcSuccess && size > 1) {
    out.ptx.resize(size);
    api.GetPTX(guard.program, out.ptx.data());
    out.ptx.resize(size - 1);
  }
  if (arch.real && api.GetCUBINSize(guard.program, &size) == kNvrtcSuccess && size > 0) {
    out.cubin.resize(size);
    api.GetCUBIN(guard.program, out.cubin.data());
  }
  if (out.ptx.empty() && out.cubin.empty()) {
    return absl::InternalError("build error: NVRTC produced neither PTX nor a cubin");
  }
  out.compile_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return out;
}

}  // namespace

std::string CudaArch::compute_name() const {
  std::string s = absl::StrCat("compute_", number);
  if (suffix != 0) s.push_back(suffix);
  return s;
}

std::string CudaArch::sm_name() const {
  std::string s = absl::StrCat("sm_", number);
  if (suffix != 0) s.push_back(suffix);
  return s;
}

absl::StatusOr<CudaArch> ParseCudaArch(std::string_view text) {
  CudaArch arch;
  std::string_view rest = text;
  if (rest.substr(0, 8) == "compute_") {
    rest.remove_prefix(8);
  } else if (rest.substr(0, 3) == "sm_") {
    rest.remove_prefix(3);
    arch.real = true;
  }
  std::string digits(rest);
  if (!digits.empty() && (digits.back() == 'a' || digits.back() == 'f')) {
    arch.suffix = digits.back();
    digits.pop_back();
  }
  if (digits.size() == 3 && digits[1] == '.') digits.erase(1, 1);  // "8.0" -> "80"
  if (!absl::SimpleAtoi(digits, &arch.number) || arch.number < 10 || arch.number > 999) {
    return absl::InvalidArgumentError(absl::StrCat(
        "bad CUDA architecture '", ToAbsl(text), "' (want compute_80, sm_80, sm_90a or 8.0)"));
  }
  return arch;
}

absl::StatusOr<NvrtcInfo> LoadNvrtc() {
  const absl::StatusOr<NvrtcApi>& api = Api();
  if (!api.ok()) return api.status();
  return api->info;
}

absl::StatusOr<CompiledCuda> CompileCuda(const CudaModuleSource& module, std::string_view arch_text,
                                         double timeout_s) {
  PRUNER_ASSIGN_OR_RETURN(CudaArch arch, ParseCudaArch(arch_text));
  const absl::StatusOr<NvrtcApi>& api = Api();
  if (!api.ok()) return api.status();

  // The worker thread owns copies of everything it reads, so it may outlive
  // this call when the deadline passes.
  auto task = std::make_shared<std::packaged_task<absl::StatusOr<CompiledCuda>()>>(
      [api = &*api, source = module.source, a = arch] { return CompileNow(*api, source, a); });
  std::future<absl::StatusOr<CompiledCuda>> result = task->get_future();
  std::thread([task] { (*task)(); }).detach();
  if (result.wait_for(std::chrono::duration<double>(timeout_s)) != std::future_status::ready) {
    return absl::DeadlineExceededError(
        absl::StrCat("build error: NVRTC timed out after ", timeout_s, " s"));
  }
  return result.get();
}

}  // namespace pruner
