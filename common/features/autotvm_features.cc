#include "common/features/autotvm_features.h"

#include <algorithm>
#include <cmath>
#include <functional>

#include "absl/strings/str_cat.h"
#include "common/ir/dtype.h"
#include "common/lower/index_simplify.h"
#include "common/lower/loop_nest_walker.h"

namespace pruner {
namespace {

AutotvmAnnotation AnnotationOf(ForKind kind) {
  switch (kind) {
    case ForKind::kBlockX: return AutotvmAnnotation::kBlockX;
    case ForKind::kBlockY: return AutotvmAnnotation::kBlockY;
    case ForKind::kBlockZ: return AutotvmAnnotation::kBlockZ;
    case ForKind::kThreadX: return AutotvmAnnotation::kThreadX;
    case ForKind::kThreadY: return AutotvmAnnotation::kThreadY;
    case ForKind::kThreadZ: return AutotvmAnnotation::kThreadZ;
    case ForKind::kUnrolled: return AutotvmAnnotation::kUnrolled;
    case ForKind::kVectorized: return AutotvmAnnotation::kVectorized;
    case ForKind::kParallel: return AutotvmAnnotation::kParallel;
    case ForKind::kVThread: return AutotvmAnnotation::kVirtualThread;
    case ForKind::kSerial: break;
  }
  return AutotvmAnnotation::kSerial;
}

// TVM's ParallelLevel: blocks 2, threads (and CPU parallel loops) 1.
int ParallelLevel(AutotvmAnnotation a) {
  switch (a) {
    case AutotvmAnnotation::kBlockX:
    case AutotvmAnnotation::kBlockY:
    case AutotvmAnnotation::kBlockZ:
      return 2;
    case AutotvmAnnotation::kThreadX:
    case AutotvmAnnotation::kThreadY:
    case AutotvmAnnotation::kThreadZ:
    case AutotvmAnnotation::kParallel:
      return 1;
    default:
      return 0;
  }
}

bool Mentions(const ExprNode& e, int var) {
  if (e.kind == ExprKind::kVar) return e.id == var;
  for (const Expr& a : e.args) {
    if (a != nullptr && Mentions(*a, var)) return true;
  }
  return false;
}

// Stride of every loop variable in the row-major flattening of `indices`
// into `buffer`: its linear coefficient, else 1 where it appears in a
// non-linear term, else absent (0).
std::map<int, double> FlatStrides(const Buffer& buffer, const std::vector<Expr>& indices) {
  std::map<int, double> strides;
  std::vector<Expr> nonlinear;  // atoms (owned: the terms are temporaries)
  double row_stride = 1;
  for (int d = static_cast<int>(indices.size()) - 1; d >= 0; --d) {
    const LinearTerms terms = ToLinearTerms(indices[d]);
    for (const auto& [atom, coef] : terms.terms) {
      if (atom->kind == ExprKind::kVar) {
        strides[atom->id] += static_cast<double>(coef) * row_stride;
      } else {
        nonlinear.push_back(atom);
      }
    }
    if (d < static_cast<int>(buffer.shape.size())) {
      row_stride *= static_cast<double>(std::max<int64_t>(buffer.shape[d], 1));
    }
  }
  for (auto it = strides.begin(); it != strides.end();) {
    it = it->second == 0 ? strides.erase(it) : std::next(it);
  }
  for (const Expr& atom : nonlinear) {
    std::function<void(const ExprNode&)> mark = [&](const ExprNode& e) {
      if (e.kind == ExprKind::kVar && !strides.count(e.id)) strides[e.id] = 1;
      for (const Expr& a : e.args) {
        if (a != nullptr) mark(*a);
      }
    };
    mark(*atom);
  }
  return strides;
}

class ItervarExtractor : public LoopNestWalker {
 public:
  explicit ItervarExtractor(const Program& program) : program_(program) {}

  std::vector<AutotvmItervar> TakeRows() { return std::move(rows_); }

 protected:
  void EnterLoop(const StmtNode& loop) override {
    const AutotvmAnnotation ann = AnnotationOf(loop.for_kind);
    // TVM keeps one row per virtual thread variable however often the
    // nest re-enters it.
    if (ann == AutotvmAnnotation::kVirtualThread &&
        std::any_of(rows_.begin(), rows_.end(), [&](const AutotvmItervar& r) {
          return r.var == loop.var && r.annotation == ann;
        })) {
      skipped_.push_back(&loop);
      return;
    }
    topdown_ *= static_cast<double>(std::max<int64_t>(loop.extent, 1));
    AutotvmItervar row;
    row.var = loop.var;
    row.length = loop.extent;
    row.nest_level = static_cast<int>(stack_.size()) + 1;
    row.topdown = topdown_;
    row.annotation = ann;
    rows_.push_back(std::move(row));
    stack_.push_back(static_cast<int>(rows_.size()) - 1);
  }

  void ExitLoop(const StmtNode& loop) override {
    if (!skipped_.empty() && skipped_.back() == &loop) {
      skipped_.pop_back();
      return;
    }
    const int self = stack_.back();
    const double length = static_cast<double>(rows_[self].length);
    // A loop that moves an access multiplies the elements it touches, one
    // that does not multiplies its reuse: for this loop and all around it.
    for (const auto& [key, pattern] : rows_[self].touches) {
      const bool moves = pattern.stride != 0;
      for (int s : stack_) {
        AutotvmTouch& t = rows_[s].touches[key];
        (moves ? t.count : t.reuse) *= length;
      }
    }
    stack_.pop_back();
    if (length != 0) topdown_ /= length;
    AutotvmItervar& row = rows_[self];
    for (const auto& [key, t] : row.touches) row.bottomup = std::max(row.bottomup, t.count * t.reuse);

    // At the edge of a parallel level, the enclosing loops of the next
    // level up keep this loop's count and reuse as their base (negated:
    // "not final yet").
    const int level = ParallelLevel(row.annotation);
    if (!stack_.empty() && ParallelLevel(rows_[stack_.back()].annotation) == level + 1) {
      for (const auto& [key, t] : row.touches) {
        for (int s : stack_) {
          if (ParallelLevel(rows_[s].annotation) != level + 1) continue;
          AutotvmTouch& up = rows_[s].touches[key];
          up.thread_reuse = -t.reuse;
          up.thread_count = -t.count;
        }
      }
    }
    for (auto& [key, t] : row.touches) {
      if (t.thread_count < 0) {
        t.thread_count = t.count / -t.thread_count;
        t.thread_reuse = t.reuse / -t.thread_reuse;
      }
    }
  }

  void VisitStore(const StmtNode& store) override {
    Touch(store.buffer, store.indices);
    CountAndTouchReads(*store.value);
  }

 private:
  void Touch(int buffer_id, const std::vector<Expr>& indices) {
    const Buffer& buffer = program_.buffer(buffer_id);
    const std::string key = absl::StrCat(buffer.name, "_", access_counter_[buffer.name]++);
    const std::map<int, double> strides = FlatStrides(buffer, indices);
    for (int s : stack_) {
      AutotvmTouch t;
      auto it = strides.find(rows_[s].var);
      if (it != strides.end()) t.stride = it->second;
      rows_[s].touches[key] = t;
    }
  }

  void CountAndTouchReads(const ExprNode& e) {
    if (e.kind == ExprKind::kRead) {
      Touch(e.id, e.args);
    } else if (e.kind == ExprKind::kBinary && IsFloat(e.dtype) && !stack_.empty()) {
      AutotvmItervar& inner = rows_[stack_.back()];
      switch (e.binary_op()) {
        case BinaryOp::kAdd:
        case BinaryOp::kSub: ++inner.float_addsub; break;
        case BinaryOp::kMul: ++inner.float_mul; break;
        case BinaryOp::kDiv:
        case BinaryOp::kFloorDiv:
        case BinaryOp::kFloorMod: ++inner.float_divmod; break;
        default: break;
      }
    }
    if (e.kind == ExprKind::kRead) return;  // its indices are integer arithmetic
    for (const Expr& a : e.args) {
      if (a != nullptr) CountAndTouchReads(*a);
    }
  }

  const Program& program_;
  std::vector<AutotvmItervar> rows_;
  std::vector<int> stack_;  // rows_ indices of the open loops
  std::vector<const StmtNode*> skipped_;
  std::map<std::string, int> access_counter_;
  double topdown_ = 1;
};

int64_t MaxAutoUnroll(const Program& program) {
  int64_t best = 0;
  for (const Kernel& k : program.kernels) {
    if (k.body == nullptr) continue;
    VisitStmt(k.body, [&](const StmtNode& s) {
      if (s.kind == StmtKind::kFor) best = std::max(best, s.auto_unroll_max_step);
    });
  }
  return best;
}

// "A.local_3" -> "A": the buffer an access key belongs to, scope dropped.
std::string RawBufferName(const std::string& key) {
  std::string name = key.substr(0, key.rfind('_'));
  return name.substr(0, name.find('.'));
}

// Sorted copy of `v` with a leading 0.
std::vector<double> SortedCurve(std::vector<double> v) {
  v.insert(v.begin(), 0.0);
  std::sort(v.begin(), v.end());
  return v;
}

void SampleCurve(const std::vector<double>& xs, const std::vector<double>& ys, float* out) {
  size_t j = 0;
  for (int x = 0; x < kAutotvmCurveSamples; ++x) {
    while (j + 1 < xs.size() && xs[j + 1] <= x) ++j;
    out[2 * x] = static_cast<float>(ys[j]);
    out[2 * x + 1] = static_cast<float>(x - xs[j]);
  }
}

}  // namespace

std::vector<AutotvmItervar> ExtractAutotvmItervars(const Program& program) {
  ItervarExtractor extractor(program);
  for (const Kernel& k : program.kernels) {
    if (k.body != nullptr) extractor.Walk(*k.body);
  }
  return extractor.TakeRows();
}

float AutotvmLog(double x) {
  return static_cast<float>(x >= 0 ? std::log2(x + 1) : -std::log2(-x + 1));
}

namespace {

std::vector<float> ItervarVector(const std::vector<AutotvmItervar>& rows, int64_t auto_unroll) {
  std::vector<float> out(kAutotvmItervarWidth, 0.0f);
  const int n = std::min<int>(static_cast<int>(rows.size()), kAutotvmItervarRows);
  for (int r = 0; r < n; ++r) {
    const AutotvmItervar& row = rows[r];
    float* f = out.data() + r * kAutotvmItervarRowWidth;
    f[0] = AutotvmLog(static_cast<double>(row.length));
    f[1] = static_cast<float>(row.nest_level);
    f[2] = AutotvmLog(row.topdown);
    f[3] = AutotvmLog(row.bottomup);
    f[4 + static_cast<int>(row.annotation)] = 1;
    f[4 + kAutotvmAnnotations] = AutotvmLog(static_cast<double>(row.float_addsub));
    f[5 + kAutotvmAnnotations] = AutotvmLog(static_cast<double>(row.float_mul));
    f[6 + kAutotvmAnnotations] = AutotvmLog(static_cast<double>(row.float_divmod));
    int slot = 0;
    for (const auto& [key, t] : row.touches) {
      if (slot == kAutotvmTouchSlots) break;
      float* s = f + kAutotvmItervarHead + slot++ * kAutotvmTouchWidth;
      s[0] = AutotvmLog(t.stride);
      s[1] = AutotvmLog(-1);  // TVM never sets mod
      s[2] = AutotvmLog(t.count);
      s[3] = AutotvmLog(t.reuse);
      s[4] = AutotvmLog(t.thread_count);
      s[5] = AutotvmLog(t.thread_reuse);
    }
  }
  out.back() = static_cast<float>(auto_unroll);
  return out;
}

std::vector<float> CurveVector(const std::vector<AutotvmItervar>& rows, int64_t auto_unroll) {
  std::vector<float> out(kAutotvmCurveWidth, 0.0f);
  out.back() = static_cast<float>(auto_unroll);
  int deepest = 0;
  for (const AutotvmItervar& r : rows) deepest = std::max(deepest, r.nest_level);
  // One access key per buffer touched at the deepest level; the last wins.
  std::map<std::string, std::string> innermost;  // raw buffer name -> key
  for (const AutotvmItervar& r : rows) {
    if (r.nest_level != deepest) continue;
    for (const auto& [key, t] : r.touches) innermost[RawBufferName(key)] = key;
  }
  int b = 0;
  for (const auto& [name, key] : innermost) {
    if (b == kAutotvmCurveBuffers) break;
    std::vector<double> count, reuse, topdown;
    for (const AutotvmItervar& r : rows) {
      auto it = r.touches.find(key);
      if (it == r.touches.end()) continue;
      count.push_back(std::log2(std::max(it->second.count, 1.0)));
      reuse.push_back(std::log2(std::max(it->second.reuse, 1.0)));
      topdown.push_back(std::log2(std::max(r.topdown, 1.0)));
    }
    count = SortedCurve(std::move(count));
    reuse = SortedCurve(std::move(reuse));
    topdown = SortedCurve(std::move(topdown));
    float* f = out.data() + b++ * kAutotvmCurvePerBuffer;
    const int step = 2 * kAutotvmCurveSamples;
    SampleCurve(count, reuse, f);
    SampleCurve(reuse, count, f + step);
    SampleCurve(count, topdown, f + 2 * step);
    SampleCurve(topdown, count, f + 3 * step);
  }
  return out;
}

}  // namespace

std::vector<float> AutotvmItervarFeatures(const Program& program) {
  return ItervarVector(ExtractAutotvmItervars(program), MaxAutoUnroll(program));
}

std::vector<float> AutotvmCurveFeatures(const Program& program) {
  return CurveVector(ExtractAutotvmItervars(program), MaxAutoUnroll(program));
}

AutotvmProgramFeatures AutotvmFeatures(const Program& program) {
  const std::vector<AutotvmItervar> rows = ExtractAutotvmItervars(program);
  const int64_t auto_unroll = MaxAutoUnroll(program);
  return {ItervarVector(rows, auto_unroll), CurveVector(rows, auto_unroll)};
}

}  // namespace pruner
