// A compiled model (model_compiler.h) loaded into this process through its
// C API (pruner_model.h): the thin C++ wrapper that `pruner run`, the tests
// and the model benchmark use, as a user's program would.
#ifndef PRUNER_COMMON_COMPILE_COMPILED_MODEL_H_
#define PRUNER_COMMON_COMPILE_COMPILED_MODEL_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/ir/tensor.h"

namespace pruner {

class CompiledModel {
 public:
  struct Port {
    std::string name;
    std::vector<int64_t> shape;
    DType dtype = DType::kFloat32;  // float32, or int64/int32 indices
  };
  // One step of the library's plan, timed (Profile).
  struct StepTime {
    std::string name;  // the fused group (a kernel) or the node (data movement)
    std::string kind;  // "kernel", "transpose", "copy", "gather", "strided copy"
    double flops = 0;  // per run; 0 for data movement
    double seconds = 0;
  };

  // dlopens the library (RTLD_LOCAL: models coexist; RTLD_NODELETE: its
  // thread pool's code stays mapped for the process) and loads its model
  // with `num_threads` threads (<= 0: all hardware threads).
  static absl::StatusOr<std::unique_ptr<CompiledModel>> Load(const std::string& path,
                                                             int num_threads);
  ~CompiledModel();
  CompiledModel(const CompiledModel&) = delete;
  CompiledModel& operator=(const CompiledModel&) = delete;

  const std::vector<Port>& inputs() const { return inputs_; }
  const std::vector<Port>& outputs() const { return outputs_; }

  // Inputs in the model's order; shape or count mismatches are the
  // runtime's InvalidArgument, with its message.
  // Integer inputs are Tensors of dtype int64/int32 (values held as floats,
  // as Tensor does), converted here.
  absl::StatusOr<std::vector<Tensor>> Run(const std::vector<Tensor>& inputs);

  // Runs `runs` times, timing each step; each step's fastest time, in plan
  // order.
  absl::StatusOr<std::vector<StepTime>> Profile(const std::vector<Tensor>& inputs, int runs);

 private:
  struct Api;
  CompiledModel() = default;
  absl::StatusOr<std::vector<Tensor>> RunWith(const std::vector<Tensor>& inputs,
                                              double* step_seconds);
  void* handle_ = nullptr;
  std::unique_ptr<Api> api_;
  void* model_ = nullptr;
  std::vector<Port> inputs_, outputs_;
};

}  // namespace pruner

#endif  // PRUNER_COMMON_COMPILE_COMPILED_MODEL_H_
