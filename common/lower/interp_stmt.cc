#include "common/lower/interp_stmt.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "absl/container/inlined_vector.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/ir/scalar_ops.h"

namespace pruner::interp_internal {

absl::Status Exec::RunBlock(RunCtx& rc) const {
  for (ThreadCtx& t : rc.threads) {
    PRUNER_RETURN_IF_ERROR(Run(rc, t));
  }
  return absl::OkStatus();
}

absl::Status RunAll(const Exec& e, RunCtx& rc) {
  if (e.has_barrier()) return e.RunBlock(rc);
  for (ThreadCtx& t : rc.threads) {
    PRUNER_RETURN_IF_ERROR(e.Run(rc, t));
  }
  return absl::OkStatus();
}

namespace {

// Newly allocated storage reads as NaN, so a value nobody wrote shows up.
constexpr float kUnwritten = std::numeric_limits<float>::quiet_NaN();

bool AnyBarrier(const std::vector<ExecPtr>& children) {
  for (const ExecPtr& c : children) {
    if (c->has_barrier()) return true;
  }
  return false;
}

class SeqExec : public Exec {
 public:
  explicit SeqExec(std::vector<ExecPtr> children)
      : Exec(AnyBarrier(children)), children_(std::move(children)) {}
  absl::Status Run(RunCtx& rc, ThreadCtx& t) const override {
    for (const ExecPtr& c : children_) {
      PRUNER_RETURN_IF_ERROR(c->Run(rc, t));
    }
    return absl::OkStatus();
  }
  absl::Status RunBlock(RunCtx& rc) const override {
    for (const ExecPtr& c : children_) {
      PRUNER_RETURN_IF_ERROR(RunAll(*c, rc));
    }
    return absl::OkStatus();
  }

 private:
  const std::vector<ExecPtr> children_;
};

class LoopExec : public Exec {
 public:
  LoopExec(int var, int64_t extent, ExecPtr body)
      : Exec(body->has_barrier()), var_(var), extent_(extent), body_(std::move(body)) {}
  absl::Status Run(RunCtx& rc, ThreadCtx& t) const override {
    for (int64_t i = 0; i < extent_; ++i) {
      t.vars[var_] = i;
      PRUNER_RETURN_IF_ERROR(body_->Run(rc, t));
    }
    return absl::OkStatus();
  }
  absl::Status RunBlock(RunCtx& rc) const override {
    for (int64_t i = 0; i < extent_; ++i) {
      for (ThreadCtx& t : rc.threads) t.vars[var_] = i;
      PRUNER_RETURN_IF_ERROR(body_->RunBlock(rc));
    }
    return absl::OkStatus();
  }

 private:
  const int var_;
  const int64_t extent_;
  const ExecPtr body_;
};

// A blockIdx/threadIdx binding: the variable is the hardware index.
class BindExec : public Exec {
 public:
  BindExec(int var, int64_t extent, bool is_block, int dim, ExecPtr body)
      : Exec(body->has_barrier()),
        var_(var),
        extent_(extent),
        is_block_(is_block),
        dim_(dim),
        body_(std::move(body)) {}
  absl::Status Run(RunCtx& rc, ThreadCtx& t) const override {
    const int64_t index = is_block_ ? t.bid[dim_] : t.tid[dim_];
    if (index >= extent_) return absl::OkStatus();
    t.vars[var_] = index;
    return body_->Run(rc, t);
  }
  absl::Status RunBlock(RunCtx& rc) const override {
    for (ThreadCtx& t : rc.threads) {
      const int64_t index = is_block_ ? t.bid[dim_] : t.tid[dim_];
      if (index >= extent_) {
        return absl::InvalidArgumentError(absl::StrCat(
            "a thread binding of extent ", extent_,
            " skips some threads of the block around a barrier (divergent barrier)"));
      }
      t.vars[var_] = index;
    }
    return body_->RunBlock(rc);
  }

 private:
  const int var_;
  const int64_t extent_;
  const bool is_block_;
  const int dim_;
  const ExecPtr body_;
};

class IfExec : public Exec {
 public:
  IfExec(IntScalar cond, ExecPtr then_body, ExecPtr else_body)
      : Exec(then_body->has_barrier() || (else_body != nullptr && else_body->has_barrier())),
        cond_(std::move(cond)),
        then_(std::move(then_body)),
        else_(std::move(else_body)) {}
  absl::Status Run(RunCtx& rc, ThreadCtx& t) const override {
    int64_t c = 0;
    if (!cond_.Eval(t.vars, t.bufs, &rc.scratch, &rc.error, &c)) {
      return absl::InvalidArgumentError(rc.error);
    }
    if (c != 0) return then_->Run(rc, t);
    return else_ != nullptr ? else_->Run(rc, t) : absl::OkStatus();
  }
  absl::Status RunBlock(RunCtx& rc) const override {
    int64_t first = 0;
    for (size_t i = 0; i < rc.threads.size(); ++i) {
      int64_t c = 0;
      if (!cond_.Eval(rc.threads[i].vars, rc.threads[i].bufs, &rc.scratch, &rc.error, &c)) {
        return absl::InvalidArgumentError(rc.error);
      }
      if (i == 0) first = c != 0;
      if ((c != 0) != (first != 0)) {
        return absl::InvalidArgumentError(
            "a condition around a barrier differs between threads (divergent barrier)");
      }
    }
    if (first != 0) return then_->RunBlock(rc);
    return else_ != nullptr ? else_->RunBlock(rc) : absl::OkStatus();
  }

 private:
  const IntScalar cond_;
  const ExecPtr then_, else_;
};

class AllocExec : public Exec {
 public:
  AllocExec(int buffer, int64_t elements, bool per_block, ExecPtr body)
      : Exec(body->has_barrier()),
        buffer_(buffer),
        elements_(elements),
        per_block_(per_block),
        body_(std::move(body)) {}
  absl::Status Run(RunCtx& rc, ThreadCtx& t) const override {
    std::fill(t.bufs[buffer_], t.bufs[buffer_] + elements_, kUnwritten);
    return body_->Run(rc, t);
  }
  absl::Status RunBlock(RunCtx& rc) const override {
    for (ThreadCtx& t : rc.threads) {
      std::fill(t.bufs[buffer_], t.bufs[buffer_] + elements_, kUnwritten);
      if (per_block_) break;  // one shared copy per block
    }
    return body_->RunBlock(rc);
  }

 private:
  const int buffer_;
  const int64_t elements_;
  const bool per_block_;
  const ExecPtr body_;
};

class BarrierExec : public Exec {
 public:
  BarrierExec() : Exec(true) {}
  absl::Status Run(RunCtx&, ThreadCtx&) const override {
    return absl::InvalidArgumentError("a barrier was reached by a single thread");
  }
  absl::Status RunBlock(RunCtx&) const override { return absl::OkStatus(); }
};

class StoreNestExec : public Exec {
 public:
  explicit StoreNestExec(std::unique_ptr<StoreNestPlan> plan)
      : Exec(false), p_(std::move(plan)) {}

  absl::Status Run(RunCtx& rc, ThreadCtx& t) const override {
    const size_t m = p_->vars.size();
    absl::InlinedVector<int64_t, 8> lens(m);
    for (size_t k = 1; k < m; ++k) {
      t.vars[p_->vars[k]] = 0;
      lens[k] = p_->extents[k];
    }
    Frame f;
    f.vars = t.vars;
    f.bufs = t.bufs;
    f.chunk.values = &p_->values;
    f.chunk.lens = lens.data();
    f.scratch = &rc.scratch;
    f.error = &rc.error;
    if (m == 0) return RunChunk(f, 1);
    const int64_t e0 = p_->extents[0];
    for (int64_t start = 0; start < e0; start += p_->chunk0) {
      t.vars[p_->vars[0]] = start;
      lens[0] = std::min(p_->chunk0, e0 - start);
      if (absl::Status st = RunChunk(f, static_cast<int>(lens[0] * p_->inner_points));
          !st.ok()) {
        return st;
      }
    }
    return absl::OkStatus();
  }

 private:
  absl::Status Error(const Frame& f) const {
    std::string message = absl::StrCat(p_->context, ": ", *f.error);
    if (absl::StrContains(*f.error, "out-of-bounds")) return absl::OutOfRangeError(message);
    return absl::InvalidArgumentError(message);
  }

  absl::Status RunChunk(Frame f, int n) const {
    f.n = n;
    f.act = nullptr;
    // Guards narrow the points to the active ones, alternating between two
    // position arrays.
    ScratchArray act_a(f.scratch), act_b(f.scratch);
    int32_t* acts[2] = {act_a.as<int32_t>(), act_b.as<int32_t>()};
    for (size_t i = 0; i < p_->masks.size(); ++i) {
      ScratchArray cond_buf(f.scratch);
      int64_t* c = cond_buf.as<int64_t>();
      if (!p_->masks[i]->EvalI(f, c)) return Error(f);
      int32_t* next = acts[i % 2];
      int count = 0;
      for (int q = 0; q < f.n; ++q) {
        if (c[q] != 0) next[count++] = f.pos(q);
      }
      if (count == f.n) continue;  // all points stay active
      f.n = count;
      f.act = next;
      if (count == 0) return absl::OkStatus();
    }
    ScratchArray offs_buf(f.scratch), value_buf(f.scratch);
    int64_t* offs = offs_buf.as<int64_t>();
    float* values = value_buf.as<float>();
    if (!p_->dst->Offsets(f, /*is_write=*/true, offs)) return Error(f);
    float* data = f.bufs[p_->dst->buffer()];
    switch (p_->mode) {
      case StoreMode::kAssign:
        if (!p_->value->EvalF(f, values)) return Error(f);
        for (int q = 0; q < f.n; ++q) data[offs[q]] = values[q];
        return absl::OkStatus();
      case StoreMode::kCombine:
        if (!p_->value->EvalF(f, values)) return Error(f);
        switch (p_->combine) {
          case BinaryOp::kAdd:
            for (int q = 0; q < f.n; ++q) data[offs[q]] += values[q];
            break;
          case BinaryOp::kMul:
            for (int q = 0; q < f.n; ++q) data[offs[q]] *= values[q];
            break;
          default:
            for (int q = 0; q < f.n; ++q) {
              data[offs[q]] = scalar::ApplyFloat(p_->combine, data[offs[q]], values[q]);
            }
            break;
        }
        return absl::OkStatus();
      case StoreMode::kPointwise:
        for (int q = 0; q < f.n; ++q) {
          Frame one = f;
          const int32_t position = f.pos(q);
          one.n = 1;
          one.act = &position;
          float v = 0;
          if (!p_->value->EvalF(one, &v)) return Error(f);
          data[offs[q]] = v;
        }
        return absl::OkStatus();
    }
    return absl::OkStatus();
  }

  const std::unique_ptr<StoreNestPlan> p_;
};

}  // namespace

ExecPtr MakeSeqExec(std::vector<ExecPtr> children) {
  return ExecPtr(new SeqExec(std::move(children)));
}

ExecPtr MakeLoopExec(int var, int64_t extent, ExecPtr body) {
  return ExecPtr(new LoopExec(var, extent, std::move(body)));
}

ExecPtr MakeBindExec(int var, int64_t extent, bool is_block, int dim, ExecPtr body) {
  return ExecPtr(new BindExec(var, extent, is_block, dim, std::move(body)));
}

ExecPtr MakeIfExec(IntScalar cond, ExecPtr then_body, ExecPtr else_body) {
  return ExecPtr(new IfExec(std::move(cond), std::move(then_body), std::move(else_body)));
}

ExecPtr MakeAllocExec(int buffer, int64_t elements, bool per_block, ExecPtr body) {
  return ExecPtr(new AllocExec(buffer, elements, per_block, std::move(body)));
}

ExecPtr MakeBarrierExec() { return ExecPtr(new BarrierExec()); }

ExecPtr MakeStoreNestExec(std::unique_ptr<StoreNestPlan> plan) {
  return ExecPtr(new StoreNestExec(std::move(plan)));
}

}  // namespace pruner::interp_internal
