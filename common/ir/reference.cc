#include "common/ir/reference.h"

#include <limits>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "common/base/absl_compat.h"
#include "common/base/status_macros.h"
#include "common/ir/compiled_expr.h"
#include "common/ir/winograd.h"

namespace pruner {
namespace {

using internal::CompiledExpr;
using internal::CompileExpr;
using internal::CompileOptions;
using internal::EvalState;

absl::Status CheckInputs(const ComputeDag& dag, const std::vector<Tensor>& inputs) {
  const std::vector<int> input_indices = dag.InputIndices();
  if (inputs.size() != input_indices.size()) {
    return absl::InvalidArgumentError(absl::StrCat("the DAG has ", input_indices.size(),
                                                   " inputs but ", inputs.size(),
                                                   " tensors were given"));
  }
  for (size_t k = 0; k < inputs.size(); ++k) {
    const Op& op = dag.op(input_indices[k]);
    const Tensor& t = inputs[k];
    if (t.dtype != op.dtype) {
      return absl::InvalidArgumentError(absl::StrCat("input ", k, " ('", op.name, "') has dtype ",
                                                     ToAbsl(DTypeName(t.dtype)), ", expected ",
                                                     ToAbsl(DTypeName(op.dtype))));
    }
    if (t.shape != op.shape) {
      return absl::InvalidArgumentError(absl::StrCat("input ", k, " ('", op.name, "') has shape ",
                                                     ShapeToString(t.shape), ", expected ",
                                                     ShapeToString(op.shape)));
    }
    if (static_cast<int64_t>(t.data.size()) != op.num_elements()) {
      return absl::InvalidArgumentError(absl::StrCat("input ", k, " ('", op.name, "') holds ",
                                                     t.data.size(), " values but its shape has ",
                                                     op.num_elements(), " elements"));
    }
  }
  return absl::OkStatus();
}

template <typename T>
T ReductionIdentity(ReduceKind kind) {
  if (kind != ReduceKind::kMax) return T{};
  if constexpr (std::is_same_v<T, float>) return -std::numeric_limits<float>::infinity();
  return std::numeric_limits<T>::lowest();
}

// Advances the odometer vars[0..n) over extents; false after the last point.
bool NextPoint(int64_t* vars, const int64_t* extents, int n) {
  for (int d = n - 1; d >= 0; --d) {
    if (++vars[d] < extents[d]) return true;
    vars[d] = 0;
  }
  return false;
}

// Fills `out` with op's values: out[s] = body(s), or the reduction of
// body(s, r) over every reduce point r, innermost reduce axis fastest.
template <typename T>
absl::Status RunComputeOp(const Op& op, const CompiledExpr<T>& body, Tensor* out) {
  const int spatial = static_cast<int>(op.axes.size());
  const int reduce = static_cast<int>(op.reduce_axes.size());
  std::vector<int64_t> extents;
  for (const Axis& a : op.axes) extents.push_back(a.extent);
  for (const Axis& a : op.reduce_axes) extents.push_back(a.extent);
  std::vector<int64_t> vars(extents.size(), 0);
  EvalState state;
  state.vars = vars.data();

  int64_t* const reduce_vars = vars.data() + spatial;
  const int64_t* const reduce_extents = extents.data() + spatial;
  const int64_t inner_extent = reduce > 0 ? reduce_extents[reduce - 1] : 0;
  const bool is_max = op.reduce == ReduceKind::kMax;
  float* const data = out->data.data();
  const int64_t n = op.num_elements();
  for (int64_t flat = 0; flat < n; ++flat) {
    T value;
    if (reduce == 0) {
      value = body.Eval(state);
    } else {
      value = ReductionIdentity<T>(op.reduce);
      do {
        int64_t& r = reduce_vars[reduce - 1];
        for (r = 0; r < inner_extent; ++r) {
          const T v = body.Eval(state);
          if (is_max) {
            value = value < v ? v : value;
          } else {
            value += v;
          }
        }
        r = 0;
      } while (NextPoint(reduce_vars, reduce_extents, reduce - 1));
    }
    if (state.failed()) return state.error;
    data[flat] = static_cast<float>(value);
    NextPoint(vars.data(), extents.data(), spatial);
  }
  return absl::OkStatus();
}

absl::Status RunOp(const ComputeDag& dag, int index, std::vector<Tensor>& tensors) {
  const Op& op = dag.op(index);
  CompileOptions options;
  for (int producer : dag.Producers(index)) {
    options.tensors[dag.op(producer).id] = &tensors[producer];
  }
  options.num_vars = op.num_axes();
  for (const Axis& a : op.axes) options.var_extents.push_back(a.extent);
  for (const Axis& a : op.reduce_axes) options.var_extents.push_back(a.extent);
  options.context = absl::StrCat("op '", op.name, "'");

  Tensor& out = tensors[index];
  out = Tensor::Zeros(op.shape, op.dtype);
  auto run = [&](auto tag) -> absl::Status {
    using T = decltype(tag);
    auto body = CompileExpr<T>(op.body, options);
    if (!body.ok()) return body.status();
    return RunComputeOp<T>(op, **body, &out);
  };
  if (IsFloat(op.dtype)) return run(float{});
  if (IsInt(op.dtype)) return run(int64_t{});
  return run(bool{});
}

}  // namespace

absl::StatusOr<std::vector<Tensor>> RunReferenceAll(const ComputeDag& dag,
                                                    const std::vector<Tensor>& inputs) {
  if (dag.num_ops() == 0) return absl::InvalidArgumentError("the DAG is empty");
  PRUNER_RETURN_IF_ERROR(CheckInputs(dag, inputs));
  // Sized once: compiled reads keep pointers into these tensors.
  std::vector<Tensor> tensors(dag.num_ops());
  size_t next_input = 0;
  for (int i = 0; i < dag.num_ops(); ++i) {
    if (dag.op(i).is_placeholder()) {
      tensors[i] = inputs[next_input++];
    } else if (absl::Status s = RunOp(dag, i, tensors); !s.ok()) {
      return s;
    }
  }
  return tensors;
}

absl::StatusOr<std::vector<Tensor>> RunReference(const ComputeDag& dag,
                                                 const std::vector<Tensor>& inputs) {
  PRUNER_ASSIGN_OR_RETURN(std::vector<Tensor> all, RunReferenceAll(dag, inputs));
  std::vector<Tensor> outputs;
  for (int index : dag.OutputIndices()) outputs.push_back(std::move(all[index]));
  return outputs;
}

namespace {

// The output tile m when placeholder `index` is the packed weight
// [m+2, m+2, C, K] of a Winograd convolution (read by its batched product,
// winograd.h), else 0.
int64_t WinogradPackedTile(const ComputeDag& dag, int index) {
  const Op& op = dag.op(index);
  if (op.shape.size() != 4 || op.shape[0] != op.shape[1] || !IsWinogradTile(op.shape[0] - 2)) {
    return 0;
  }
  for (int consumer : dag.Consumers(index)) {
    const auto tag = dag.op(consumer).attrs.find("op");
    if (tag != dag.op(consumer).attrs.end() && tag->second == kWinogradBgemmTag) {
      return op.shape[0] - 2;
    }
  }
  return 0;
}

}  // namespace

std::vector<Tensor> RandomInputs(const ComputeDag& dag, uint64_t seed) {
  std::vector<Tensor> inputs;
  uint64_t k = 0;
  for (int index : dag.InputIndices()) {
    // Mix the position into the seed so that inputs are not shifted copies
    // of one SplitMix64 stream.
    uint64_t z = seed + 0xd1b54a32d192ed03ULL * ++k;
    z = (z ^ (z >> 33)) * 0xff51afd7ed558ccdULL;
    z = (z ^ (z >> 33)) * 0xc4ceb9fe1a85ec53ULL;
    z ^= z >> 33;
    const Op& op = dag.op(index);
    // A Winograd-packed weight is the packing of random 3x3 weights, as in a
    // model. Random values in its place are no convolution's weight: the
    // output transform then sums large terms to small outputs, and
    // F(4x4, 3x3)'s rounding (coefficients up to 64) exceeds the checks'
    // tolerance on them although the kernel is right.
    if (const int64_t tile = WinogradPackedTile(dag, index); tile != 0) {
      const int64_t in_channels = op.shape[2], out_channels = op.shape[3];
      const Tensor oihw = RandomTensor({out_channels, in_channels, 3, 3}, z, op.dtype);
      Tensor packed;
      packed.dtype = op.dtype;
      packed.shape = op.shape;
      packed.data = WinogradPackWeights(oihw.data, out_channels, in_channels, tile);
      inputs.push_back(std::move(packed));
      continue;
    }
    inputs.push_back(RandomTensor(op.shape, z, op.dtype));
  }
  return inputs;
}

absl::StatusOr<double> EvaluateExpr(const Expr& e, const std::vector<int64_t>& var_values,
                                    const ReadFn& read) {
  if (e == nullptr) return absl::InvalidArgumentError("EvaluateExpr: null expression");
  CompileOptions options;
  options.read_fn = read ? &read : nullptr;
  options.num_vars = static_cast<int>(var_values.size());
  options.context = "EvaluateExpr";
  EvalState state;
  state.vars = var_values.data();
  auto evaluate = [&](auto tag) -> absl::StatusOr<double> {
    using T = decltype(tag);
    PRUNER_ASSIGN_OR_RETURN(auto compiled, CompileExpr<T>(e, options));
    const T value = compiled->Eval(state);
    if (state.failed()) return state.error;
    return static_cast<double>(value);
  };
  if (IsFloat(e->dtype)) return evaluate(float{});
  if (IsInt(e->dtype)) return evaluate(int64_t{});
  return evaluate(bool{});
}

}  // namespace pruner
