#include "common/base/status_macros.h"
#include "common/lower/interp_expr.h"

#include <algorithm>
#include <utility>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace pruner::interp_internal {
namespace {

using IndexVector = absl::InlinedVector<int64_t, 8>;

}  // namespace

absl::StatusOr<std::unique_ptr<Access>> Access::Compile(int buffer,
                                                        const std::vector<Expr>& indices,
                                                        const CompileEnv& env) {
  if (buffer < 0 || buffer >= static_cast<int>(env.buffers->size())) {
    return absl::InvalidArgumentError(absl::StrCat("access to unknown buffer ", buffer));
  }
  auto a = std::make_unique<Access>();
  a->buffer_ = buffer;
  a->shape_ = &(*env.buffers)[buffer];
  const size_t dims = a->shape_->shape.size();
  if (indices.size() != dims) {
    return absl::InvalidArgumentError(absl::StrCat("buffer ", a->shape_->name, " has ", dims,
                                                   " dimensions but is accessed with ",
                                                   indices.size(), " indices"));
  }
  const size_t num_flat = env.flat_vars.size();
  bool separable = true;
  a->coef_.resize(dims);
  std::vector<int64_t> flat_coef(num_flat, 0);
  for (size_t d = 0; d < dims && separable; ++d) {
    separable = SeparableAffine(indices[d], env, &a->coef_[d]);
    for (size_t k = 0; k < num_flat && separable; ++k) {
      flat_coef[k] += a->coef_[d][k] * a->shape_->strides[d];
    }
  }
  if (separable) separable = RelativeValues(flat_coef, env, &a->rel_);
  if (separable) {
    const CompileEnv scalar_env = ScalarEnv(env);
    for (size_t d = 0; d < dims; ++d) {
      PRUNER_ASSIGN_OR_RETURN(IntScalar s, IntScalar::Compile(indices[d], scalar_env));
      a->base_index_.push_back(std::move(s));
    }
    a->separable_ = true;
    return a;
  }
  a->coef_.clear();
  a->rel_.clear();
  for (size_t d = 0; d < dims; ++d) {
    PRUNER_ASSIGN_OR_RETURN(NodePtr node, CompileExpr(indices[d], env));
    if (node->is_float()) return TypeError(indices[d], "integer index expected");
    a->index_nodes_.push_back(std::move(node));
  }
  return a;
}

bool Access::Fail(const Frame& f, bool is_write, const int64_t* index) const {
  const size_t dims = shape_->shape.size();
  *f.error = absl::StrCat("out-of-bounds ", is_write ? "write to " : "read of ", shape_->name,
                          "[", absl::StrJoin(index, index + dims, ", "), "]; its shape is [",
                          absl::StrJoin(shape_->shape, ", "), "]");
  return false;
}

bool Access::BoxBase(const Frame& f, int64_t* base_offset, int64_t* base_index,
                     bool* in_box) const {
  const std::vector<int64_t>& shape = shape_->shape;
  int64_t offset = 0;
  bool inside = true;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (!base_index_[d].Eval(f.vars, f.bufs, f.scratch, f.error, &base_index[d])) return false;
    offset += base_index[d] * shape_->strides[d];
    int64_t lo = base_index[d], hi = base_index[d];
    for (size_t k = 0; k < coef_[d].size(); ++k) {
      const int64_t span = coef_[d][k] * (f.chunk.lens[k] - 1);
      (span < 0 ? lo : hi) += span;
    }
    inside &= lo >= 0 && hi < shape[d];
  }
  *base_offset = offset;
  *in_box = inside;
  return true;
}

bool Access::PointIndexCheck(const Frame& f, const int64_t* base_index, bool is_write,
                             int64_t* offs) const {
  const std::vector<int64_t>& shape = shape_->shape;
  const size_t dims = shape.size();
  IndexVector index(dims);
  for (int q = 0; q < f.n; ++q) {
    const int p = f.pos(q);
    int64_t offset = 0;
    for (size_t d = 0; d < dims; ++d) {
      int64_t i = base_index[d];
      for (size_t k = 0; k < coef_[d].size(); ++k) i += coef_[d][k] * (*f.chunk.values)[k][p];
      index[d] = i;
      offset += i * shape_->strides[d];
    }
    for (size_t d = 0; d < dims; ++d) {
      if (index[d] < 0 || index[d] >= shape[d]) return Fail(f, is_write, index.data());
    }
    offs[q] = offset;
  }
  return true;
}

bool Access::GenericOffsets(const Frame& f, bool is_write, int64_t* offs) const {
  std::fill(offs, offs + f.n, 0);
  ScratchArray tmp(f.scratch);
  int64_t* idx = tmp.as<int64_t>();
  const size_t dims = shape_->shape.size();
  for (size_t d = 0; d < dims; ++d) {
    if (!index_nodes_[d]->EvalI(f, idx)) return false;
    const int64_t extent = shape_->shape[d];
    const int64_t stride = shape_->strides[d];
    for (int q = 0; q < f.n; ++q) {
      if (idx[q] < 0 || idx[q] >= extent) {
        *f.error = absl::StrCat("out-of-bounds ", is_write ? "write to " : "read of ",
                                shape_->name, ": index ", idx[q], " in dimension ", d,
                                " is outside [0, ", extent, ")");
        return false;
      }
      offs[q] += idx[q] * stride;
    }
  }
  return true;
}

bool Access::Offsets(const Frame& f, bool is_write, int64_t* offs) const {
  if (!separable_) return GenericOffsets(f, is_write, offs);
  IndexVector base_index(shape_->shape.size());
  int64_t base = 0;
  bool in_box = false;
  if (!BoxBase(f, &base, base_index.data(), &in_box)) return false;
  if (!in_box) return PointIndexCheck(f, base_index.data(), is_write, offs);
  const int32_t* rel = rel_.data();
  if (f.act == nullptr) {
    for (int q = 0; q < f.n; ++q) offs[q] = base + rel[q];
  } else {
    for (int q = 0; q < f.n; ++q) offs[q] = base + rel[f.act[q]];
  }
  return true;
}

bool Access::Gather(const Frame& f, float* out) const {
  if (separable_) {
    IndexVector base_index(shape_->shape.size());
    int64_t base = 0;
    bool in_box = false;
    if (!BoxBase(f, &base, base_index.data(), &in_box)) return false;
    if (in_box) {
      const float* data = f.bufs[buffer_] + base;
      const int32_t* rel = rel_.data();
      if (f.act == nullptr) {
        for (int q = 0; q < f.n; ++q) out[q] = data[rel[q]];
      } else {
        for (int q = 0; q < f.n; ++q) out[q] = data[rel[f.act[q]]];
      }
      return true;
    }
    ScratchArray tmp(f.scratch);
    int64_t* offs = tmp.as<int64_t>();
    if (!PointIndexCheck(f, base_index.data(), /*is_write=*/false, offs)) return false;
    const float* data = f.bufs[buffer_];
    for (int q = 0; q < f.n; ++q) out[q] = data[offs[q]];
    return true;
  }
  ScratchArray tmp(f.scratch);
  int64_t* offs = tmp.as<int64_t>();
  if (!GenericOffsets(f, /*is_write=*/false, offs)) return false;
  const float* data = f.bufs[buffer_];
  for (int q = 0; q < f.n; ++q) out[q] = data[offs[q]];
  return true;
}

}  // namespace pruner::interp_internal
