#include "common/model/packed_rows.h"

#include <cassert>

namespace pruner {

void PackedRows::AddPack(std::span<const float> values) {
  assert(values.size() % num_columns_ == 0);
  values_.insert(values_.end(), values.begin(), values.end());
  offsets_.push_back(offsets_.back() + static_cast<int64_t>(values.size()) / num_columns_);
}

std::vector<int> PackedRows::PackOfRow() const {
  std::vector<int> pack(num_rows());
  for (int p = 0; p < num_packs(); ++p) {
    for (int64_t r = pack_begin(p); r < pack_end(p); ++r) pack[r] = p;
  }
  return pack;
}

PackedRows PackedRows::Subset(const std::vector<int>& indices) const {
  PackedRows out(num_columns_);
  for (int p : indices) {
    out.AddPack(std::span<const float>(row(pack_begin(p)), pack_size(p) * num_columns_));
  }
  return out;
}

std::vector<double> PackedRows::SumByPack(std::span<const float> row_values) const {
  assert(static_cast<int64_t>(row_values.size()) == num_rows());
  std::vector<double> sums(num_packs(), 0.0);
  for (int p = 0; p < num_packs(); ++p) {
    for (int64_t r = pack_begin(p); r < pack_end(p); ++r) sums[p] += row_values[r];
  }
  return sums;
}

}  // namespace pruner
