#include "common/codegen/cuda_runner.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"

namespace pruner {
namespace {

// Frees the device buffers on every path out of RunCudaModule.
struct DeviceBuffers {
  CudaDevice& device;
  std::vector<uint64_t> ptrs;  // per program buffer; 0 for non-global ones
  ~DeviceBuffers() {
    for (uint64_t p : ptrs) {
      if (p != 0) device.Free(p).IgnoreError();
    }
  }
};

}  // namespace

absl::StatusOr<CudaRunResult> RunCudaModule(CudaDevice& device, const Program& program,
                                            const CudaModuleSource& module,
                                            const std::string& image,
                                            const std::vector<Tensor>& inputs,
                                            int timing_repeat) {
  if (inputs.size() != program.inputs.size()) {
    return absl::InvalidArgumentError(absl::StrCat("RunCudaModule: ", inputs.size(),
                                                   " inputs for ", program.inputs.size()));
  }
  DeviceBuffers buffers{device, std::vector<uint64_t>(program.buffers.size(), 0)};
  for (const Buffer& b : program.buffers) {
    if (b.scope != MemScope::kGlobal) continue;
    PRUNER_ASSIGN_OR_RETURN(uint64_t ptr, device.Alloc(static_cast<size_t>(b.bytes())));
    buffers.ptrs[b.id] = ptr;
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Buffer& b = program.buffer(program.inputs[i]);
    if (inputs[i].num_elements() != b.num_elements()) {
      return absl::InvalidArgumentError(absl::StrCat("input ", b.name, " has ",
                                                     inputs[i].num_elements(), " elements, want ",
                                                     b.num_elements()));
    }
    if (absl::Status st = device.CopyToDevice(buffers.ptrs[b.id], inputs[i].data.data(),
                                              static_cast<size_t>(b.bytes()));
        !st.ok()) {
      return st;
    }
  }
  PRUNER_ASSIGN_OR_RETURN(std::unique_ptr<CudaDevice::Module> loaded, device.LoadModule(image));
  std::vector<CudaFunction> functions;
  std::vector<std::vector<uint64_t>> args;
  for (const CudaKernelSource& k : module.kernels) {
    PRUNER_ASSIGN_OR_RETURN(CudaFunction f, loaded->Function(k.name));
    functions.push_back(f);
    args.emplace_back();
    for (int id : k.params) args.back().push_back(buffers.ptrs[id]);
  }
  CudaRunResult result;
  for (size_t k = 0; k < functions.size(); ++k) {
    const CudaKernelSource& src = module.kernels[k];
    if (absl::Status st = device.Launch(functions[k], src.grid, src.block, args[k]); !st.ok()) {
      return absl::Status(st.code(), absl::StrCat("kernel ", src.name, ": ", st.message()));
    }
  }
  for (int id : program.outputs) {
    const Buffer& b = program.buffer(id);
    Tensor out = Tensor::Zeros(b.shape);
    if (absl::Status st = device.CopyToHost(out.data.data(), buffers.ptrs[id],
                                            static_cast<size_t>(b.bytes()));
        !st.ok()) {
      return st;
    }
    result.outputs.push_back(std::move(out));
  }
  for (size_t k = 0; timing_repeat > 0 && k < functions.size(); ++k) {
    const CudaKernelSource& src = module.kernels[k];
    PRUNER_ASSIGN_OR_RETURN(double ms,
                            device.TimeLaunches(functions[k], src.grid, src.block, args[k], timing_repeat));
    result.ms_per_run += ms;
  }
  return result;
}

}  // namespace pruner
