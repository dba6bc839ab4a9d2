// The thin C++ wrapper over a compiled model's C API (pruner_model.h):
// header-only, C++17, the standard library only. `pruner compile` writes it
// beside the library it builds; a program includes it and links the library:
//
//   #include "pruner_model.hpp"
//   pruner::runtime::Model model(/*num_threads=*/2);     // throws on failure
//   std::vector<float> image(model.inputs()[0].elements());
//   std::vector<std::vector<float>> out = model.Run({{image.data(), model.inputs()[0].shape}});
//
//   g++ -std=c++17 app.cc -L. -l:resnet18.so -Wl,-rpath,'$ORIGIN'
//
// Every failure (a wrong shape or dtype, an index outside its table) is a
// pruner::runtime::Error carrying the runtime's message and code.
#ifndef PRUNER_MODEL_HPP_
#define PRUNER_MODEL_HPP_

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "pruner_model.h"

namespace pruner::runtime {

class Error : public std::runtime_error {
 public:
  Error(int code, const std::string& message) : std::runtime_error(message), code_(code) {}
  int code() const { return code_; }  // PRUNER_ERROR_*

 private:
  int code_;
};

struct PortInfo {
  std::string name;
  int dtype = PRUNER_FLOAT32;  // PRUNER_FLOAT32, PRUNER_INT32 or PRUNER_INT64
  std::vector<int64_t> shape;
  int64_t elements() const {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    return n;
  }
};

// An input: caller-owned, row-major data of one dtype and a shape.
struct TensorRef {
  TensorRef(const float* data, std::vector<int64_t> shape)
      : dtype(PRUNER_FLOAT32), shape(std::move(shape)), data(data) {}
  TensorRef(const int64_t* data, std::vector<int64_t> shape)
      : dtype(PRUNER_INT64), shape(std::move(shape)), data(data) {}
  TensorRef(const int32_t* data, std::vector<int64_t> shape)
      : dtype(PRUNER_INT32), shape(std::move(shape)), data(data) {}
  int dtype;
  std::vector<int64_t> shape;
  const void* data;
};

struct StepTime {
  std::string name;   // the fused group (kernels) or the node (data movement)
  int kind = 0;       // PRUNER_STEP_*
  double flops = 0;   // per run; 0 for data movement
  double seconds = 0;
};

class Model {
 public:
  // num_threads <= 0: every hardware thread.
  explicit Model(int num_threads = 0) {
    if (const int rc = pruner_model_load(num_threads, &model_); rc != PRUNER_OK) {
      throw Error(rc, pruner_model_load_error());
    }
    for (int i = 0; i < pruner_model_num_inputs(model_); ++i) {
      inputs_.push_back(Port(pruner_model_input_name(model_, i), pruner_model_input_dtype(model_, i),
                             pruner_model_input_shape(model_, i), pruner_model_input_rank(model_, i)));
    }
    for (int i = 0; i < pruner_model_num_outputs(model_); ++i) {
      outputs_.push_back(Port(pruner_model_output_name(model_, i),
                              pruner_model_output_dtype(model_, i),
                              pruner_model_output_shape(model_, i),
                              pruner_model_output_rank(model_, i)));
    }
  }
  ~Model() { pruner_model_free(model_); }
  Model(Model&& other) noexcept
      : model_(std::exchange(other.model_, nullptr)),
        inputs_(std::move(other.inputs_)),
        outputs_(std::move(other.outputs_)) {}
  Model& operator=(Model&& other) noexcept {
    std::swap(model_, other.model_);
    std::swap(inputs_, other.inputs_);
    std::swap(outputs_, other.outputs_);
    return *this;
  }
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;

  const std::vector<PortInfo>& inputs() const { return inputs_; }
  const std::vector<PortInfo>& outputs() const { return outputs_; }

  // Runs the model; the outputs (float32) in the model's order.
  std::vector<std::vector<float>> Run(const std::vector<TensorRef>& inputs) {
    return RunWith(inputs, nullptr);
  }

  // Runs the model `runs` times and returns each step's fastest time.
  std::vector<StepTime> Profile(const std::vector<TensorRef>& inputs, int runs = 10) {
    const int n = pruner_model_num_steps(model_);
    std::vector<StepTime> steps(n);
    std::vector<double> seconds(n);
    for (int i = 0; i < n; ++i) {
      steps[i] = {pruner_model_step_name(model_, i), pruner_model_step_kind(model_, i),
                  pruner_model_step_flops(model_, i), 0};
    }
    for (int r = 0; r < runs; ++r) {
      RunWith(inputs, seconds.data());
      for (int i = 0; i < n; ++i) {
        if (r == 0 || seconds[i] < steps[i].seconds) steps[i].seconds = seconds[i];
      }
    }
    return steps;
  }

 private:
  static PortInfo Port(const char* name, int dtype, const int64_t* shape, int rank) {
    return PortInfo{name, dtype, std::vector<int64_t>(shape, shape + rank)};
  }

  std::vector<std::vector<float>> RunWith(const std::vector<TensorRef>& inputs,
                                          double* step_seconds) {
    std::vector<pruner_tensor> in;
    for (const TensorRef& t : inputs) {
      in.push_back({t.dtype, static_cast<int32_t>(t.shape.size()), t.shape.data(),
                    const_cast<void*>(t.data)});
    }
    std::vector<std::vector<float>> results;
    std::vector<pruner_tensor> out;
    results.reserve(outputs_.size());
    for (const PortInfo& p : outputs_) {
      results.emplace_back(static_cast<size_t>(p.elements()));
      out.push_back({p.dtype, static_cast<int32_t>(p.shape.size()), p.shape.data(),
                     results.back().data()});
    }
    const int rc =
        step_seconds == nullptr
            ? pruner_model_run(model_, static_cast<int>(in.size()), in.data(),
                               static_cast<int>(out.size()), out.data())
            : pruner_model_run_profiled(model_, static_cast<int>(in.size()), in.data(),
                                        static_cast<int>(out.size()), out.data(), step_seconds);
    if (rc != PRUNER_OK) throw Error(rc, pruner_model_last_error(model_));
    return results;
  }

  pruner_model* model_ = nullptr;
  std::vector<PortInfo> inputs_, outputs_;
};

}  // namespace pruner::runtime

#endif  // PRUNER_MODEL_HPP_
