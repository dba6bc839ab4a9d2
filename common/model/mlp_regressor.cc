// One of the two translation units that include LibTorch (with
// pacm_network.cc); the training loop is shared (torch_rank_training.h).
#include "common/model/mlp_regressor.h"

#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/model/torch_rank_training.h"

namespace pruner {
namespace {

// TenSet's SegmentSumMLP (see the header).
struct SegmentSumMlpImpl : torch::nn::Module {
  SegmentSumMlpImpl(int64_t in_dim, int64_t hidden)
      : enc0(register_module("enc0", torch::nn::Linear(in_dim, hidden))),
        enc1(register_module("enc1", torch::nn::Linear(hidden, hidden))),
        res0(register_module("res0", torch::nn::Linear(hidden, hidden))),
        res1(register_module("res1", torch::nn::Linear(hidden, hidden))),
        head(register_module("head", torch::nn::Linear(hidden, 1))) {}

  // rows: [R, in_dim]; pack_of_row: [R] int64 in [0, num_packs).
  torch::Tensor forward(const torch::Tensor& rows, const torch::Tensor& pack_of_row,
                        int64_t num_packs) {
    torch::Tensor x = torch::relu(enc1(torch::relu(enc0(rows))));
    torch::Tensor sum = torch::zeros({num_packs, x.size(1)}, x.options()).index_add(0, pack_of_row, x);
    sum = sum + torch::relu(res0(sum));
    sum = sum + torch::relu(res1(sum));
    return head(sum).squeeze(1);
  }

  torch::nn::Linear enc0, enc1, res0, res1, head;
};
TORCH_MODULE(SegmentSumMlp);

int ThreadsOf(const MlpParams& p) {
  return p.num_threads > 0 ? p.num_threads : DefaultMlpThreads();
}

class MlpPackRegressor : public PackRegressor {
 public:
  explicit MlpPackRegressor(const MlpParams& params) : params_(params) {
    if (params_.max_epochs <= 0) params_.max_epochs = params_.loss == MlpLoss::kMse ? 100 : 50;
    if (params_.early_stop_epochs <= 0) params_.early_stop_epochs = std::max(1, params_.max_epochs / 6);
  }

  absl::StatusOr<FitReport> Fit(const PackedRows& packs, const std::vector<float>& labels) override;
  bool IsTrained() const override { return !net_.is_empty(); }
  absl::StatusOr<std::vector<double>> Predict(const PackedRows& packs) const override;
  absl::StatusOr<std::string> Save() const override;
  absl::Status Load(std::string_view bytes) override;

 private:
  // The score the loss sees: raw for LambdaRank, squashed for MSE.
  torch::Tensor Output(const torch::Tensor& rows, const torch::Tensor& pack_of_row,
                       int64_t num_packs) const {
    torch::Tensor s = net_->forward(rows, pack_of_row, num_packs);
    return params_.loss == MlpLoss::kMse ? torch::sigmoid(s) : s;
  }

  MlpParams params_;
  // Mutable: torch modules have no const forward; inference changes nothing.
  mutable SegmentSumMlp net_{nullptr};
  torch::Tensor scale_;  // per-column divisor
};

// Copies the rows of `packs` listed in `which` into one tensor, with the
// batch-local pack index of every row.
std::pair<torch::Tensor, torch::Tensor> GatherRows(const PackedRows& packs,
                                                   const std::vector<int>& which) {
  int64_t num_rows = 0;
  for (int p : which) num_rows += packs.pack_size(p);
  torch::Tensor rows = torch::empty({num_rows, packs.num_columns()}, torch::kFloat);
  torch::Tensor pack_of_row = torch::empty({num_rows}, torch::kLong);
  float* dst = rows.data_ptr<float>();
  int64_t* owner = pack_of_row.data_ptr<int64_t>();
  int64_t r = 0;
  for (size_t b = 0; b < which.size(); ++b) {
    const int p = which[b];
    const int64_t n = packs.pack_size(p);
    std::copy_n(packs.row(packs.pack_begin(p)), n * packs.num_columns(),
                dst + r * packs.num_columns());
    std::fill_n(owner + r, n, static_cast<int64_t>(b));
    r += n;
  }
  return {rows, pack_of_row};
}

absl::StatusOr<FitReport> MlpPackRegressor::Fit(const PackedRows& packs,
                                                const std::vector<float>& labels) {
  const auto start = std::chrono::steady_clock::now();
  if (static_cast<int>(labels.size()) != packs.num_packs()) {
    return absl::InvalidArgumentError(
        absl::StrCat("mlp: ", labels.size(), " labels for ", packs.num_packs(), " packs"));
  }
  std::vector<int> usable;  // packs with rows
  bool any_positive = false;
  for (int p = 0; p < packs.num_packs(); ++p) {
    if (packs.pack_size(p) == 0) continue;
    usable.push_back(p);
    any_positive = any_positive || labels[p] > 0;
  }
  if (usable.empty() || !any_positive) {
    return absl::FailedPreconditionError("mlp: nothing to learn (no rows or every label is 0)");
  }
  const TorchThreads threads(ThreadsOf(params_));
  torch::manual_seed(params_.seed);

  const int64_t cols = packs.num_columns();
  torch::Tensor all = torch::from_blob(const_cast<float*>(packs.values().data()),
                                       {packs.num_rows(), cols}, torch::kFloat);
  torch::Tensor scale = std::get<0>(all.abs().max(0));
  scale = torch::where(scale > 0, scale, torch::ones_like(scale));

  SegmentSumMlp net(cols, params_.hidden_dim);
  net->train();
  const RankTrainingSchedule schedule{.max_epochs = params_.max_epochs,
                                      .early_stop_epochs = params_.early_stop_epochs,
                                      .batch_size = params_.batch_size,
                                      .learning_rate = params_.learning_rate,
                                      .weight_decay = params_.weight_decay,
                                      .grad_clip_norm = params_.grad_clip_norm,
                                      .seed = params_.seed};
  const RankTrainingRun run = TrainRanking(
      net->parameters(), usable, schedule, [&](const std::vector<int>& batch) {
        auto [rows, pack_of_row] = GatherRows(packs, batch);
        std::vector<float> y(batch.size());
        for (size_t b = 0; b < batch.size(); ++b) y[b] = labels[batch[b]];
        torch::Tensor target = torch::tensor(y);
        torch::Tensor s =
            net->forward(rows / scale, pack_of_row, static_cast<int64_t>(batch.size()));
        return params_.loss == MlpLoss::kMse ? torch::mse_loss(torch::sigmoid(s), target)
                                             : LambdaRankLoss(s, target);
      });
  net->eval();
  net_ = net;
  scale_ = scale;
  FitReport report;
  report.iterations = run.epochs;
  report.train_loss = run.smoothed_loss;
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

absl::StatusOr<std::vector<double>> MlpPackRegressor::Predict(const PackedRows& packs) const {
  if (net_.is_empty()) return absl::FailedPreconditionError("mlp: predict before training");
  if (packs.num_columns() != scale_.size(0)) {
    return absl::InvalidArgumentError(absl::StrCat("mlp: model has ", scale_.size(0),
                                                   " features, data has ", packs.num_columns()));
  }
  const TorchThreads threads(ThreadsOf(params_));
  torch::NoGradGuard no_grad;
  return ScoreInChunks(packs.num_packs(), /*chunk=*/4096, [&](const std::vector<int>& chunk) {
    auto [rows, pack_of_row] = GatherRows(packs, chunk);
    return Output(rows / scale_, pack_of_row, static_cast<int64_t>(chunk.size()));
  });
}

absl::StatusOr<std::string> MlpPackRegressor::Save() const {
  if (net_.is_empty()) return absl::FailedPreconditionError("mlp: save before training");
  return SaveArchive("mlp", [&](torch::serialize::OutputArchive& archive) {
    net_->save(archive);
    archive.write("scale", scale_);
    archive.write("hidden_dim", torch::tensor(static_cast<int64_t>(params_.hidden_dim)));
    archive.write("mse", torch::tensor(static_cast<int64_t>(params_.loss == MlpLoss::kMse)));
  });
}

absl::Status MlpPackRegressor::Load(std::string_view bytes) {
  return LoadArchive("mlp", bytes, [&](torch::serialize::InputArchive& archive) {
    torch::Tensor scale, hidden, mse;
    archive.read("scale", scale);
    archive.read("hidden_dim", hidden);
    archive.read("mse", mse);
    if (scale.dim() != 1 || hidden.numel() != 1 || mse.numel() != 1) {
      return absl::InvalidArgumentError("mlp: malformed checkpoint");
    }
    // The checkpoint fixes the network's shape and output transform; the
    // training knobs stay this regressor's own.
    MlpParams params = params_;
    params.hidden_dim = static_cast<int>(hidden.item<int64_t>());
    params.loss = mse.item<int64_t>() != 0 ? MlpLoss::kMse : MlpLoss::kLambdaRank;
    SegmentSumMlp net(scale.size(0), params.hidden_dim);
    net->load(archive);
    net->eval();
    params_ = params;
    net_ = net;
    scale_ = scale;
    return absl::OkStatus();
  });
}

}  // namespace

int DefaultMlpThreads() { return 1; }

std::unique_ptr<PackRegressor> MakeMlpPackRegressor(const MlpParams& params) {
  return std::make_unique<MlpPackRegressor>(params);
}

}  // namespace pruner
