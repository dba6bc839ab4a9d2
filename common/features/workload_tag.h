// PaCM's 10-value workload tag (../shared/specs/pruner.md §4.5), appended to every
// statement row of a task. Pruner sets each of its first nine entries when
// TVM's compute-DAG text contains a substring ("max", "min", "add",
// "Conv2dOutput", "conv2d_winograd", "DepthwiseConv2d", "dense", "softmax",
// "compute(b, i, j)"); the tenth is always 0. Our DAG text is not TVM's, so
// we set the same entries from what the text's substrings stand for:
//   0 max        a max in some stage's body or a max reduction (relu,
//                max pooling, softmax's row max)
//   1 min        a min in some stage's body
//   2 add        an element-wise add stage ("add", "bias_add")
//   3 conv2d     a conv2d or grouped conv2d stage
//   4 winograd   a winograd conv2d stage (our library has none: always 0)
//   5 depthwise  a depthwise conv2d stage
//   6 dense      a dense or matmul stage
//   7 softmax    a softmax stage
//   8 batched    a batch_matmul stage (TVM's "compute(b, i, j)")
//   9            always 0
#ifndef PRUNER_COMMON_FEATURES_WORKLOAD_TAG_H_
#define PRUNER_COMMON_FEATURES_WORKLOAD_TAG_H_

#include <array>

#include "common/ir/compute_dag.h"

namespace pruner {

inline constexpr int kWorkloadTagSize = 10;
using WorkloadTag = std::array<float, kWorkloadTagSize>;

WorkloadTag ComputeWorkloadTag(const ComputeDag& dag);

}  // namespace pruner

#endif  // PRUNER_COMMON_FEATURES_WORKLOAD_TAG_H_
