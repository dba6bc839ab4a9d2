// What the LibTorch cost models (the TenSet MLP, PaCM) share: the LambdaRank
// loss, the intra-op thread setting and TenSet's training loop (Adam,
// shuffled mini-batches, gradient clipping, early stopping on the smoothed
// training loss).
//
// Header-only on purpose: only the LibTorch translation units include it,
// and every .cc that includes <torch/torch.h> costs 30-55 s to compile, so
// sharing this code must not add one.
#ifndef PRUNER_COMMON_MODEL_TORCH_RANK_TRAINING_H_
#define PRUNER_COMMON_MODEL_TORCH_RANK_TRAINING_H_

#include <dlfcn.h>
#include <malloc.h>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <mutex>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "common/model/rank_training_schedule.h"

namespace pruner {

// LambdaRank over one mini-batch, which is one ranked list (a batch may mix
// workloads: labels are normalized per workload, so each workload's best
// program is 1 and the lists stay comparable). Every pair (i, j) with
// y_i > y_j contributes -|ΔNDCG_ij| · log2 σ(s_i − s_j), where ΔNDCG uses
// the positions of i and j in the batch sorted by the current predictions
// and gains 2^y − 1 over the ideal DCG (clamped at 1e-10); the loss is the
// sum over pairs. This is allRank's lambdaLoss with k = ∞ and σ = 1, as
// TenSet and Pruner use it, except that log-sigmoid replaces their
// log2(clamp(σ, 1e-10)), which is the same where it matters and has no
// flat region for badly ordered pairs.
//
// `gain_exponent` g makes the gains 2^(g·y) − 1 (1 is TenSet's). Labels are
// normalized throughputs in (0, 1], so with g = 1 the best program's gain
// (1) is barely above a program 25% slower (y = 0.8: 0.74) and the loss
// spends itself on the whole order; a larger g puts the weight on the
// pairs at the top. The order of pairs (y_i > y_j) does not depend on g.
// On held-out workloads g = 4 raised Top-5 and lowered Top-1, g = 16
// lowered both (bench/README.md, "PaCM's loss aimed at Table 11").
inline torch::Tensor LambdaRankLoss(const torch::Tensor& scores, const torch::Tensor& labels,
                                    double gain_exponent = 1.0) {
  const int64_t n = scores.size(0);
  torch::Tensor order = std::get<1>(scores.detach().sort(/*dim=*/0, /*descending=*/true));
  torch::Tensor position = torch::empty_like(order);
  position.index_put_({order}, torch::arange(n, order.options()));
  // Discount 1 / log2(2 + position), positions counted from 0.
  torch::Tensor discount = 1.0 / torch::log2(position.to(torch::kFloat) + 2.0);
  torch::Tensor ideal = std::get<0>(labels.sort(/*dim=*/0, /*descending=*/true));
  torch::Tensor ideal_discount = 1.0 / torch::log2(torch::arange(n, labels.options()) + 2.0);
  torch::Tensor max_dcg =
      ((torch::pow(2.0, gain_exponent * ideal) - 1.0) * ideal_discount).sum().clamp_min(1e-10);
  torch::Tensor gain = (torch::pow(2.0, gain_exponent * labels) - 1.0) / max_dcg;
  torch::Tensor delta_ndcg = (discount.unsqueeze(1) - discount.unsqueeze(0)).abs() *
                             (gain.unsqueeze(1) - gain.unsqueeze(0)).abs();
  torch::Tensor better = (labels.unsqueeze(1) > labels.unsqueeze(0)).to(torch::kFloat);
  torch::Tensor log2_p =
      torch::log_sigmoid(scores.unsqueeze(1) - scores.unsqueeze(0)) / std::log(2.0);
  return -(better * delta_ndcg * log2_p).sum();
}

// The threads a LibTorch fit or inference may use, for as long as the
// object lives. 0 means 1: these networks are small, and on a shared 2-core
// machine OpenMP threads were 5-10x slower than one thread whenever the
// other core was busy (featurization, measurement, a build).
//
// Two settings are process-wide and outside torch's own count:
// - Debian's LibTorch runs its matrix products in OpenBLAS (pthreads),
//   whose pool has one thread per core whatever torch::set_num_threads
//   says. A "one-thread" TLP fit ran its GEMMs on 2 threads, so two folds
//   side by side put 4 busy threads on 2 cores (bench/README.md, "TLP at
//   100%"). The OpenBLAS count follows the request while any TorchThreads
//   lives and is restored when the last one ends, so a library baseline
//   timed later in the process (bench_tune's OpenBLAS) keeps its threads.
//   Found through dlsym: another BLAS leaves it alone.
// - glibc returns freed memory above 128 KiB-32 MiB to the kernel, and a
//   training step frees its activations (tens of MB each) every batch: the
//   next step faulted them in again, ~17% of a TLP fit in the kernel.
//   Keeping up to 1 GiB of freed heap (set once, never undone) made the
//   same fit 1.3x faster with identical scores.
class TorchThreads {
 public:
  explicit TorchThreads(int requested) {
    const int n = requested > 0 ? requested : 1;
    KeepFreedHeap();
    if (torch::get_num_threads() != n) torch::set_num_threads(n);
    BlasThreads& blas = Blas();
    std::lock_guard<std::mutex> lock(blas.mu);
    if (blas.set == nullptr) return;
    if (blas.holders++ == 0) blas.saved = blas.get();
    blas.set(n);
  }
  ~TorchThreads() {
    BlasThreads& blas = Blas();
    std::lock_guard<std::mutex> lock(blas.mu);
    if (blas.set != nullptr && --blas.holders == 0) blas.set(blas.saved);
  }
  TorchThreads(const TorchThreads&) = delete;
  TorchThreads& operator=(const TorchThreads&) = delete;

  // OpenBLAS's thread count now (0 where torch does not use OpenBLAS).
  static int BlasThreadCount() { return Blas().get != nullptr ? Blas().get() : 0; }

 private:
  struct BlasThreads {
    std::mutex mu;
    void (*set)(int) = nullptr;
    int (*get)() = nullptr;
    int holders = 0;
    int saved = 1;
  };
  static BlasThreads& Blas() {
    static BlasThreads* blas = [] {
      auto* b = new BlasThreads;
      b->set = reinterpret_cast<void (*)(int)>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"));
      b->get = reinterpret_cast<int (*)()>(dlsym(RTLD_DEFAULT, "openblas_get_num_threads"));
      if (b->get == nullptr) b->set = nullptr;
      return b;
    }();
    return *blas;
  }
  static void KeepFreedHeap() {
    static const bool once = [] {
      mallopt(M_MMAP_THRESHOLD, 32 << 20);  // glibc's largest dynamic threshold
      mallopt(M_TRIM_THRESHOLD, 1 << 30);
      return true;
    }();
    (void)once;
  }
};

// A model's checkpoint payload in torch's archive format: what `write`
// puts in an archive, as bytes, and back through `read`. Torch's exceptions
// become errors naming `model` (Internal on save, InvalidArgument on load:
// a corrupt or foreign checkpoint).
inline absl::StatusOr<std::string> SaveArchive(
    std::string_view model, const std::function<void(torch::serialize::OutputArchive&)>& write) {
  try {
    torch::serialize::OutputArchive archive;
    write(archive);
    std::ostringstream out;
    archive.save_to(out);
    return out.str();
  } catch (const std::exception& e) {
    return absl::InternalError(absl::StrCat(std::string(model), ": save: ", e.what()));
  }
}

inline absl::Status LoadArchive(
    std::string_view model, std::string_view bytes,
    const std::function<absl::Status(torch::serialize::InputArchive&)>& read) {
  try {
    std::istringstream in{std::string(bytes)};
    torch::serialize::InputArchive archive;
    archive.load_from(in);
    return read(archive);
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat(std::string(model), ": load: ", e.what()));
  }
}

// Scores `n` programs in chunks of `chunk` (bounding the forward pass's
// memory): `forward` gets a chunk's program indices and returns one score
// each. For inference; the caller holds the NoGradGuard.
inline std::vector<double> ScoreInChunks(
    int n, int chunk, const std::function<torch::Tensor(const std::vector<int>&)>& forward) {
  std::vector<double> out(n, 0.0);
  for (int begin = 0; begin < n; begin += chunk) {
    std::vector<int> which;
    for (int p = begin; p < std::min(n, begin + chunk); ++p) which.push_back(p);
    torch::Tensor s = forward(which).contiguous();
    const float* v = s.data_ptr<float>();
    for (size_t i = 0; i < which.size(); ++i) out[begin + i] = v[i];
  }
  return out;
}

// `items` with the groups (group_of[item]) in a random order, each group's
// items contiguous and in a random order.
template <typename Rng>
std::vector<int> ShuffledByGroup(std::vector<int> items, const std::vector<int>& group_of,
                                 Rng& rng) {
  std::shuffle(items.begin(), items.end(), rng);
  std::vector<int> groups;
  for (int item : items) groups.push_back(group_of[item]);
  std::sort(groups.begin(), groups.end());
  groups.erase(std::unique(groups.begin(), groups.end()), groups.end());
  std::shuffle(groups.begin(), groups.end(), rng);
  std::vector<int> rank(groups.empty() ? 0 : *std::max_element(groups.begin(), groups.end()) + 1);
  for (size_t i = 0; i < groups.size(); ++i) rank[groups[i]] = static_cast<int>(i);
  std::stable_sort(items.begin(), items.end(),
                   [&](int a, int b) { return rank[group_of[a]] < rank[group_of[b]]; });
  return items;
}

// Cuts group-contiguous `items` into [begin, end) batches of whole groups,
// up to batch_size items each. A group larger than batch_size fills whole
// batches of its own; its remainder starts the next batch.
inline std::vector<std::pair<size_t, size_t>> PackGroups(const std::vector<int>& items,
                                                         const std::vector<int>& group_of,
                                                         size_t batch_size) {
  std::vector<std::pair<size_t, size_t>> out;
  size_t begin = 0;
  for (size_t g = 0; g < items.size();) {
    size_t g_end = g;
    while (g_end < items.size() && group_of[items[g_end]] == group_of[items[g]]) ++g_end;
    if (g_end - begin > batch_size && g > begin) {  // close the batch before this group
      out.emplace_back(begin, g);
      begin = g;
    }
    while (g_end - begin > batch_size) {  // a group too large for one batch
      out.emplace_back(begin, begin + batch_size);
      begin += batch_size;
    }
    g = g_end;
  }
  if (begin < items.size()) out.emplace_back(begin, items.size());
  return out;
}

// LambdaRankLoss of each group of a batch on its own, summed: `group` gives
// every program's group (programs of a group need not be contiguous).
// Groups of one program have no pairs and add nothing. With `group_weight`
// (indexed by group), each group's loss is multiplied by its weight.
inline torch::Tensor GroupedLambdaRankLoss(const torch::Tensor& scores, const torch::Tensor& labels,
                                           const std::vector<int>& group,
                                           double gain_exponent = 1.0,
                                           const std::vector<float>* group_weight = nullptr) {
  std::map<int, std::vector<int64_t>> members;
  for (size_t i = 0; i < group.size(); ++i) members[group[i]].push_back(static_cast<int64_t>(i));
  torch::Tensor total = torch::zeros({}, scores.options());
  for (const auto& [g, rows] : members) {
    if (rows.size() < 2) continue;
    torch::Tensor index = torch::tensor(rows);
    torch::Tensor loss = LambdaRankLoss(scores.index_select(0, index),
                                        labels.index_select(0, index), gain_exponent);
    if (group_weight != nullptr) loss = loss * (*group_weight)[g];
    total = total + loss;
  }
  return total;
}

struct RankTrainingRun {
  int epochs = 0;
  double smoothed_loss = 0;
};

// Trains `parameters` with Adam over shuffled mini-batches of `items`.
// `batch_loss` returns the loss of one mini-batch, or an undefined tensor to
// skip it (PaCM skips lists of one program: they have no pairs, and
// BatchNorm cannot normalize them). The smoothed loss is TenSet's moving
// average 0.95·old + 0.05·batch, carried across epochs; `end_of_epoch`, if
// given, hears after every epoch whether it improved on the best so far.
// The parameters are left as the last epoch made them.
//
// With `group_of` (the group of every item value), mini-batches hold whole
// groups instead (RankTrainingSchedule::per_workload_lists): the groups in a
// new random order each epoch, each group's items contiguous and shuffled,
// packed greedily up to batch_size items (PackGroups says how a larger
// group is cut). The batch_loss then ranks each group separately.
inline RankTrainingRun TrainRanking(
    const std::vector<torch::Tensor>& parameters, std::vector<int> items,
    const RankTrainingSchedule& schedule,
    const std::function<torch::Tensor(const std::vector<int>&)>& batch_loss,
    const std::function<void(bool improved)>& end_of_epoch = {},
    const std::vector<int>* group_of = nullptr) {
  torch::optim::Adam optimizer(
      parameters,
      torch::optim::AdamOptions(schedule.learning_rate).weight_decay(schedule.weight_decay));
  std::mt19937_64 shuffle_rng(schedule.seed);
  const size_t batch_size = static_cast<size_t>(std::max(1, schedule.batch_size));

  double avg_loss = 0, best_loss = std::numeric_limits<double>::infinity();
  bool have_avg = false;
  int best_epoch = 0, epoch = 0;
  for (; epoch < schedule.max_epochs; ++epoch) {
    std::vector<std::pair<size_t, size_t>> batches;  // [begin, end) of items
    if (group_of == nullptr) {
      std::shuffle(items.begin(), items.end(), shuffle_rng);
      for (size_t begin = 0; begin < items.size(); begin += batch_size) {
        batches.emplace_back(begin, std::min(items.size(), begin + batch_size));
      }
    } else {
      items = ShuffledByGroup(items, *group_of, shuffle_rng);
      batches = PackGroups(items, *group_of, batch_size);
    }
    for (const auto& [begin, end] : batches) {
      torch::Tensor loss = batch_loss(std::vector<int>(items.begin() + begin, items.begin() + end));
      if (!loss.defined()) continue;
      optimizer.zero_grad();
      loss.backward();
      torch::nn::utils::clip_grad_norm_(parameters, schedule.grad_clip_norm);
      optimizer.step();
      const double l = loss.item<double>();
      avg_loss = have_avg ? 0.95 * avg_loss + 0.05 * l : l;
      have_avg = true;
    }
    const bool improved = avg_loss < best_loss;
    if (end_of_epoch) end_of_epoch(improved);
    if (improved) {
      best_loss = avg_loss;
      best_epoch = epoch;
    } else if (epoch - best_epoch >= schedule.early_stop_epochs) {
      ++epoch;
      break;
    }
  }
  return {epoch, avg_loss};
}

}  // namespace pruner

#endif  // PRUNER_COMMON_MODEL_TORCH_RANK_TRAINING_H_
