// Packs: the learned models' view of a batch of programs.
//
// Ansor featurizes a program as one row per buffer-store statement
// (../shared/specs/ansor.md §5.3-5.4), so a program is a "pack" of a variable number of
// equally wide rows, and a model maps a pack to one score. PackedRows keeps
// the rows of many packs in one row-major array (what XGBoost's DMatrix and
// a torch tensor take without copying row by row) plus the offset where each
// pack starts.
#ifndef PRUNER_COMMON_MODEL_PACKED_ROWS_H_
#define PRUNER_COMMON_MODEL_PACKED_ROWS_H_

#include <cstdint>
#include <span>
#include <vector>

namespace pruner {

class PackedRows {
 public:
  explicit PackedRows(int num_columns) : num_columns_(num_columns) {}

  // Appends one pack; `values` holds its rows back to back, so its size must
  // be a multiple of num_columns() (an empty pack is allowed: it has no rows
  // and a pack sum of 0).
  void AddPack(std::span<const float> values);

  int num_columns() const { return num_columns_; }
  int num_packs() const { return static_cast<int>(offsets_.size()) - 1; }
  int64_t num_rows() const { return offsets_.back(); }
  // Rows of pack p: [pack_begin(p), pack_end(p)).
  int64_t pack_begin(int p) const { return offsets_[p]; }
  int64_t pack_end(int p) const { return offsets_[p + 1]; }
  int64_t pack_size(int p) const { return offsets_[p + 1] - offsets_[p]; }
  const float* row(int64_t r) const { return values_.data() + r * num_columns_; }
  const std::vector<float>& values() const { return values_; }
  // num_packs() + 1 entries; offsets()[p] is the first row of pack p.
  const std::vector<int64_t>& offsets() const { return offsets_; }

  // The pack of every row.
  std::vector<int> PackOfRow() const;
  // The packs at `indices`, in that order.
  PackedRows Subset(const std::vector<int>& indices) const;
  // Sum of `row_values` (one per row) over each pack.
  std::vector<double> SumByPack(std::span<const float> row_values) const;

 private:
  int num_columns_;
  std::vector<float> values_;
  std::vector<int64_t> offsets_ = {0};
};

}  // namespace pruner

#endif  // PRUNER_COMMON_MODEL_PACKED_ROWS_H_
