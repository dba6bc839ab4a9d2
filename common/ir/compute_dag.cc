#include "common/ir/compute_dag.h"

#include <openssl/evp.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/base/absl_compat.h"
#include "common/base/status_macros.h"

namespace pruner {

bool Op::is_layout_free() const {
  auto it = attrs.find(kLayoutFreeAttr);
  return is_placeholder() && it != attrs.end() && it->second == "1";
}
namespace {

enum class DTypeClass { kFloat, kInt, kBool };

DTypeClass ClassOf(DType t) {
  if (IsFloat(t)) return DTypeClass::kFloat;
  if (IsInt(t)) return DTypeClass::kInt;
  return DTypeClass::kBool;
}

size_t ExpectedArgs(ExprKind kind) {
  switch (kind) {
    case ExprKind::kIntImm:
    case ExprKind::kFloatImm:
    case ExprKind::kVar: return 0;
    case ExprKind::kNot:
    case ExprKind::kCall:
    case ExprKind::kCast: return 1;
    case ExprKind::kBinary:
    case ExprKind::kCompare:
    case ExprKind::kAnd:
    case ExprKind::kOr: return 2;
    case ExprKind::kSelect: return 3;
    case ExprKind::kRead: return 0;  // checked against the producer's rank
  }
  return 0;
}

const char* KindName(const ExprNode& n) {
  switch (n.kind) {
    case ExprKind::kIntImm: return "integer constant";
    case ExprKind::kFloatImm: return "float constant";
    case ExprKind::kVar: return "variable";
    case ExprKind::kRead: return "read";
    case ExprKind::kBinary: return BinaryOpName(n.binary_op());
    case ExprKind::kCompare: return CompareOpName(n.compare_op());
    case ExprKind::kAnd: return "And";
    case ExprKind::kOr: return "Or";
    case ExprKind::kNot: return "Not";
    case ExprKind::kSelect: return "Select";
    case ExprKind::kCall: return CallFnName(n.call_fn());
    case ExprKind::kCast: return "Cast";
  }
  return "?";
}

// Checks one op's body against the ops before it. Every message starts with
// "op '<name>': " so that a caller several layers up still knows the culprit.
class BodyChecker {
 public:
  BodyChecker(const std::vector<OpRef>& ops, const std::map<int, int>& index_of, int position)
      : ops_(ops), index_of_(index_of), position_(position), op_(*ops[position]) {}

  absl::Status Check(const Expr& e) const {
    if (e == nullptr) return Error("the body contains a null expression");
    const ExprNode& n = *e;
    if (n.kind != ExprKind::kRead && n.args.size() != ExpectedArgs(n.kind)) {
      return Error(absl::StrCat(KindName(n), " has ", n.args.size(), " operands, expected ",
                                ExpectedArgs(n.kind)));
    }
    for (const Expr& arg : n.args) {
      PRUNER_RETURN_IF_ERROR(Check(arg));
    }
    switch (n.kind) {
      case ExprKind::kIntImm:
        if (IsFloat(n.dtype)) return Error("an integer constant has a float dtype");
        return absl::OkStatus();
      case ExprKind::kFloatImm:
        if (!IsFloat(n.dtype)) {
          return Error(absl::StrCat("a float constant has dtype ", ToAbsl(DTypeName(n.dtype))));
        }
        return absl::OkStatus();
      case ExprKind::kVar: return CheckVar(n);
      case ExprKind::kRead: return CheckRead(n);
      case ExprKind::kBinary: {
        PRUNER_RETURN_IF_ERROR(CheckSameDType(n, n.args[0], n.args[1]));
        if (n.args[0]->dtype == DType::kBool) {
          return Error(absl::StrCat(KindName(n), " on bool operands; use And/Or/Not"));
        }
        return CheckResultDType(n, n.args[0]->dtype);
      }
      case ExprKind::kCompare:
        PRUNER_RETURN_IF_ERROR(CheckSameDType(n, n.args[0], n.args[1]));
        return CheckResultDType(n, DType::kBool);
      case ExprKind::kAnd:
      case ExprKind::kOr:
      case ExprKind::kNot:
        for (const Expr& arg : n.args) {
          if (arg->dtype != DType::kBool) {
            return Error(absl::StrCat("operand of ", KindName(n), " has dtype ",
                                      ToAbsl(DTypeName(arg->dtype)), "; logical operators need bool"));
          }
        }
        return CheckResultDType(n, DType::kBool);
      case ExprKind::kSelect:
        if (n.args[0]->dtype != DType::kBool) {
          return Error(absl::StrCat("the condition of Select has dtype ",
                                    ToAbsl(DTypeName(n.args[0]->dtype)), ", expected bool"));
        }
        PRUNER_RETURN_IF_ERROR(CheckSameDType(n, n.args[1], n.args[2]));
        return CheckResultDType(n, n.args[1]->dtype);
      case ExprKind::kCall:
        if (!IsFloat(n.args[0]->dtype)) {
          return Error(absl::StrCat(KindName(n), " needs a float operand, got ",
                                    ToAbsl(DTypeName(n.args[0]->dtype))));
        }
        return CheckResultDType(n, n.args[0]->dtype);
      case ExprKind::kCast:
        return absl::OkStatus();
    }
    return Error("unknown expression kind");
  }

  absl::Status Error(std::string_view message) const {
    return absl::InvalidArgumentError(absl::StrCat("op '", op_.name, "': ", ToAbsl(message)));
  }

 private:
  absl::Status CheckVar(const ExprNode& n) const {
    if (n.id < 0 || n.id >= op_.num_axes()) {
      return Error(absl::StrCat("variable '", n.name, "' has id ", n.id, " but the op has only ",
                                op_.num_axes(), " axes"));
    }
    if (n.dtype != DType::kInt64) {
      return Error(absl::StrCat("variable '", n.name, "' has dtype ", ToAbsl(DTypeName(n.dtype)),
                                "; axis variables are int64"));
    }
    return absl::OkStatus();
  }

  absl::Status CheckRead(const ExprNode& n) const {
    auto it = index_of_.find(n.id);
    if (it == index_of_.end()) {
      return Error(absl::StrCat("reads unknown tensor id ", n.id, " ('", n.name, "')"));
    }
    const Op& producer = *ops_[it->second];
    if (it->second == position_) return Error("reads itself");
    if (it->second > position_) {
      return Error(absl::StrCat("reads '", producer.name, "' (op ", it->second,
                                "), which is not an earlier op; ops must be in topological order"));
    }
    if (n.args.size() != producer.shape.size()) {
      return Error(absl::StrCat("reads '", producer.name, "' with ", n.args.size(),
                                " indices but '", producer.name, "' has rank ",
                                producer.shape.size()));
    }
    for (size_t i = 0; i < n.args.size(); ++i) {
      if (!IsInt(n.args[i]->dtype)) {
        return Error(absl::StrCat("index ", i, " of the read of '", producer.name,
                                  "' has dtype ", ToAbsl(DTypeName(n.args[i]->dtype)),
                                  "; indices must be integers"));
      }
    }
    if (n.dtype != producer.dtype) {
      return Error(absl::StrCat("reads '", producer.name, "' as ", ToAbsl(DTypeName(n.dtype)), " but '",
                                producer.name, "' is ", ToAbsl(DTypeName(producer.dtype))));
    }
    return absl::OkStatus();
  }

  absl::Status CheckSameDType(const ExprNode& n, const Expr& a, const Expr& b) const {
    if (a->dtype == b->dtype) return absl::OkStatus();
    return Error(absl::StrCat("dtype mismatch in ", KindName(n), ": ", ToAbsl(DTypeName(a->dtype)),
                              " vs ", ToAbsl(DTypeName(b->dtype))));
  }

  absl::Status CheckResultDType(const ExprNode& n, DType expected) const {
    if (n.dtype == expected) return absl::OkStatus();
    return Error(absl::StrCat(KindName(n), " has dtype ", ToAbsl(DTypeName(n.dtype)), ", expected ",
                              ToAbsl(DTypeName(expected))));
  }

  const std::vector<OpRef>& ops_;
  const std::map<int, int>& index_of_;
  const int position_;
  const Op& op_;
};

absl::Status CheckExtents(const std::vector<Axis>& axes, const BodyChecker& err) {
  for (const Axis& axis : axes) {
    if (axis.extent <= 0) {
      return err.Error(absl::StrCat("axis '", axis.name, "' has extent ", axis.extent,
                                    "; extents must be positive"));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckOp(const std::vector<OpRef>& ops, const std::map<int, int>& index_of,
                     int position) {
  const Op& op = *ops[position];
  BodyChecker checker(ops, index_of, position);
  if (auto it = op.attrs.find("FLOP"); it != op.attrs.end()) {
    double flop;
    if (!absl::SimpleAtod(it->second, &flop) || !std::isfinite(flop) || flop < 0) {
      return checker.Error(absl::StrCat("attribute FLOP=\"", it->second,
                                        "\" is not a non-negative number"));
    }
  }
  if (op.is_placeholder()) {
    if (op.body != nullptr || !op.axes.empty() || !op.reduce_axes.empty() ||
        op.reduce != ReduceKind::kNone) {
      return checker.Error("a placeholder has no axes, reduction or body");
    }
    for (size_t i = 0; i < op.shape.size(); ++i) {
      if (op.shape[i] <= 0) {
        return checker.Error(absl::StrCat("dimension ", i, " has extent ", op.shape[i],
                                          "; extents must be positive"));
      }
    }
    return absl::OkStatus();
  }
  PRUNER_RETURN_IF_ERROR(CheckExtents(op.axes, checker));
  PRUNER_RETURN_IF_ERROR(CheckExtents(op.reduce_axes, checker));
  bool shape_matches = op.shape.size() == op.axes.size();
  for (size_t i = 0; shape_matches && i < op.axes.size(); ++i) {
    shape_matches = op.shape[i] == op.axes[i].extent;
  }
  if (!shape_matches) {
    std::vector<int64_t> extents;
    for (const Axis& axis : op.axes) extents.push_back(axis.extent);
    return checker.Error(absl::StrCat("shape [", absl::StrJoin(op.shape, ", "),
                                      "] does not match the spatial axis extents [",
                                      absl::StrJoin(extents, ", "), "]"));
  }
  if (op.reduce_axes.empty() != (op.reduce == ReduceKind::kNone)) {
    return checker.Error(op.reduce_axes.empty()
                             ? "has a reduction kind but no reduce axes"
                             : "has reduce axes but no reduction kind");
  }
  if (op.body == nullptr) return checker.Error("a compute op needs a body");
  PRUNER_RETURN_IF_ERROR(checker.Check(op.body));
  if (op.body->dtype != op.dtype) {
    return checker.Error(absl::StrCat("the body has dtype ", ToAbsl(DTypeName(op.body->dtype)),
                                      " but the op is ", ToAbsl(DTypeName(op.dtype))));
  }
  if (op.reduce != ReduceKind::kNone && op.dtype == DType::kBool) {
    return checker.Error("reductions over bool are not supported");
  }
  return absl::OkStatus();
}

// Per-element cost of a body, as specified in the FlopCount() comment.
double BodyFlops(const ExprNode& n, DTypeClass output_class) {
  switch (n.kind) {
    case ExprKind::kIntImm:
    case ExprKind::kFloatImm:
    case ExprKind::kVar:
    case ExprKind::kRead:
      return 0;
    case ExprKind::kCast:
    case ExprKind::kCall: {
      double sum = 0;
      for (const Expr& arg : n.args) sum += BodyFlops(*arg, output_class);
      return sum;
    }
    case ExprKind::kSelect:
      return BodyFlops(*n.args[0], output_class) +
             std::max(BodyFlops(*n.args[1], output_class), BodyFlops(*n.args[2], output_class));
    case ExprKind::kBinary:
    case ExprKind::kCompare:
    case ExprKind::kAnd:
    case ExprKind::kOr:
    case ExprKind::kNot: {
      double sum = ClassOf(n.args[0]->dtype) == output_class ? 1 : 0;
      for (const Expr& arg : n.args) sum += BodyFlops(*arg, output_class);
      return sum;
    }
  }
  return 0;
}

}  // namespace

int64_t Op::num_elements() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

Expr Op::axis_var(int i) const {
  const int spatial = static_cast<int>(axes.size());
  const Axis& axis = i < spatial ? axes[i] : reduce_axes[i - spatial];
  return Var(i, axis.name, DType::kInt64);
}

double ReduceIdentity(ReduceKind kind) {
  return kind == ReduceKind::kMax ? -std::numeric_limits<double>::infinity() : 0.0;
}

absl::StatusOr<ComputeDag> ComputeDag::Create(std::vector<OpRef> ops) {
  if (ops.empty()) return absl::InvalidArgumentError("a DAG needs at least one op");
  ComputeDag dag;
  bool has_compute = false;
  for (int i = 0; i < static_cast<int>(ops.size()); ++i) {
    if (ops[i] == nullptr) return absl::InvalidArgumentError(absl::StrCat("op #", i, " is null"));
    const Op& op = *ops[i];
    if (op.name.empty()) {
      return absl::InvalidArgumentError(absl::StrCat("op #", i, " has an empty name"));
    }
    if (op.id < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("op '", op.name, "': tensor id ", op.id, " is negative"));
    }
    auto [it, inserted] = dag.index_of_tensor_.emplace(op.id, i);
    if (!inserted) {
      return absl::InvalidArgumentError(absl::StrCat("tensor id ", op.id, " is used by both '",
                                                     ops[it->second]->name, "' and '", op.name,
                                                     "'"));
    }
    has_compute |= !op.is_placeholder();
  }
  if (!has_compute) return absl::InvalidArgumentError("a DAG needs at least one compute op");
  for (int i = 0; i < static_cast<int>(ops.size()); ++i) {
    PRUNER_RETURN_IF_ERROR(CheckOp(ops, dag.index_of_tensor_, i));
  }

  dag.producers_.resize(ops.size());
  dag.consumers_.resize(ops.size());
  for (int i = 0; i < static_cast<int>(ops.size()); ++i) {
    if (ops[i]->body == nullptr) continue;
    std::set<int> producers;
    for (int tensor : ReadTensors(ops[i]->body)) producers.insert(dag.index_of_tensor_[tensor]);
    for (int p : producers) {
      dag.producers_[i].push_back(p);
      dag.consumers_[p].push_back(i);  // i ascends, so each list stays sorted
    }
  }
  dag.ops_ = std::move(ops);
  return dag;
}

int ComputeDag::IndexOfTensor(int tensor_id) const {
  auto it = index_of_tensor_.find(tensor_id);
  return it == index_of_tensor_.end() ? -1 : it->second;
}

const Op* ComputeDag::FindTensor(int tensor_id) const {
  const int index = IndexOfTensor(tensor_id);
  return index < 0 ? nullptr : ops_[index].get();
}

std::vector<int> ComputeDag::InputIndices() const {
  std::vector<int> result;
  for (int i = 0; i < num_ops(); ++i) {
    if (ops_[i]->is_placeholder()) result.push_back(i);
  }
  return result;
}

std::vector<int> ComputeDag::OutputIndices() const {
  std::vector<int> result;
  for (int i = 0; i < num_ops(); ++i) {
    if (!ops_[i]->is_placeholder() && consumers_[i].empty()) result.push_back(i);
  }
  return result;
}

std::vector<int> ComputeDag::Consumers(int index) const { return consumers_[index]; }

std::vector<int> ComputeDag::Producers(int index) const { return producers_[index]; }

double ComputeDag::FlopCount() const {
  double total = 0;
  for (const OpRef& op : ops_) {
    if (op->is_placeholder()) continue;
    if (auto it = op->attrs.find("FLOP"); it != op->attrs.end()) {
      double flop;
      if (!absl::SimpleAtod(it->second, &flop)) return -1;  // Create() rules this out
      total += flop;
      continue;
    }
    double per_element = BodyFlops(*op->body, ClassOf(op->dtype));
    if (op->reduce != ReduceKind::kNone) {
      double reduce_points = 1;
      for (const Axis& axis : op->reduce_axes) reduce_points *= static_cast<double>(axis.extent);
      per_element = (1 + per_element) * reduce_points;
    }
    total += static_cast<double>(op->num_elements()) * per_element;
  }
  return total;
}

std::string ComputeDag::WorkloadKey() const {
  const std::string text = CanonicalText();
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_Digest(text.data(), text.size(), digest, &length, EVP_sha256(), nullptr);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string key;
  for (unsigned int i = 0; i < 16 && i < length; ++i) {
    key.push_back(kHex[digest[i] >> 4]);
    key.push_back(kHex[digest[i] & 15]);
  }
  return key;
}

std::vector<std::vector<Expr>> ReadsOf(const Op& op, int producer_tensor) {
  std::vector<std::vector<Expr>> reads;
  if (op.body == nullptr) return reads;
  VisitExpr(op.body, [&](const ExprNode& n) {
    if (n.kind == ExprKind::kRead && n.id == producer_tensor) reads.push_back(n.args);
  });
  return reads;
}

}  // namespace pruner
