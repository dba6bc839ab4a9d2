// CanonicalText() and ToString(): one line per op, in the format described at
// ComputeDag::CanonicalText(). dag_parser.cc reads it back.
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/base/absl_compat.h"
#include "common/ir/compute_dag.h"

namespace pruner {
namespace {

void AppendQuoted(std::string_view s, std::string* out) {
  out->push_back('"');
  for (char c : s) {
    switch (c) {
      case '"': out->append("\\\""); break;
      case '\\': out->append("\\\\"); break;
      case '\n': out->append("\\n"); break;
      case '\t': out->append("\\t"); break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
          absl::StrAppendFormat(out, "\\x%02x", static_cast<unsigned char>(c));
        } else {
          out->push_back(c);
        }
    }
  }
  out->push_back('"');
}

const char* ReduceName(ReduceKind kind) { return kind == ReduceKind::kMax ? "max" : "sum"; }

// Prints ops with names chosen by the caller: positional names for the
// canonical text, the ops' own names for ToString().
class DagPrinter {
 public:
  DagPrinter(const std::vector<OpRef>& ops, bool canonical) : ops_(ops), canonical_(canonical) {
    for (int i = 0; i < static_cast<int>(ops.size()); ++i) position_of_[ops[i]->id] = i;
  }

  std::string Print() const {
    std::string out;
    for (int i = 0; i < static_cast<int>(ops_.size()); ++i) PrintOp(i, &out);
    return out;
  }

 private:
  std::string TensorName(int position) const {
    return canonical_ ? absl::StrCat("T", position) : ops_[position]->name;
  }

  std::string AxisName(const Op& op, int i) const {
    const int spatial = static_cast<int>(op.axes.size());
    if (canonical_) return i < spatial ? absl::StrCat("i", i) : absl::StrCat("r", i - spatial);
    const std::string& name = i < spatial ? op.axes[i].name : op.reduce_axes[i - spatial].name;
    return name.empty() ? absl::StrCat("ax", i) : name;
  }

  void PrintAxes(const Op& op, int first, const std::vector<Axis>& axes, std::string* out) const {
    out->push_back('[');
    for (size_t i = 0; i < axes.size(); ++i) {
      if (i > 0) out->append(", ");
      absl::StrAppend(out, AxisName(op, first + static_cast<int>(i)), "=", axes[i].extent);
    }
    out->push_back(']');
  }

  void PrintOp(int position, std::string* out) const {
    const Op& op = *ops_[position];
    absl::StrAppend(out, TensorName(position), " = ",
                    op.is_placeholder() ? "placeholder " : "compute ", ToAbsl(DTypeName(op.dtype)), " ");
    if (op.is_placeholder()) {
      absl::StrAppend(out, "[", absl::StrJoin(op.shape, ", "), "]");
    } else {
      PrintAxes(op, 0, op.axes, out);
      if (op.reduce != ReduceKind::kNone) {
        absl::StrAppend(out, " ", ReduceName(op.reduce), " ");
        PrintAxes(op, static_cast<int>(op.axes.size()), op.reduce_axes, out);
      }
    }
    if (!op.attrs.empty()) {
      out->append(" {");
      bool first = true;
      for (const auto& [key, value] : op.attrs) {
        if (!first) out->append(", ");
        first = false;
        AppendQuoted(key, out);
        out->push_back('=');
        AppendQuoted(value, out);
      }
      out->push_back('}');
    }
    if (!op.is_placeholder()) {
      out->append(" : ");
      out->append(ToString(op.body, [&](const ExprNode& n) -> std::string {
        if (n.kind == ExprKind::kVar) {
          if (n.id >= 0 && n.id < op.num_axes()) return AxisName(op, n.id);
          return absl::StrCat("v", n.id);
        }
        auto it = position_of_.find(n.id);
        return it != position_of_.end() ? TensorName(it->second) : absl::StrCat("t", n.id);
      }));
    }
    out->push_back('\n');
  }

  const std::vector<OpRef>& ops_;
  const bool canonical_;
  std::map<int, int> position_of_;
};

}  // namespace

std::string ComputeDag::CanonicalText() const { return DagPrinter(ops_, true).Print(); }

std::string ComputeDag::ToString() const { return DagPrinter(ops_, false).Print(); }

}  // namespace pruner
