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
};

}  // namespace pruner

#endif  // PRUNER_COMMON_MODEL_RANK_TRAINING_SCHEDULE_H_
