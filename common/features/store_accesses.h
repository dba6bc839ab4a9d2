// The buffer accesses of one store statement, grouped by buffer as TVM's
// BufferAccessExtractor groups them, with every index in global tensor
// coordinates (index + region_min) turned into a list of (loop variable,
// coefficient) terms once, so that the per-loop-level analyses only scan
// small flat arrays.
#ifndef PRUNER_COMMON_FEATURES_STORE_ACCESSES_H_
#define PRUNER_COMMON_FEATURES_STORE_ACCESSES_H_

#include <cstdint>
#include <span>
#include <vector>

#include "common/ir/expr.h"
#include "common/lower/program.h"

namespace pruner {

// Values are the one-hot positions of the acc_type feature.
enum class AccessType : uint8_t { kRead = 0, kWrite = 1, kReadWrite = 2 };

struct IndexTerm {
  int var = -1;
  int64_t coef = 0;
};

// One dimension of one access, in global coordinates. Affine dimensions are
// exactly constant + sum(coef * var). Others (floordiv/floormod of fused
// loops, min, select ...) keep their expressions for interval evaluation;
// their terms then list every variable used, with an approximate
// coefficient (see StoreAccesses::Collect).
struct IndexDim {
  const ExprNode* index = nullptr;
  const ExprNode* region_min = nullptr;  // null when the buffer holds the whole tensor
  bool affine = true;
  int64_t constant = 0;
  int first_term = 0;
  int num_terms = 0;
};

// All accesses of one buffer by the statement.
struct AccessGroup {
  int buffer = -1;
  AccessType type = AccessType::kRead;
  int elem_bytes = 4;
  int num_dims = 0;
  int first_dim = 0;  // instance k, dimension d: dims[first_dim + k * num_dims + d]
  int num_instances = 0;
};

class StoreAccesses {
 public:
  // The written buffer first, then every buffer read in `store.value` in
  // first-read order. A read of the written buffer turns its group into
  // ReadWrite without adding indices (it is the update's own element); each
  // read of another buffer adds an instance.
  void Collect(const StmtNode& store, const Program& program);

  const std::vector<AccessGroup>& groups() const { return groups_; }
  const IndexDim& dim(const AccessGroup& g, int instance, int d) const {
    return dims_[g.first_dim + instance * g.num_dims + d];
  }
  std::span<const IndexTerm> terms(const IndexDim& dim) const {
    return {terms_.data() + dim.first_term, static_cast<size_t>(dim.num_terms)};
  }
  const std::vector<IndexDim>& all_dims() const { return dims_; }
  // True when loop variable `var` changes some element the group touches.
  bool Uses(const AccessGroup& g, int var) const;

 private:
  struct RawAccess {
    int group;
    const std::vector<Expr>* indices;
  };
  int FindGroup(int buffer) const;
  void CollectReads(const ExprNode& e, const Program& program);
  void AddDim(const ExprNode* index, const ExprNode* region_min);

  std::vector<AccessGroup> groups_;
  std::vector<RawAccess> raw_;
  std::vector<IndexDim> dims_;
  std::vector<IndexTerm> terms_;
};

}  // namespace pruner

#endif  // PRUNER_COMMON_FEATURES_STORE_ACCESSES_H_
