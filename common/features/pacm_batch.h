// PaCM inputs of many programs as flat arrays, in the layout a model's
// tensors take, and the per-column normalisation of ../shared/specs/pruner.md §4.6.
// Plain data: the model library wraps these buffers in tensors without
// this library knowing about any tensor type.
#ifndef PRUNER_COMMON_FEATURES_PACM_BATCH_H_
#define PRUNER_COMMON_FEATURES_PACM_BATCH_H_

#include <array>
#include <cstdint>
#include <vector>

#include "common/features/pacm_features.h"

namespace pruner {

struct PaCMBatch {
  int num_programs = 0;
  // [num_rows][kPaCMStatementWidth], row-major: a statement row, then its
  // program's workload tag. Programs' rows are contiguous, in Add order.
  std::vector<float> statements;
  // [num_rows]: the program each row belongs to (segment ids for the sum
  // over a program's rows).
  std::vector<int32_t> statement_program;
  // [num_programs][kNumDataflowBlocks][kDataflowBlockWidth].
  std::vector<float> blocks;
  // [num_programs][kProgramSymbolWidth]: the analyzer's vector (zeros when
  // not extracted); read only by networks with an analyzer branch.
  std::vector<float> symbols;
  // [num_programs]: 0 where lowering failed; such a program has one zero
  // statement row and zero blocks, and must be scored -inf.
  std::vector<uint8_t> valid;

  int num_rows() const { return static_cast<int>(statement_program.size()); }
  void Add(const PaCMFeatures& features);
  void AddInvalid();
  void Clear();
};

// §4.6: every statement column (174) and every block column (23, pooled
// over all programs and all 8 positions), and each analyzer symbol column,
// divided by its maximum over the training set; a column whose maximum is
// <= 0 is divided by 1. Fitted anew on every training run (Pruner does so
// on each retrain, even when fine-tuning from pretrained weights) and saved
// with the model, which applies the same scales at inference.
struct PaCMColumnScales {
  std::array<float, kPaCMStatementWidth> statement;
  std::array<float, kDataflowBlockWidth> block;
  ProgramSymbolVector symbol;

  PaCMColumnScales() {
    statement.fill(1.0f);
    block.fill(1.0f);
    symbol.fill(1.0f);
  }
  static PaCMColumnScales Fit(const PaCMBatch& training_set);
  void Apply(PaCMBatch* batch) const;
};

}  // namespace pruner

#endif  // PRUNER_COMMON_FEATURES_PACM_BATCH_H_
