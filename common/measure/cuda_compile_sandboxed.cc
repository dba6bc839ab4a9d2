#include "common/measure/cuda_compile_sandboxed.h"

#include <cstdint>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/measure/sandbox.h"

namespace pruner {
namespace {

// Reply layout: 'O', compile_ms (double), log size (uint64), log, PTX to the
// end; or 'E', status code (int32), message to the end.
template <typename T>
void Append(std::string* out, T value) {
  out->append(reinterpret_cast<const char*>(&value), sizeof(value));
}

template <typename T>
bool Take(std::string_view* in, T* value) {
  if (in->size() < sizeof(T)) return false;
  std::memcpy(value, in->data(), sizeof(T));
  in->remove_prefix(sizeof(T));
  return true;
}

}  // namespace

std::string EncodeCompiledCuda(const absl::StatusOr<CompiledCuda>& compiled) {
  std::string out;
  if (!compiled.ok()) {
    out.push_back('E');
    Append(&out, static_cast<int32_t>(compiled.status().code()));
    const auto message = compiled.status().message();
    out.append(message.data(), message.size());
    return out;
  }
  out.push_back('O');
  Append(&out, compiled->compile_ms);
  Append(&out, static_cast<uint64_t>(compiled->log.size()));
  out.append(compiled->log);
  out.append(compiled->ptx);
  return out;
}

absl::StatusOr<CompiledCuda> DecodeCompiledCuda(std::string_view bytes) {
  const absl::Status garbled = absl::InternalError("build error: garbled NVRTC reply");
  if (bytes.empty()) return garbled;
  const char tag = bytes.front();
  bytes.remove_prefix(1);
  if (tag == 'E') {
    int32_t code = 0;
    if (!Take(&bytes, &code) || code <= 0 || code > static_cast<int32_t>(absl::StatusCode::kUnauthenticated)) {
      return garbled;
    }
    return absl::Status(static_cast<absl::StatusCode>(code),
                        absl::string_view(bytes.data(), bytes.size()));
  }
  if (tag != 'O') return garbled;
  CompiledCuda compiled;
  uint64_t log_size = 0;
  if (!Take(&bytes, &compiled.compile_ms) || !Take(&bytes, &log_size) || log_size > bytes.size()) {
    return garbled;
  }
  compiled.log = std::string(bytes.substr(0, log_size));
  compiled.ptx = std::string(bytes.substr(log_size));
  return compiled;
}

absl::StatusOr<CompiledCuda> CompileCudaSandboxed(const CudaModuleSource& module,
                                                  std::string_view arch, double timeout_s) {
  PRUNER_ASSIGN_OR_RETURN(CudaArch parsed, ParseCudaArch(arch));
  // Loaded here, in the parent, so that every child finds NVRTC mapped
  // already (loading it touches no driver; compiling does).
  PRUNER_RETURN_IF_ERROR(LoadNvrtc().status());
  const std::string arch_text(arch);
  SandboxReply reply = RunInSandbox(
      [&] { return EncodeCompiledCuda(CompileCuda(module, arch_text, timeout_s)); },
      timeout_s + 1);
  if (!reply.payload.ok()) {
    const absl::Status& s = reply.payload.status();
    if (absl::IsDeadlineExceeded(s)) {
      return absl::DeadlineExceededError(
          absl::StrCat("build error: NVRTC timed out after ", timeout_s, " s"));
    }
    return absl::InternalError(absl::StrCat("build error: NVRTC child: ", s.message()));
  }
  absl::StatusOr<CompiledCuda> compiled = DecodeCompiledCuda(*reply.payload);
  if (compiled.ok()) compiled->arch = parsed;
  return compiled;
}

}  // namespace pruner
