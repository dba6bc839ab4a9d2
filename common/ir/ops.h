// The operator library: builders that return validated ComputeDags for the
// operators Pruner tunes, plus a string-spec entry point for the CLI and tests.
//
// Conventions shared by every builder:
// - every op is float32; placeholders come first, then compute stages, and a
//   tensor's id is its position in the DAG;
// - epilogues (bias, activation, padding, normalization) are separate
//   element-wise stages so that sketch rules can inline or fuse them;
// - each compute stage carries attrs {"op": "<kind>"} ("dense", "pad",
//   "bias_add", "relu", ...) naming its role;
// - bad arguments give InvalidArgumentError naming the operator and the
//   offending value, e.g. "conv2d: C=30 is not divisible by groups=4".
#ifndef PRUNER_COMMON_IR_OPS_H_
#define PRUNER_COMMON_IR_OPS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "common/ir/compute_dag.h"

namespace pruner {

enum class Activation : uint8_t { kNone, kRelu, kGelu };

// "none", "relu", "gelu".
std::string_view ActivationName(Activation activation);
absl::StatusOr<Activation> ParseActivation(std::string_view name);

struct DenseOptions {
  bool bias = false;
  Activation activation = Activation::kNone;
};

// out[i, j] = sum_k A[i, k] * W[j, k] with A: [batch, in_features] and
// W: [out_features, in_features] (the nn.Dense / nn.Linear layout), then
// optional "bias_add" (bias: [out_features]) and activation stages. GELU is
// 0.5 * x * (1 + erf(x / sqrt(2))).
absl::StatusOr<ComputeDag> Dense(int64_t batch, int64_t in_features, int64_t out_features,
                                 const DenseOptions& options = {});

// C[i, j] = sum_k A[i, k] * B[k, j].
absl::StatusOr<ComputeDag> Matmul(int64_t m, int64_t k, int64_t n);

// C[b, i, j] = sum_k A[b, i, k] * B[b, k, j]; with transpose_b, B is
// [batch, n, k] and read as B[b, j, k].
absl::StatusOr<ComputeDag> BatchMatmul(int64_t batch, int64_t m, int64_t k, int64_t n,
                                       bool transpose_b = false);

struct Conv2dParams {
  int64_t batch = 1;         // N
  int64_t in_channels = 0;   // C
  int64_t height = 0;        // H
  int64_t width = 0;         // W
  int64_t out_channels = 0;  // K
  int64_t kernel_h = 0;      // R
  int64_t kernel_w = 0;      // S
  int64_t stride_h = 1;
  int64_t stride_w = 1;
  int64_t pad_h = 0;
  int64_t pad_w = 0;
  int64_t dilation_h = 1;
  int64_t dilation_w = 1;
  int64_t groups = 1;
  bool bias = false;
  Activation activation = Activation::kNone;
  // NHWC instead of NCHW: X [N, H, W, C], output [N, OH, OW, K].
  bool channels_last = false;
  // Conv2dWinograd only: the output tile side m of F(m x m, 3x3), 2 or 4.
  int64_t winograd_tile = 2;
};

// (in + 2 * pad - dilation * (kernel - 1) - 1) / stride + 1.
int64_t ConvOutputSize(int64_t in, int64_t kernel, int64_t stride, int64_t pad,
                       int64_t dilation);

// 2-D convolution, NCHW input X: [N, C, H, W], weights W: [K, C/groups, R, S].
// With padding, a "pad" stage select(in bounds, X[...], 0) comes first. The
// conv stage reduces over rc (C/groups), ry (R), rx (S); when C/groups == 1
// (depthwise, groups == C) the rc axis is left out. Output:
// [N, K, ConvOutputSize(H, R, ...), ConvOutputSize(W, S, ...)], then optional
// "bias_add" (bias: [K]) and activation stages. With channels_last the input
// is X: [N, H, W, C] and the output [N, OH, OW, K] (the weights stay OIHW);
// the conv stage's tag gains "_nhwc" (e.g. "depthwise_conv2d_nhwc").
absl::StatusOr<ComputeDag> Conv2d(const Conv2dParams& params);

// Conv2d's NHWC 3x3 stride-1 convolution as Winograd F(m x m, 3x3) stages,
// m = params.winograd_tile (common/ir/winograd.h): X [N, H, W, C] and the
// packed weight "U" [m + 2, m + 2, C, K] (WinogradPackWeights of the OIHW
// weight), output
// [N, OH, OW, K], then optional "bias_add" and activation stages as in
// Conv2d. channels_last is implied; kernel, stride, dilation and groups must
// be what CheckWinogradEligible accepts.
absl::StatusOr<ComputeDag> Conv2dWinograd(const Conv2dParams& params);

enum class PoolKind : uint8_t { kMax, kAvg };

struct Pool2dParams {
  int64_t batch = 1;
  int64_t channels = 0;
  int64_t height = 0;
  int64_t width = 0;
  int64_t kernel_h = 0;
  int64_t kernel_w = 0;
  int64_t stride_h = 1;
  int64_t stride_w = 1;
  int64_t pad_h = 0;  // at most kernel / 2, as in PyTorch
  int64_t pad_w = 0;
  PoolKind kind = PoolKind::kMax;
};

// 2-D pooling over NCHW, output size ConvOutputSize(H, kernel, stride, pad, 1).
// Max pooling pads with the lowest finite float32 (-3.40282347e+38) rather
// than -inf, so generated code needs no infinity literal, and reduces with
// ReduceKind::kMax. Average pooling sums, then divides by kernel_h *
// kernel_w in a separate stage: padded zeros count (PyTorch's
// count_include_pad=True).
absl::StatusOr<ComputeDag> Pool2d(const Pool2dParams& params);

// Softmax over the last axis of X: [rows, cols], in four stages: row max,
// exp(x - max), row sum, divide.
absl::StatusOr<ComputeDag> Softmax(int64_t rows, int64_t cols);

// Layer normalization over the last axis of X: [rows, cols]: row sum, mean
// (sum * 1/cols), sum of squared deviations, rstd = 1 / sqrt(var + eps)
// (biased variance), then (x - mean) * rstd, times gamma[j] plus beta[j]
// when affine.
absl::StatusOr<ComputeDag> LayerNorm(int64_t rows, int64_t cols, double eps = 1e-5,
                                     bool affine = true);

// Element-wise C = A + B, C = A * B and Y = max(X, 0) on any shape of rank >= 1.
absl::StatusOr<ComputeDag> ElementwiseAdd(const std::vector<int64_t>& shape);
absl::StatusOr<ComputeDag> ElementwiseMul(const std::vector<int64_t>& shape);
absl::StatusOr<ComputeDag> Relu(const std::vector<int64_t>& shape);

// Builds an operator from "name:key=value,key=value", e.g.
//   "dense:M=65,K=2048,N=1024,bias=1,act=relu"
//   "conv2d:N=1,C=64,H=56,W=56,K=64,R=3,S=3,stride=1,pad=1,dilation=1,groups=1"
//   "softmax:M=128,N=1000"
//   "add:shape=4x128x768"
// OperatorUsage() lists every operator with its keys. Unknown operators,
// unknown, repeated or missing keys and malformed values are
// InvalidArgumentErrors that say what was expected.
absl::StatusOr<ComputeDag> BuildOperator(std::string_view spec);

// Names accepted by BuildOperator, sorted.
std::vector<std::string> KnownOperators();
// One line per operator: its name and keys, optional ones in brackets.
std::string OperatorUsage();

}  // namespace pruner

#endif  // PRUNER_COMMON_IR_OPS_H_
