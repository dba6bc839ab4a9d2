// PaCM's network, the Pattern-aware Transformer (paper §4.2; ../shared/specs/pruner.md
// §5.1), with its training and inference. This header does not include
// LibTorch; pacm_network.cc is the only PaCM file that does.
//
//   statement rows [R, 174] --Linear 174→256, ReLU, Linear 256→256, ReLU-->
//       sum over each program's rows (segment ids)             --> s [N, 256]
//   dataflow blocks [N, 8, 23] --Linear 23→64, ReLU, Linear 64→128, ReLU-->
//       h; 4-head self-attention (Q = K = V = h, no mask, no positional
//       encoding); a = Attn(h) + h; sum over the 8 blocks      --> b [N, 128]
//   z = ReLU(Linear 384→256 [s ; b]); z = BatchNorm(z);
//   z = z + ReLU(Linear(z)) twice; score = Linear 256→1 (z).
//
// 417,409 trainable values and 513 BatchNorm buffer values at the default
// shape, the counts of Pruner's shipped checkpoint.
//
// Our optional analyzer branch (symbol_hidden > 0, off by default; the
// vector is pacm_symbols.h's):
//   analyzer vector [N, W] --Linear W→k, ReLU, Linear k→k, ReLU--> a [N, k]
//   (W = kProgramSymbolWidth)
//   z = ReLU(Linear (384 + k)→256 [s ; b ; a]), the rest as above. PyTorch's default
// initialization, as Pruner's (its Xavier init is commented out).
//
// BatchNorm at inference (../shared/specs/pruner.md §5.5, §9.11). Pruner never calls
// eval(), so its BatchNorm normalizes every scored batch with that batch's
// own statistics: a candidate's score depends on which other candidates it
// was scored with, and a batch of one crashes. We deliberately keep the
// layer (so the parameter set is Pruner's) but score in eval mode, with
// running statistics that Train re-estimates at the end from the finished
// network over its whole training set (exact mean and unbiased variance,
// instead of the lagging 0.1-momentum average of the last batches). A score
// then depends on its program alone, and the network normalizes with the
// statistics of the data it was fit on. Training itself normalizes each
// mini-batch with its own statistics, as BatchNorm and Pruner do; lists of
// one program are skipped (no pairs to rank, and BatchNorm needs two).
//
// Each network carries the column scales of its inputs (../shared/specs/pruner.md
// §4.6): Train refits them on its training set before training, so a
// network and the scales it was trained with always travel together.
//
// Not thread-safe; LibTorch's intra-op thread count is process-wide and set
// on every Train and Score call.
#ifndef PRUNER_COMMON_MODEL_PACM_NETWORK_H_
#define PRUNER_COMMON_MODEL_PACM_NETWORK_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/features/pacm_batch.h"
#include "common/model/pack_regressor.h"
#include "common/model/rank_training_schedule.h"

namespace pruner {

// Layer widths (Pruner's: hidden 256, block encoder 23→64→128, 4 heads).
struct PaCMNetworkShape {
  int hidden = 256;         // statement encoder, fusion and head
  int block_hidden = 64;    // first layer of the block encoder
  int attention_dim = 128;  // block encoder output and attention embedding
  int heads = 4;
  // Width k of the analyzer branch; 0 = none (Pruner's network).
  int symbol_hidden = 0;
  // The width the pruner-sym strategy and the pacm-sym benchmark row use.
  static constexpr int kAnalyzerBranchWidth = 64;

  // InvalidArgument unless every width is positive (symbol_hidden may be 0)
  // and attention_dim is a multiple of heads.
  absl::Status Validate() const;
  friend bool operator==(const PaCMNetworkShape&, const PaCMNetworkShape&) = default;
};

// Pruner's _fit_a_model (../shared/specs/pruner.md §5.3), the schedule's defaults:
// Adam, lr 7e-4, weight decay 1e-6, mini-batches of 512 programs,
// gradient-norm clipping at 0.5, up to 50 epochs, early stopping when the
// smoothed training loss has not improved for 50 // 3 = 16 epochs, the last
// epoch's weights returned. The schedule's seed also seeds fresh networks'
// weights.
//
// One deliberate departure, on by default: each workload's programs are
// ranked as a list of their own (RankTrainingSchedule::per_workload_lists),
// where Pruner ranks a shuffled 512-program batch of many workloads as one
// list (§5.2, §9.12). On this project's 48k-record CPU dataset (bench/README.md,
// "PaCM's lists") it raised held-out-workload Top-1 from 0.64 / 0.34 to
// 0.75 / 0.81 (seeds 43 / 44) and cut the spread between folds from
// ±0.20 / ±0.38 to ±0.14 / ±0.09. Set it to false for Pruner's mixed lists.
struct PaCMTrainingParams {
  RankTrainingSchedule schedule{.per_workload_lists = true};
  // LibTorch intra-op threads; 0 = 1 (torch_rank_training.h says why).
  int num_threads = 0;
  // Offline pre-training keeps the epoch with the best smoothed training
  // loss (pruner_train_model.py saves a checkpoint whenever it improves);
  // online training returns the last epoch, as _fit_a_model does.
  bool keep_best_epoch = false;
};

class PaCMNetwork {
 public:
  // A fresh network, initialized from `seed`.
  static absl::StatusOr<std::unique_ptr<PaCMNetwork>> Create(const PaCMNetworkShape& shape,
                                                             uint64_t seed);
  ~PaCMNetwork();
  PaCMNetwork(const PaCMNetwork&) = delete;
  PaCMNetwork& operator=(const PaCMNetwork&) = delete;

  // A deep copy: parameters, BatchNorm statistics and column scales.
  std::unique_ptr<PaCMNetwork> Clone() const;

  const PaCMNetworkShape& shape() const;
  const PaCMColumnScales& scales() const;

  // Refits the column scales on the valid programs of `batch` (raw
  // features), then trains from the current weights with LambdaRank on
  // `labels` (one per program; per-workload normalized throughput, higher
  // is better) and re-estimates the BatchNorm statistics. Invalid programs
  // are ignored. `workloads` (one per program, optional) lets
  // params.schedule.per_workload_lists rank each workload's programs as a
  // list of their own; without it the lists mix workloads. `list_weights`
  // (one per workload number, optional) multiply each workload's list loss
  // (RankTrainingSchedule::list_weight_power). FailedPrecondition,
  // with the network unchanged, when fewer than two valid programs or no
  // positive label leave nothing to rank.
  absl::StatusOr<FitReport> Train(const PaCMBatch& batch, const std::vector<float>& labels,
                                  const PaCMTrainingParams& params,
                                  const std::vector<int>* workloads = nullptr,
                                  const std::vector<float>* list_weights = nullptr);

  // One score per program of `batch` (raw features: the network applies its
  // own scales), -infinity for invalid programs. Eval mode: every score
  // depends on its own program only.
  std::vector<double> Score(const PaCMBatch& batch, int num_threads = 0) const;

  // MoA's momentum update (../shared/specs/pruner.md §6.2) with this network as the
  // Siamese: φ ← m·φ + (1−m)·φ_target for every parameter. BatchNorm's
  // running statistics and the column scales stay this network's own.
  // InvalidArgument if the shapes differ.
  absl::Status MomentumUpdate(const PaCMNetwork& target, double momentum);

  // Trainable values, and BatchNorm buffer values.
  int64_t NumParameterValues() const;
  int64_t NumBufferValues() const;
  // Parameter names ("statement0.weight", "attention.in_proj_weight", ...)
  // and a copy of one parameter's values, for checks and tests.
  std::vector<std::string> ParameterNames() const;
  absl::StatusOr<std::vector<float>> ParameterValues(std::string_view name) const;

  // Shape, column scales, parameters and BatchNorm statistics as bytes
  // (LibTorch's archive format), and back. Deserialize checks that the
  // feature widths are this build's and that every tensor has the shape
  // the stored layer widths imply; InvalidArgument otherwise.
  absl::StatusOr<std::string> Serialize() const;
  static absl::StatusOr<std::unique_ptr<PaCMNetwork>> Deserialize(std::string_view bytes);

 private:
  struct Impl;
  explicit PaCMNetwork(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace pruner

#endif  // PRUNER_COMMON_MODEL_PACM_NETWORK_H_
