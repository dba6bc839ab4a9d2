#include "common/features/pacm_batch.h"

#include <algorithm>

namespace pruner {
namespace {

// Column maxima of a row-major [n][width] array, with <= 0 replaced by 1.
template <size_t kWidth>
void FitMaxima(const std::vector<float>& values, std::array<float, kWidth>* scale) {
  std::array<float, kWidth> max;
  max.fill(0.0f);
  for (size_t i = 0; i < values.size(); i += kWidth) {
    for (size_t c = 0; c < kWidth; ++c) max[c] = std::max(max[c], values[i + c]);
  }
  for (size_t c = 0; c < kWidth; ++c) (*scale)[c] = max[c] > 0 ? max[c] : 1.0f;
}

template <size_t kWidth>
void Divide(const std::array<float, kWidth>& scale, std::vector<float>* values) {
  for (size_t i = 0; i < values->size(); i += kWidth) {
    for (size_t c = 0; c < kWidth; ++c) (*values)[i + c] /= scale[c];
  }
}

}  // namespace

void PaCMBatch::Add(const PaCMFeatures& features) {
  const int program = num_programs++;
  auto add_row = [&](const float* row) {
    statements.insert(statements.end(), row, row + kNumStatementFeatures);
    statements.insert(statements.end(), features.tag.begin(), features.tag.end());
    statement_program.push_back(program);
  };
  for (const StatementFeatures& row : features.statements) add_row(row.data());
  if (features.statements.empty()) {
    // Every program needs a row for the statement branch's sum.
    const StatementFeatures zero{};
    add_row(zero.data());
  }
  blocks.insert(blocks.end(), features.dataflow.blocks.begin(), features.dataflow.blocks.end());
  symbols.insert(symbols.end(), features.symbols.begin(), features.symbols.end());
  valid.push_back(1);
}

void PaCMBatch::AddInvalid() {
  statements.resize(statements.size() + kPaCMStatementWidth, 0.0f);
  statement_program.push_back(num_programs++);
  blocks.resize(blocks.size() + kDataflowFeatureSize, 0.0f);
  symbols.resize(symbols.size() + kProgramSymbolWidth, 0.0f);
  valid.push_back(0);
}

void PaCMBatch::Clear() { *this = PaCMBatch(); }

PaCMColumnScales PaCMColumnScales::Fit(const PaCMBatch& training_set) {
  PaCMColumnScales scales;
  FitMaxima(training_set.statements, &scales.statement);
  FitMaxima(training_set.blocks, &scales.block);
  FitMaxima(training_set.symbols, &scales.symbol);
  return scales;
}

void PaCMColumnScales::Apply(PaCMBatch* batch) const {
  Divide(statement, &batch->statements);
  Divide(block, &batch->blocks);
  Divide(symbol, &batch->symbols);
}

}  // namespace pruner
