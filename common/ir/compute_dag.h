// A workload: a DAG of placeholders and compute stages in topological order.
//
// A compute stage defines out[s0..sn) = body(s, r) for each point s of its
// spatial axes; with a reduction, out[s] = reduce_{r in reduce axes} body(s, r)
// starting from the reduction's identity. Inside `body`, variable i is axis i
// of the stage (spatial axes, then reduce axes), and reads refer to other
// stages by tensor id.
#ifndef PRUNER_COMMON_IR_COMPUTE_DAG_H_
#define PRUNER_COMMON_IR_COMPUTE_DAG_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/ir/dtype.h"
#include "common/ir/expr.h"

namespace pruner {

enum class OpKind : uint8_t { kPlaceholder, kCompute };
enum class ReduceKind : uint8_t { kNone, kSum, kMax };

struct Axis {
  std::string name;
  int64_t extent = 0;
};

struct Op {
  int id = -1;  // tensor id, unique within a DAG, referenced by kRead nodes
  std::string name;
  OpKind kind = OpKind::kPlaceholder;
  DType dtype = DType::kFloat32;
  std::vector<int64_t> shape;  // placeholders: given; compute: spatial extents
  std::vector<Axis> axes;          // spatial axes (compute only)
  std::vector<Axis> reduce_axes;   // reduce axes (compute only)
  ReduceKind reduce = ReduceKind::kNone;
  Expr body;                       // compute only
  // Free-form tags that sketch rules may read ("conv2d", "pad", ...). They
  // are part of the canonical form.
  std::map<std::string, std::string> attrs;

  bool is_placeholder() const { return kind == OpKind::kPlaceholder; }
  // A placeholder whose values are fixed before the kernel runs (a layer's
  // weights): lowering for CPUs may store it transposed to the order its
  // loops read it in, the layout transform done once, outside the timing
  // (TVM's layout_free_placeholders).
  bool is_layout_free() const;
  int num_axes() const { return static_cast<int>(axes.size() + reduce_axes.size()); }
  int64_t num_elements() const;
  // Variable expression for axis i (spatial first, then reduce).
  Expr axis_var(int i) const;
};
using OpRef = std::shared_ptr<const Op>;

// Op::attrs key marking a layout-free placeholder (value "1").
inline constexpr char kLayoutFreeAttr[] = "layout_free";

// Identity value of a reduction in double precision (0 for sum, -inf for max).
double ReduceIdentity(ReduceKind kind);

class ComputeDag {
 public:
  ComputeDag() = default;
  // Validates: ids unique, ops topologically ordered, every read refers to an
  // earlier op with the right rank, index expressions are integer, dtypes of
  // arithmetic match, extents are positive, at least one compute op.
  static absl::StatusOr<ComputeDag> Create(std::vector<OpRef> ops);

  const std::vector<OpRef>& ops() const { return ops_; }
  int num_ops() const { return static_cast<int>(ops_.size()); }
  const Op& op(int index) const { return *ops_[index]; }
  // Position of the op with this tensor id in ops(), or -1.
  int IndexOfTensor(int tensor_id) const;
  const Op* FindTensor(int tensor_id) const;

  // Placeholders, in order. These are the inputs of the workload.
  std::vector<int> InputIndices() const;
  // Compute ops nobody reads, in order. These are the outputs.
  std::vector<int> OutputIndices() const;
  // Op indices that read / are read by op `index` (direct edges only),
  // ascending.
  std::vector<int> Consumers(int index) const;
  std::vector<int> Producers(int index) const;

  // Floating-point operations of the whole DAG, counted as in ../shared/specs/ansor.md §1.1.
  // Per element of a compute op: each arithmetic, compare or logical node
  // whose operands have the output's dtype class (float, int or bool) counts
  // 1; reads (with their indices), vars, constants and casts count 0; a
  // select counts its condition plus its larger branch; a call counts only
  // its arguments (as TVM's FlopEstimator does, so exp/erf add nothing); a
  // reduction counts (1 combiner + body) per reduce point. An op attribute
  // "FLOP" replaces that op's whole total.
  double FlopCount() const;

  // Canonical text: tensors renamed T0, T1, ... in topological order, axes
  // named by position, every shape, dtype, attribute and the body printed.
  // Equal DAGs built in different ways print the same. One line per op:
  //   T0 = placeholder float32 [64, 128]
  //   T2 = compute float32 [i0=64, i1=32] sum [r0=128] {"op"="dense"} : (T0[i0, r0] * T1[i1, r0])
  // (the reduce clause and the attribute braces appear only when non-empty).
  std::string CanonicalText() const;
  // "<hex sha256 prefix>" of CanonicalText(): the workload key.
  std::string WorkloadKey() const;
  // Human-readable print with real names.
  std::string ToString() const;

  // Parses CanonicalText() back into a DAG (records store DAGs as text).
  // Tensor ids become positions; ToString() output parses too when every
  // name is an identifier. Errors name the line and column.
  static absl::StatusOr<ComputeDag> ParseCanonical(const std::string& text);

 private:
  std::vector<OpRef> ops_;
  // Derived in Create() so that the queries above are cheap.
  std::map<int, int> index_of_tensor_;      // tensor id -> position in ops_
  std::vector<std::vector<int>> producers_;  // ascending op indices
  std::vector<std::vector<int>> consumers_;  // ascending op indices
};

// Every read of `producer` (tensor id) inside op's body, as index vectors.
std::vector<std::vector<Expr>> ReadsOf(const Op& op, int producer_tensor);

}  // namespace pruner

#endif  // PRUNER_COMMON_IR_COMPUTE_DAG_H_
