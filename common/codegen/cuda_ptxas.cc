#include "common/codegen/cuda_ptxas.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"
#include "common/base/status_macros.h"
#include "common/codegen/child_process.h"
#include "common/codegen/cuda_nvrtc.h"
#include "common/codegen/cuda_toolkit_paths.h"
#include "common/base/absl_compat.h"

namespace pruner {
namespace {

// The text between the first two single quotes after `marker`, or "".
std::string QuotedAfter(std::string_view line, std::string_view marker) {
  const size_t at = line.find(marker);
  if (at == std::string_view::npos) return "";
  const size_t open = line.find('\'', at + marker.size());
  const size_t close = open == std::string_view::npos ? open : line.find('\'', open + 1);
  if (close == std::string_view::npos) return "";
  return std::string(line.substr(open + 1, close - open - 1));
}

// The integer just before `unit` in "..., 1024 bytes smem, ...", or -1.
int64_t NumberBefore(std::string_view line, std::string_view unit) {
  const size_t at = line.find(unit);
  if (at == std::string_view::npos || at == 0) return -1;
  size_t end = at;
  while (end > 0 && line[end - 1] == ' ') --end;
  size_t begin = end;
  while (begin > 0 && line[begin - 1] >= '0' && line[begin - 1] <= '9') --begin;
  int64_t v = -1;
  if (!absl::SimpleAtoi(ToAbsl(line.substr(begin, end - begin)), &v)) return -1;
  return v;
}

// A private temporary file, removed when this object goes.
class TempFile {
 public:
  explicit TempFile(const char* suffix) {
    const char* dir = std::getenv("TMPDIR");
    path_ = absl::StrCat(dir != nullptr && *dir != '\0' ? dir : "/tmp", "/pruner_ptxas_XXXXXX",
                         suffix);
    const int fd = mkstemps(path_.data(), static_cast<int>(std::strlen(suffix)));
    if (fd < 0) {
      path_.clear();
    } else {
      close(fd);
    }
  }
  ~TempFile() {
    if (!path_.empty()) unlink(path_.c_str());
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace

const KernelResources* CudaResourceReport::Find(std::string_view kernel) const {
  for (const KernelResources& k : kernels) {
    if (k.name == kernel) return &k;
  }
  return nullptr;
}

CudaResourceReport ParsePtxasOutput(std::string_view text) {
  // ptxas -v prints, per entry function:
  //   ptxas info    : Compiling entry function 'k' for 'sm_80'
  //   ptxas info    : Function properties for k
  //       0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
  //   ptxas info    : Used 10 registers, used 1 barriers, 1024 bytes smem, 360 bytes cmem[0]
  // ("used N barriers" is new in CUDA 12.x; older versions omit it).
  CudaResourceReport report;
  KernelResources* current = nullptr;
  for (absl::string_view raw : absl::StrSplit(ToAbsl(text), '\n')) {
    const std::string_view line = FromAbsl(raw);
    if (std::string name = QuotedAfter(line, "Compiling entry function"); !name.empty()) {
      if (report.gpu_name.empty()) report.gpu_name = QuotedAfter(line, "' for");
      report.kernels.push_back(KernelResources{name});
      current = &report.kernels.back();
      continue;
    }
    if (line.find("Function properties for") != std::string_view::npos) {
      // Properties of a non-entry function do not belong to the kernel.
      const size_t at = line.find("for ") + 4;
      const std::string_view name = line.substr(at);
      current = nullptr;
      for (KernelResources& k : report.kernels) {
        if (k.name == name) current = &k;
      }
      continue;
    }
    if (current == nullptr) continue;
    if (line.find("stack frame") != std::string_view::npos) {
      current->stack_bytes = std::max<int64_t>(0, NumberBefore(line, "bytes stack frame"));
      current->spill_store_bytes = std::max<int64_t>(0, NumberBefore(line, "bytes spill stores"));
      current->spill_load_bytes = std::max<int64_t>(0, NumberBefore(line, "bytes spill loads"));
    } else if (line.find("Used ") != std::string_view::npos) {
      current->registers = static_cast<int>(std::max<int64_t>(0, NumberBefore(line, "registers")));
      current->shared_bytes = std::max<int64_t>(0, NumberBefore(line, "bytes smem"));
      current->barriers = static_cast<int>(std::max<int64_t>(0, NumberBefore(line, "barriers")));
    }
  }
  return report;
}

absl::StatusOr<CudaResourceReport> RunPtxas(std::string_view ptx, std::string_view gpu_name,
                                            double timeout_s) {
  PRUNER_ASSIGN_OR_RETURN(CudaArch arch, ParseCudaArch(gpu_name));
  std::string nvrtc_library;
  if (absl::StatusOr<NvrtcInfo> nvrtc = LoadNvrtc(); nvrtc.ok()) nvrtc_library = nvrtc->library;
  absl::StatusOr<std::string> ptxas = FindPtxas(nvrtc_library);
  if (!ptxas.ok()) return ptxas.status();

  TempFile input(".ptx");
  TempFile output(".cubin");
  if (input.path().empty() || output.path().empty()) {
    return absl::InternalError("build error: cannot create a temporary file for ptxas");
  }
  {
    std::ofstream out(input.path(), std::ios::binary);
    out.write(ptx.data(), static_cast<std::streamsize>(ptx.size()));
    if (!out) return absl::InternalError("build error: cannot write the PTX for ptxas");
  }
  TempFile log(".log");
  PRUNER_ASSIGN_OR_RETURN(ProcessResult run,
                          RunProcess(
      {*ptxas, "-v", "-O3", "--gpu-name", arch.sm_name(), input.path(), "-o", output.path()},
      log.path(), absl::Seconds(timeout_s)));
  if (run.timed_out) {
    return absl::DeadlineExceededError(
        absl::StrCat("build timeout: ptxas killed after ", timeout_s, " s"));
  }
  if (run.exit_code != 0) {
    if (run.output.find("too much shared data") != std::string::npos) {
      return absl::InvalidArgumentError(
          absl::StrCat("invalid schedule: ptxas: ", run.output));
    }
    return absl::InternalError(absl::StrCat("build error: ptxas (exit ", run.exit_code,
                                            "): ", run.output));
  }
  CudaResourceReport report = ParsePtxasOutput(run.output);
  report.gpu_name = arch.sm_name();
  struct stat st {};
  if (stat(output.path().c_str(), &st) == 0) report.cubin_bytes = st.st_size;
  return report;
}

absl::Status CheckKernelResources(const CudaResourceReport& report, const CudaModuleSource& module,
                                  const DeviceProfile& device) {
  for (const CudaKernelSource& kernel : module.kernels) {
    const KernelResources* used = report.Find(kernel.name);
    if (used == nullptr) {
      return absl::InternalError(
          absl::StrCat("build error: ptxas reported nothing for kernel ", kernel.name));
    }
    const int64_t threads = kernel.threads_per_block();
    const int warp = device.warp_size > 0 ? device.warp_size : 32;
    // Registers are allocated per warp in units of 256 (cc 5.0 to 9.0).
    const int64_t per_warp = (static_cast<int64_t>(used->registers) * warp + 255) / 256 * 256;
    const int64_t block_registers = (threads + warp - 1) / warp * per_warp;
    auto invalid = [&](const std::string& what) {
      return absl::InvalidArgumentError(
          absl::StrCat("invalid schedule: kernel ", kernel.name, ": ", what));
    };
    if (device.max_registers_per_thread > 0 && used->registers > device.max_registers_per_thread) {
      return invalid(absl::StrCat(used->registers, " registers per thread, the device allows ",
                                  device.max_registers_per_thread));
    }
    if (device.registers_per_block > 0 && block_registers > device.registers_per_block) {
      return invalid(absl::StrCat(used->registers, " registers x ", threads, " threads need ",
                                  block_registers, " registers per block, the device has ",
                                  device.registers_per_block));
    }
    if (device.max_shared_memory_per_block > 0 &&
        used->shared_bytes > device.max_shared_memory_per_block) {
      return invalid(absl::StrCat(used->shared_bytes, " bytes of shared memory per block, the "
                                  "device allows ", device.max_shared_memory_per_block));
    }
  }
  return absl::OkStatus();
}

}  // namespace pruner
