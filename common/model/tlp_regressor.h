// TLP's network (../shared/specs/tlp.md §3) as a pack regressor: every pack
// is one program's step matrix (tlp_features.h), `rows` rows of the pack's
// column count. LibTorch stays in the .cc.
//
// Network, as TLP's default "attention" model: a per-row encoder (Linear
// E→64→128→256→256, ReLU after each), one 8-head self-attention layer over
// the rows with a residual (no positional encoding, no padding mask: order
// enters only through the rows' stage and iterator ids), two residual
// blocks (h + ReLU(Linear 256→256)), a per-row head (Linear 256→256→128→64,
// ReLU, →1), and the sum of the rows' outputs as the program's score.
// TLP's unused `l0` layer is left out.
//
// Training (§5): LambdaRank over mini-batches of 1024 programs mixing
// workloads (labels are per-workload normalized throughputs), Adam lr 7e-4,
// weight decay 1e-6, gradient-norm clip 0.5, 50 epochs and no early
// stopping, raw features (TLP normalizes nothing).
#ifndef PRUNER_COMMON_MODEL_TLP_REGRESSOR_H_
#define PRUNER_COMMON_MODEL_TLP_REGRESSOR_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "common/model/pack_regressor.h"
#include "common/model/packed_rows.h"

namespace pruner {

struct TlpParams {
  int rows = 25;  // step rows per program (the pack size every pack must have)
  int hidden_dim = 256;
  int heads = 8;
  int max_epochs = 50;
  int batch_size = 1024;
  double learning_rate = 7e-4;
  double weight_decay = 1e-6;
  double grad_clip_norm = 0.5;
  int num_threads = 1;  // LibTorch intra-op threads (see DefaultMlpThreads)
  uint64_t seed = 43;
};

// MTL-TLP (§7): another device's programs (same platform, so the same step
// table and crop) with their per-workload normalized labels. A regressor
// given them trains a second head on them beside the first, sharing the
// trunk; it predicts with the first head, its own device's.
struct TlpAuxiliaryData {
  PackedRows packs{0};
  std::vector<float> labels;
};

std::unique_ptr<PackRegressor> MakeTlpPackRegressor(
    const TlpParams& params, std::shared_ptr<const TlpAuxiliaryData> auxiliary = nullptr);

}  // namespace pruner

#endif  // PRUNER_COMMON_MODEL_TLP_REGRESSOR_H_
