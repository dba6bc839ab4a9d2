// TenSet's MLP cost model as a pack regressor (LibTorch; this header does not
// include it, so callers compile without torch headers).
//
// Network (TenSet's SegmentSumMLP): every statement row goes through an
// encoder (Linear 164→h, ReLU, Linear h→h, ReLU); the encodings of a
// program's rows are summed (the "segment sum", so any number of statements
// fits), then two residual blocks (x + ReLU(Linear h→h)) and a Linear h→1
// decoder give the program's score. Summing encodings instead of per-row
// scores lets statements interact before the decoder; a per-row-score sum
// (the XGBoost model's form) is the special case of a linear head.
//
// Features are divided by their per-column maximum magnitude over the
// training data (TenSet normalizes by the column max; we recompute it at
// every fit because every fit starts from scratch).
//
// Loss: LambdaRank by default, TenSet's default for this model: tuning only
// needs the order of candidates within a batch, and TenSet reports better
// search results with ranking losses than with regression. Each batch of
// programs is one ranked list; every pair (i, j) with y_i > y_j contributes
// -|ΔNDCG_ij| · log2 σ(s_i − s_j), where ΔNDCG uses the positions of i and j
// in the batch sorted by the current predictions and gains 2^y − 1. A batch
// may mix workloads, as in TenSet; labels are normalized per workload, so
// every workload's best program is 1 and the lists stay comparable. We use
// log-sigmoid directly (TenSet clamps σ at 1e-10 before the log). kMse is
// TenSet's alternative: a sigmoid head and mean squared error on the label.
//
// Training: Adam (lr 7e-4, weight decay 1e-6), batches of 512 programs,
// gradient-norm clipping at 0.5, up to 50 epochs (100 for MSE), stopping
// early when the moving average of the batch loss has not improved for
// max_epochs / 6 epochs — all TenSet's values.
#ifndef PRUNER_COMMON_MODEL_MLP_REGRESSOR_H_
#define PRUNER_COMMON_MODEL_MLP_REGRESSOR_H_

#include <cstdint>
#include <memory>

#include "common/model/pack_regressor.h"

namespace pruner {

enum class MlpLoss { kLambdaRank, kMse };

struct MlpParams {
  int hidden_dim = 256;
  MlpLoss loss = MlpLoss::kLambdaRank;
  // 0 = TenSet's count for the loss: 50 for LambdaRank, 100 for MSE.
  int max_epochs = 0;
  // 0 = max_epochs / 6.
  int early_stop_epochs = 0;
  int batch_size = 512;
  double learning_rate = 7e-4;
  double weight_decay = 1e-6;
  double grad_clip_norm = 0.5;
  // LibTorch intra-op threads (a process-wide setting, applied on every Fit
  // and Predict); 0 = DefaultMlpThreads().
  int num_threads = 0;
  // Seeds the weight initialization and the batch order, so a fit is
  // reproducible (for a fixed thread count).
  uint64_t seed = 43;
};

// 1. The network is small (about 200k parameters at h = 256): one thread
// runs an epoch over 1000 programs in about 60 ms, while OpenMP threads on a
// machine that is busy with anything else (featurization, measurement, a
// build) cost far more than they save (2 threads were 10x slower on a
// loaded 2-core machine).
int DefaultMlpThreads();

std::unique_ptr<PackRegressor> MakeMlpPackRegressor(const MlpParams& params);

}  // namespace pruner

#endif  // PRUNER_COMMON_MODEL_MLP_REGRESSOR_H_
