#include "common/compile/compiled_model.h"

#include <dlfcn.h>

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/codegen/pruner_model.h"

namespace pruner {

struct CompiledModel::Api {
  decltype(&pruner_model_load) load = nullptr;
  decltype(&pruner_model_load_error) load_error = nullptr;
  decltype(&pruner_model_free) free = nullptr;
  decltype(&pruner_model_num_inputs) num_inputs = nullptr;
  decltype(&pruner_model_num_outputs) num_outputs = nullptr;
  decltype(&pruner_model_input_name) input_name = nullptr;
  decltype(&pruner_model_output_name) output_name = nullptr;
  decltype(&pruner_model_input_rank) input_rank = nullptr;
  decltype(&pruner_model_output_rank) output_rank = nullptr;
  decltype(&pruner_model_input_shape) input_shape = nullptr;
  decltype(&pruner_model_output_shape) output_shape = nullptr;
  decltype(&pruner_model_input_dtype) input_dtype = nullptr;
  decltype(&pruner_model_num_steps) num_steps = nullptr;
  decltype(&pruner_model_step_name) step_name = nullptr;
  decltype(&pruner_model_step_kind) step_kind = nullptr;
  decltype(&pruner_model_step_flops) step_flops = nullptr;
  decltype(&pruner_model_run_profiled) run_profiled = nullptr;
  decltype(&pruner_model_run) run = nullptr;
  decltype(&pruner_model_last_error) last_error = nullptr;
};

namespace {

template <typename Fn>
bool Bind(void* handle, const char* name, Fn* fn) {
  *fn = reinterpret_cast<Fn>(dlsym(handle, name));
  return *fn != nullptr;
}

}  // namespace

absl::StatusOr<std::unique_ptr<CompiledModel>> CompiledModel::Load(const std::string& path,
                                                                   int num_threads) {
  std::unique_ptr<CompiledModel> m(new CompiledModel);
  // RTLD_NODELETE: the library's thread pool outlives any one model, so its
  // code must stay mapped after dlclose.
  m->handle_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  if (m->handle_ == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("cannot load '", path, "': ", dlerror()));
  }
  m->api_ = std::make_unique<Api>();
  Api& a = *m->api_;
  if (!Bind(m->handle_, "pruner_model_load", &a.load) ||
      !Bind(m->handle_, "pruner_model_load_error", &a.load_error) ||
      !Bind(m->handle_, "pruner_model_free", &a.free) ||
      !Bind(m->handle_, "pruner_model_num_inputs", &a.num_inputs) ||
      !Bind(m->handle_, "pruner_model_num_outputs", &a.num_outputs) ||
      !Bind(m->handle_, "pruner_model_input_name", &a.input_name) ||
      !Bind(m->handle_, "pruner_model_output_name", &a.output_name) ||
      !Bind(m->handle_, "pruner_model_input_rank", &a.input_rank) ||
      !Bind(m->handle_, "pruner_model_output_rank", &a.output_rank) ||
      !Bind(m->handle_, "pruner_model_input_shape", &a.input_shape) ||
      !Bind(m->handle_, "pruner_model_output_shape", &a.output_shape) ||
      !Bind(m->handle_, "pruner_model_input_dtype", &a.input_dtype) ||
      !Bind(m->handle_, "pruner_model_num_steps", &a.num_steps) ||
      !Bind(m->handle_, "pruner_model_step_name", &a.step_name) ||
      !Bind(m->handle_, "pruner_model_step_kind", &a.step_kind) ||
      !Bind(m->handle_, "pruner_model_step_flops", &a.step_flops) ||
      !Bind(m->handle_, "pruner_model_run_profiled", &a.run_profiled) ||
      !Bind(m->handle_, "pruner_model_run", &a.run) ||
      !Bind(m->handle_, "pruner_model_last_error", &a.last_error)) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", path, "' is not a compiled model (it lacks the pruner_model C API)"));
  }
  pruner_model* model = nullptr;
  if (a.load(num_threads, &model) != PRUNER_OK) {
    return absl::InvalidArgumentError(absl::StrCat("'", path, "': ", a.load_error()));
  }
  m->model_ = model;
  for (int i = 0; i < a.num_inputs(model); ++i) {
    const int64_t* s = a.input_shape(model, i);
    const int dtype = a.input_dtype(model, i);
    m->inputs_.push_back({a.input_name(model, i),
                          std::vector<int64_t>(s, s + a.input_rank(model, i)),
                          dtype == PRUNER_INT64   ? DType::kInt64
                          : dtype == PRUNER_INT32 ? DType::kInt32
                                                  : DType::kFloat32});
  }
  for (int i = 0; i < a.num_outputs(model); ++i) {
    const int64_t* s = a.output_shape(model, i);
    m->outputs_.push_back(
        {a.output_name(model, i), std::vector<int64_t>(s, s + a.output_rank(model, i))});
  }
  return m;
}

CompiledModel::~CompiledModel() {
  if (model_ != nullptr) api_->free(static_cast<pruner_model*>(model_));
  if (handle_ != nullptr) dlclose(handle_);
}

absl::StatusOr<std::vector<Tensor>> CompiledModel::Run(const std::vector<Tensor>& inputs) {
  return RunWith(inputs, nullptr);
}

absl::StatusOr<std::vector<CompiledModel::StepTime>> CompiledModel::Profile(
    const std::vector<Tensor>& inputs, int runs) {
  pruner_model* model = static_cast<pruner_model*>(model_);
  const int n = api_->num_steps(model);
  std::vector<StepTime> steps(n);
  for (int i = 0; i < n; ++i) {
    const int kind = api_->step_kind(model, i);
    steps[i].name = api_->step_name(model, i);
    steps[i].kind = kind == PRUNER_STEP_KERNEL         ? "kernel"
                    : kind == PRUNER_STEP_TRANSPOSE    ? "transpose"
                    : kind == PRUNER_STEP_GATHER       ? "gather"
                    : kind == PRUNER_STEP_STRIDED_COPY ? "strided copy"
                                                       : "copy";
    steps[i].flops = api_->step_flops(model, i);
  }
  std::vector<double> seconds(n);
  for (int r = 0; r < std::max(runs, 1); ++r) {
    PRUNER_ASSIGN_OR_RETURN(std::vector<Tensor> ignored, RunWith(inputs, seconds.data()));
    for (int i = 0; i < n; ++i) {
      if (r == 0 || seconds[i] < steps[i].seconds) steps[i].seconds = seconds[i];
    }
  }
  return steps;
}

absl::StatusOr<std::vector<Tensor>> CompiledModel::RunWith(const std::vector<Tensor>& inputs,
                                                           double* step_seconds) {
  std::vector<pruner_tensor> in(inputs.size()), out(outputs_.size());
  // Integer inputs: the Tensor's exact float values, converted.
  std::vector<std::vector<int64_t>> int64_data(inputs.size());
  std::vector<std::vector<int32_t>> int32_data(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Tensor& t = inputs[i];
    void* data = const_cast<float*>(t.data.data());
    int32_t dtype = 0;
    if (t.dtype == DType::kFloat32) {
      dtype = PRUNER_FLOAT32;
    } else if (t.dtype == DType::kInt64) {
      dtype = PRUNER_INT64;
      int64_data[i].assign(t.data.begin(), t.data.end());
      data = int64_data[i].data();
    } else if (t.dtype == DType::kInt32) {
      dtype = PRUNER_INT32;
      int32_data[i].assign(t.data.begin(), t.data.end());
      data = int32_data[i].data();
    }
    in[i] = {dtype, static_cast<int32_t>(t.shape.size()), t.shape.data(), data};
  }
  std::vector<Tensor> results(outputs_.size());
  for (size_t i = 0; i < outputs_.size(); ++i) {
    results[i] = Tensor::Zeros(outputs_[i].shape);
    out[i] = {PRUNER_FLOAT32, static_cast<int32_t>(results[i].shape.size()),
              results[i].shape.data(), results[i].data.data()};
  }
  pruner_model* model = static_cast<pruner_model*>(model_);
  const int rc =
      step_seconds == nullptr
          ? api_->run(model, static_cast<int>(in.size()), in.data(), static_cast<int>(out.size()),
                      out.data())
          : api_->run_profiled(model, static_cast<int>(in.size()), in.data(),
                               static_cast<int>(out.size()), out.data(), step_seconds);
  if (rc == PRUNER_ERROR_INVALID_ARGUMENT) {
    return absl::InvalidArgumentError(api_->last_error(model));
  }
  if (rc != PRUNER_OK) return absl::InternalError(api_->last_error(model));
  return results;
}

}  // namespace pruner
