// A LibTorch translation unit (with mlp_regressor.cc and pacm_network.cc);
// the training loop is shared (torch_rank_training.h).
#include "common/model/tlp_regressor.h"

#include <torch/torch.h>

#include <chrono>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/model/torch_rank_training.h"

namespace pruner {
namespace {

torch::nn::Sequential Mlp(const std::vector<int64_t>& widths, bool relu_last) {
  torch::nn::Sequential seq;
  for (size_t i = 0; i + 1 < widths.size(); ++i) {
    seq->push_back(torch::nn::Linear(widths[i], widths[i + 1]));
    if (i + 2 < widths.size() || relu_last) seq->push_back(torch::nn::ReLU());
  }
  return seq;
}

// TLP's network with `outputs` heads on one trunk: 1 for TLP, one per
// device for MTL-TLP (§7: the heads share everything up to the per-row
// decoder).
struct TlpNetImpl : torch::nn::Module {
  TlpNetImpl(int64_t columns, int64_t hidden, int64_t heads, int64_t outputs)
      : encoder(register_module("encoder", Mlp({columns, 64, 128, hidden, hidden}, true))),
        attention(register_module(
            "attention",
            torch::nn::MultiheadAttention(torch::nn::MultiheadAttentionOptions(hidden, heads)))),
        res0(register_module("res0", torch::nn::Linear(hidden, hidden))),
        res1(register_module("res1", torch::nn::Linear(hidden, hidden))) {
    for (int64_t i = 0; i < outputs; ++i) {
      decoders.push_back(register_module(i == 0 ? std::string("head") : absl::StrCat("head", i),
                                         Mlp({hidden, hidden, 128, 64, 1}, false)));
    }
  }

  // x: [N, L, E] -> the trunk's rows, [L, N, H].
  torch::Tensor Trunk(const torch::Tensor& x) {
    torch::Tensor h = encoder->forward(x).transpose(0, 1);
    h = std::get<0>(attention->forward(h, h, h)) + h;
    h = torch::relu(res0(h)) + h;
    return torch::relu(res1(h)) + h;
  }
  // Head `output` over trunk rows [L, N, H] -> [N] scores (rows summed).
  torch::Tensor Score(const torch::Tensor& h, int output) {
    return decoders[output]->forward(h).squeeze(-1).sum(0);
  }
  torch::Tensor forward(const torch::Tensor& x) { return Score(Trunk(x), 0); }

  torch::nn::Sequential encoder;
  torch::nn::MultiheadAttention attention;
  torch::nn::Linear res0, res1;
  std::vector<torch::nn::Sequential> decoders;
};
TORCH_MODULE(TlpNet);

class TlpPackRegressor : public PackRegressor {
 public:
  // `auxiliary` (MTL-TLP): another device's programs and labels, trained on
  // a second head beside every Fit's data; nullptr for TLP.
  TlpPackRegressor(const TlpParams& params, std::shared_ptr<const TlpAuxiliaryData> auxiliary)
      : params_(params), auxiliary_(std::move(auxiliary)) {}

  absl::StatusOr<FitReport> Fit(const PackedRows& packs, const std::vector<float>& labels) override;
  bool IsTrained() const override { return !net_.is_empty(); }
  absl::StatusOr<std::vector<double>> Predict(const PackedRows& packs) const override;
  absl::StatusOr<std::string> Save() const override;
  absl::Status Load(std::string_view bytes) override;

 private:
  // Every pack has params_.rows rows, and `columns` of them (0: any).
  absl::Status CheckShape(const PackedRows& packs, int64_t columns) const {
    for (int p = 0; p < packs.num_packs(); ++p) {
      if (packs.pack_size(p) != params_.rows) {
        return absl::InvalidArgumentError(absl::StrCat("tlp: program ", p, " has ",
                                                       packs.pack_size(p), " step rows, expected ",
                                                       params_.rows));
      }
    }
    if (columns > 0 && packs.num_columns() != columns) {
      return absl::InvalidArgumentError(absl::StrCat("tlp: model reads ", columns,
                                                     " columns, data has ", packs.num_columns()));
    }
    return absl::OkStatus();
  }
  // The packs at `which` as one [N, L, E] tensor.
  torch::Tensor Batch(const PackedRows& packs, const std::vector<int>& which) const {
    const int64_t l = params_.rows, e = packs.num_columns();
    torch::Tensor x = torch::empty({static_cast<int64_t>(which.size()), l, e}, torch::kFloat);
    float* dst = x.data_ptr<float>();
    for (size_t b = 0; b < which.size(); ++b) {
      std::copy_n(packs.row(packs.pack_begin(which[b])), l * e, dst + b * l * e);
    }
    return x;
  }

  TlpParams params_;
  std::shared_ptr<const TlpAuxiliaryData> auxiliary_;
  int64_t columns_ = 0;
  int64_t outputs_ = 1;
  mutable TlpNet net_{nullptr};  // torch modules have no const forward
};

absl::StatusOr<FitReport> TlpPackRegressor::Fit(const PackedRows& packs,
                                                const std::vector<float>& labels) {
  const auto start = std::chrono::steady_clock::now();
  if (static_cast<int>(labels.size()) != packs.num_packs()) {
    return absl::InvalidArgumentError(
        absl::StrCat("tlp: ", labels.size(), " labels for ", packs.num_packs(), " programs"));
  }
  // A fit chooses the width afresh.
  if (absl::Status st = CheckShape(packs, /*columns=*/0); !st.ok()) return st;
  std::vector<int> items(packs.num_packs());
  bool any_positive = false;
  for (int p = 0; p < packs.num_packs(); ++p) {
    items[p] = p;
    any_positive = any_positive || labels[p] > 0;
  }
  if (items.empty() || !any_positive) {
    return absl::FailedPreconditionError("tlp: nothing to learn (no programs or every label is 0)");
  }
  // MTL-TLP: the auxiliary programs are items n.. of the same shuffled
  // list, so a mini-batch mixes both devices; each head's LambdaRank sees
  // only its own device's programs (the other's labels are masked out).
  const int n = packs.num_packs();
  const int64_t outputs = auxiliary_ ? 2 : 1;
  if (auxiliary_) {
    if (auxiliary_->packs.num_columns() != packs.num_columns()) {
      return absl::InvalidArgumentError("tlp: auxiliary programs have another row width");
    }
    if (absl::Status st = CheckShape(auxiliary_->packs, 0); !st.ok()) return st;
    for (int p = 0; p < auxiliary_->packs.num_packs(); ++p) items.push_back(n + p);
  }
  const TorchThreads threads(params_.num_threads);
  torch::manual_seed(params_.seed);
  TlpNet net(packs.num_columns(), params_.hidden_dim, params_.heads, outputs);
  net->train();
  const RankTrainingSchedule schedule{.max_epochs = params_.max_epochs,
                                      .early_stop_epochs = params_.max_epochs,  // none, as TLP
                                      .batch_size = params_.batch_size,
                                      .learning_rate = params_.learning_rate,
                                      .weight_decay = params_.weight_decay,
                                      .grad_clip_norm = params_.grad_clip_norm,
                                      .seed = params_.seed};
  const RankTrainingRun run =
      TrainRanking(net->parameters(), items, schedule, [&](const std::vector<int>& batch) {
        std::vector<int> target, aux;
        std::vector<float> target_y, aux_y;
        for (int item : batch) {
          if (item < n) {
            target.push_back(item);
            target_y.push_back(labels[item]);
          } else {
            aux.push_back(item - n);
            aux_y.push_back(auxiliary_->labels[item - n]);
          }
        }
        torch::Tensor loss;
        auto add = [&](const torch::Tensor& term) { loss = loss.defined() ? loss + term : term; };
        if (target.size() >= 2) {
          add(LambdaRankLoss(net->Score(net->Trunk(Batch(packs, target)), 0),
                             torch::tensor(target_y)));
        }
        if (aux.size() >= 2) {
          add(LambdaRankLoss(net->Score(net->Trunk(Batch(auxiliary_->packs, aux)), 1),
                             torch::tensor(aux_y)));
        }
        return loss;  // undefined (skipped) when neither list has a pair
      });
  net->eval();
  net_ = net;
  columns_ = packs.num_columns();
  outputs_ = outputs;
  FitReport report;
  report.iterations = run.epochs;
  report.train_loss = run.smoothed_loss;
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

absl::StatusOr<std::vector<double>> TlpPackRegressor::Predict(const PackedRows& packs) const {
  if (net_.is_empty()) return absl::FailedPreconditionError("tlp: predict before training");
  if (absl::Status st = CheckShape(packs, columns_); !st.ok()) return st;
  const TorchThreads threads(params_.num_threads);
  torch::NoGradGuard no_grad;
  return ScoreInChunks(packs.num_packs(), /*chunk=*/2048, [&](const std::vector<int>& chunk) {
    return net_->forward(Batch(packs, chunk));
  });
}

absl::StatusOr<std::string> TlpPackRegressor::Save() const {
  if (net_.is_empty()) return absl::FailedPreconditionError("tlp: save before training");
  return SaveArchive("tlp", [&](torch::serialize::OutputArchive& archive) {
    net_->save(archive);
    archive.write("shape", torch::tensor({static_cast<int64_t>(params_.rows), columns_,
                                          static_cast<int64_t>(params_.hidden_dim),
                                          static_cast<int64_t>(params_.heads), outputs_}));
  });
}

absl::Status TlpPackRegressor::Load(std::string_view bytes) {
  return LoadArchive("tlp", bytes, [&](torch::serialize::InputArchive& archive) {
    torch::Tensor shape;
    archive.read("shape", shape);
    if (shape.numel() != 5) return absl::InvalidArgumentError("tlp: malformed checkpoint");
    // The checkpoint fixes the network's shape; training knobs stay ours.
    TlpParams params = params_;
    params.rows = static_cast<int>(shape[0].item<int64_t>());
    const int64_t columns = shape[1].item<int64_t>();
    params.hidden_dim = static_cast<int>(shape[2].item<int64_t>());
    params.heads = static_cast<int>(shape[3].item<int64_t>());
    const int64_t outputs = shape[4].item<int64_t>();
    if (outputs < 1 || outputs > 16) return absl::InvalidArgumentError("tlp: malformed checkpoint");
    TlpNet net(columns, params.hidden_dim, params.heads, outputs);
    net->load(archive);
    net->eval();
    params_ = params;
    columns_ = columns;
    outputs_ = outputs;
    net_ = net;
    return absl::OkStatus();
  });
}

}  // namespace

std::unique_ptr<PackRegressor> MakeTlpPackRegressor(
    const TlpParams& params, std::shared_ptr<const TlpAuxiliaryData> auxiliary) {
  return std::make_unique<TlpPackRegressor>(params, std::move(auxiliary));
}

}  // namespace pruner
