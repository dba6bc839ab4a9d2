// The training schedule the LibTorch ranking models share (TenSet's, which
// Pruner keeps; ../shared/specs/pruner.md §5.3). Plain data, so that option structs
// can hold it without including LibTorch; the loop that follows it is
// TrainRanking (torch_rank_training.h).
#ifndef PRUNER_COMMON_MODEL_RANK_TRAINING_SCHEDULE_H_
#define PRUNER_COMMON_MODEL_RANK_TRAINING_SCHEDULE_H_

#include <cstdint>

namespace pruner {

struct RankTrainingSchedule {
  int max_epochs = 50;
  // Stop once the smoothed training loss has not improved for this many
  // epochs: Pruner's 50 // 3 (TenSet's MLP uses max_epochs / 6).
  int early_stop_epochs = 16;
  int batch_size = 512;  // programs per mini-batch, i.e. per ranked list
  double learning_rate = 7e-4;
  double weight_decay = 1e-6;
  double grad_clip_norm = 0.5;
  uint64_t seed = 43;  // batch order
  // How programs become ranked lists. Off (TenSet's and Pruner's way): a
  // mini-batch is one list of shuffled programs from many workloads, ranked
  // against each other by their per-workload normalized labels. On: a
  // mini-batch packs whole workloads (shuffled), each ranked as its own
  // list, so every pair the loss sees is two schedules of one workload,
  // which is the only comparison a search ever asks of the model. With ~300
  // workloads in a 512-program batch, mixed lists hold almost no such pair.
  // Only models that pass their programs' workloads use it.
  bool per_workload_lists = false;
  // LambdaRank's gains are 2^(gain_exponent · label) − 1 (LambdaRankLoss):
  // 1 is TenSet's and Pruner's; larger values weight the pairs at the top of
  // each list. Only PaCM passes it on today. Neither this nor
  // list_weight_power raised PaCM's held-out Top-1 (bench/README.md,
  // "PaCM's loss aimed at Table 11"): both stay off by default.
  double gain_exponent = 1.0;
  // Each workload's list loss weighted by (its best cost / the mean best
  // cost)^list_weight_power, the weights normalized to mean 1 over the
  // workloads: Table 11 and a tuned network weigh a workload by its time, so
  // a 20 ms convolution's order matters ~1000x more than a 20 µs layer
  // norm's. 0 (the default) weighs every list alike. Needs per_workload_lists
  // and a model that passes each workload's best cost (PaCM).
  double list_weight_power = 0.0;
};

}  // namespace pruner

#endif  // PRUNER_COMMON_MODEL_RANK_TRAINING_SCHEDULE_H_
