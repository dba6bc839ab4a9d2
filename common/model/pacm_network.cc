// The PaCM translation unit that includes LibTorch (see pacm_network.h).
#include "common/model/pacm_network.h"

#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <sstream>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/base/absl_compat.h"
#include "common/base/status_macros.h"
#include "common/model/torch_rank_training.h"

namespace pruner {
namespace {

namespace nn = torch::nn;

// Programs per forward pass at inference and in the BatchNorm pass (Pruner's
// inference batch); bounds memory, not results (eval mode).
constexpr int kChunkPrograms = 4096;

struct PaCMNetImpl : nn::Module {
  explicit PaCMNetImpl(const PaCMNetworkShape& s)
      : statement0(register_module("statement0", nn::Linear(kPaCMStatementWidth, s.hidden))),
        statement1(register_module("statement1", nn::Linear(s.hidden, s.hidden))),
        block0(register_module("block0", nn::Linear(kDataflowBlockWidth, s.block_hidden))),
        block1(register_module("block1", nn::Linear(s.block_hidden, s.attention_dim))),
        attention(register_module(
            "attention", nn::MultiheadAttention(
                             nn::MultiheadAttentionOptions(s.attention_dim, s.heads).dropout(0.0)))),
        fuse(register_module("fuse", nn::Linear(s.hidden + s.attention_dim + s.symbol_hidden,
                                                s.hidden))),
        norm(register_module("norm", nn::BatchNorm1d(s.hidden))),
        residual0(register_module("residual0", nn::Linear(s.hidden, s.hidden))),
        residual1(register_module("residual1", nn::Linear(s.hidden, s.hidden))),
        out(register_module("out", nn::Linear(s.hidden, 1))) {
    // Registered last so that a network without the branch draws exactly
    // the initial weights Pruner's does for a seed.
    if (s.symbol_hidden > 0) {
      symbol0 = register_module("symbol0", nn::Linear(kProgramSymbolWidth, s.symbol_hidden));
      symbol1 = register_module("symbol1", nn::Linear(s.symbol_hidden, s.symbol_hidden));
    }
  }

  // Everything before the BatchNorm: [n, hidden].
  //   rows [R, 174], row_program [R] int64 in [0, n), blocks [n, 8, 23],
  //   symbols [n, kProgramSymbolWidth] (read only with the analyzer branch).
  torch::Tensor Trunk(const torch::Tensor& rows, const torch::Tensor& row_program,
                      const torch::Tensor& blocks, const torch::Tensor& symbols, int64_t n) {
    torch::Tensor s = torch::relu(statement1(torch::relu(statement0(rows))));
    s = torch::zeros({n, s.size(1)}, s.options()).index_add(0, row_program, s);
    // LibTorch 1.13's attention takes [sequence, batch, embedding].
    torch::Tensor h = torch::relu(block1(torch::relu(block0(blocks)))).transpose(0, 1);
    torch::Tensor a = std::get<0>(attention->forward(h, h, h, /*key_padding_mask=*/{},
                                                     /*need_weights=*/false)) +
                      h;
    torch::Tensor b = a.sum(std::vector<int64_t>{0});
    if (symbol0.is_empty()) return torch::relu(fuse(torch::cat({s, b}, /*dim=*/1)));
    torch::Tensor p = torch::relu(symbol1(torch::relu(symbol0(symbols))));
    return torch::relu(fuse(torch::cat({s, b, p}, /*dim=*/1)));
  }

  // [n] scores from Trunk's output.
  torch::Tensor Head(const torch::Tensor& trunk) {
    torch::Tensor z = norm(trunk);
    z = z + torch::relu(residual0(z));
    z = z + torch::relu(residual1(z));
    return out(z).squeeze(1);
  }

  torch::Tensor forward(const torch::Tensor& rows, const torch::Tensor& row_program,
                        const torch::Tensor& blocks, const torch::Tensor& symbols, int64_t n) {
    return Head(Trunk(rows, row_program, blocks, symbols, n));
  }

  nn::Linear statement0, statement1, block0, block1;
  nn::MultiheadAttention attention;
  nn::Linear fuse;
  nn::BatchNorm1d norm;
  nn::Linear residual0, residual1, out;
  nn::Linear symbol0{nullptr}, symbol1{nullptr};
};
TORCH_MODULE(PaCMNet);

// Parameters that exist: LibTorch's attention registers undefined
// placeholders for the projections it does not use.
std::vector<std::pair<std::string, torch::Tensor>> DefinedParameters(const PaCMNet& net) {
  std::vector<std::pair<std::string, torch::Tensor>> out;
  for (const auto& item : net->named_parameters()) {
    if (item.value().defined()) out.emplace_back(item.key(), item.value());
  }
  return out;
}

std::vector<std::pair<std::string, torch::Tensor>> DefinedBuffers(const PaCMNet& net) {
  std::vector<std::pair<std::string, torch::Tensor>> out;
  for (const auto& item : net->named_buffers()) {
    if (item.value().defined()) out.emplace_back(item.key(), item.value());
  }
  return out;
}

template <size_t kWidth>
torch::Tensor ScaleTensor(const std::array<float, kWidth>& scale) {
  return torch::tensor(std::vector<float>(scale.begin(), scale.end()));
}

// ScaleTensor's inverse; false when the tensor has another width.
template <size_t kWidth>
bool ReadScale(const torch::Tensor& tensor, std::array<float, kWidth>* scale) {
  if (tensor.numel() != static_cast<int64_t>(kWidth)) return false;
  const torch::Tensor values = tensor.to(torch::kFloat).contiguous();
  std::copy_n(values.data_ptr<float>(), kWidth, scale->begin());
  return true;
}

// A PaCMBatch as tensors, scaled; the rows of program p are
// [first_row[p], first_row[p + 1]) (PaCMBatch keeps them contiguous).
struct BatchTensors {
  torch::Tensor rows;         // [R, 174]
  torch::Tensor row_program;  // [R] int64
  torch::Tensor blocks;       // [N, 8, 23]
  torch::Tensor symbols;      // [N, kProgramSymbolWidth]
  std::vector<int64_t> first_row;
};

BatchTensors ToTensors(const PaCMBatch& batch, const torch::Tensor& statement_scale,
                       const torch::Tensor& block_scale, const torch::Tensor& symbol_scale) {
  BatchTensors t;
  const int64_t num_rows = batch.num_rows();
  const int64_t n = batch.num_programs;
  // from_blob only reads here: the division makes new tensors.
  t.rows = torch::from_blob(const_cast<float*>(batch.statements.data()),
                            {num_rows, kPaCMStatementWidth}, torch::kFloat) /
           statement_scale;
  t.row_program = torch::from_blob(const_cast<int32_t*>(batch.statement_program.data()),
                                   {num_rows}, torch::kInt)
                      .to(torch::kLong);
  t.blocks = torch::from_blob(const_cast<float*>(batch.blocks.data()),
                              {n, kNumDataflowBlocks, kDataflowBlockWidth}, torch::kFloat) /
             block_scale;
  t.symbols = torch::from_blob(const_cast<float*>(batch.symbols.data()), {n, kProgramSymbolWidth},
                               torch::kFloat) /
              symbol_scale;
  t.first_row.assign(n + 1, num_rows);
  for (int64_t r = num_rows - 1; r >= 0; --r) t.first_row[batch.statement_program[r]] = r;
  return t;
}

// The inputs of the programs `which` (in that order), with batch-local
// program ids.
struct Gathered {
  torch::Tensor rows, row_program, blocks, symbols;
  int64_t n = 0;
};

Gathered Gather(const BatchTensors& t, const std::vector<int>& which) {
  std::vector<int64_t> rows, owner;
  for (size_t b = 0; b < which.size(); ++b) {
    for (int64_t r = t.first_row[which[b]]; r < t.first_row[which[b] + 1]; ++r) {
      rows.push_back(r);
      owner.push_back(static_cast<int64_t>(b));
    }
  }
  torch::Tensor programs = torch::tensor(std::vector<int64_t>(which.begin(), which.end()));
  return {t.rows.index_select(0, torch::tensor(rows)), torch::tensor(owner),
          t.blocks.index_select(0, programs), t.symbols.index_select(0, programs),
          static_cast<int64_t>(which.size())};
}

// Sets BatchNorm's running mean and unbiased variance to the statistics of
// the finished network's pre-norm activations over `programs` (>= 2).
void EstimateNormStatistics(PaCMNet& net, const BatchTensors& t, const std::vector<int>& programs) {
  torch::NoGradGuard no_grad;
  net->eval();
  const int64_t width = net->norm->running_mean.size(0);
  torch::Tensor sum = torch::zeros({width}, torch::kDouble);
  torch::Tensor sum_sq = torch::zeros({width}, torch::kDouble);
  for (size_t begin = 0; begin < programs.size(); begin += kChunkPrograms) {
    const size_t end = std::min(programs.size(), begin + kChunkPrograms);
    Gathered g = Gather(t, std::vector<int>(programs.begin() + begin, programs.begin() + end));
    torch::Tensor z =
        net->Trunk(g.rows, g.row_program, g.blocks, g.symbols, g.n).to(torch::kDouble);
    sum += z.sum(std::vector<int64_t>{0});
    sum_sq += (z * z).sum(std::vector<int64_t>{0});
  }
  const double n = static_cast<double>(programs.size());
  torch::Tensor mean = sum / n;
  torch::Tensor var = ((sum_sq - n * mean * mean) / (n - 1)).clamp_min(0.0);
  net->norm->running_mean.copy_(mean.to(torch::kFloat));
  net->norm->running_var.copy_(var.to(torch::kFloat));
}

// The first line of an exception's message (LibTorch appends backtraces).
std::string FirstLine(const std::exception& e) {
  std::string what = e.what();
  return what.substr(0, what.find('\n'));
}

}  // namespace

absl::Status PaCMNetworkShape::Validate() const {
  if (hidden <= 0 || block_hidden <= 0 || attention_dim <= 0 || heads <= 0 ||
      symbol_hidden < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "pacm: layer widths must be positive (hidden ", hidden, ", block_hidden ", block_hidden,
        ", attention_dim ", attention_dim, ", heads ", heads, ", symbol_hidden ", symbol_hidden,
        " may be 0)"));
  }
  if (attention_dim % heads != 0) {
    return absl::InvalidArgumentError(absl::StrCat("pacm: attention_dim ", attention_dim,
                                                   " is not a multiple of heads ", heads));
  }
  return absl::OkStatus();
}

struct PaCMNetwork::Impl {
  PaCMNetworkShape shape;
  PaCMNet net{nullptr};
  PaCMColumnScales scales;
  torch::Tensor statement_scale = ScaleTensor(PaCMColumnScales().statement);
  torch::Tensor block_scale = ScaleTensor(PaCMColumnScales().block);
  torch::Tensor symbol_scale = ScaleTensor(PaCMColumnScales().symbol);

  void SetScales(const PaCMColumnScales& s) {
    scales = s;
    statement_scale = ScaleTensor(s.statement);
    block_scale = ScaleTensor(s.block);
    symbol_scale = ScaleTensor(s.symbol);
  }
};

PaCMNetwork::PaCMNetwork(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
PaCMNetwork::~PaCMNetwork() = default;

absl::StatusOr<std::unique_ptr<PaCMNetwork>> PaCMNetwork::Create(const PaCMNetworkShape& shape,
                                                                 uint64_t seed) {
  PRUNER_RETURN_IF_ERROR(shape.Validate());
  auto impl = std::make_unique<Impl>();
  impl->shape = shape;
  torch::manual_seed(seed);
  impl->net = PaCMNet(shape);
  impl->net->eval();
  return std::unique_ptr<PaCMNetwork>(new PaCMNetwork(std::move(impl)));
}

std::unique_ptr<PaCMNetwork> PaCMNetwork::Clone() const {
  auto impl = std::make_unique<Impl>();
  impl->shape = impl_->shape;
  impl->net = PaCMNet(impl_->shape);
  impl->SetScales(impl_->scales);
  torch::NoGradGuard no_grad;
  auto copy = [](const auto& from, const auto& to) {
    for (size_t i = 0; i < from.size(); ++i) to[i].second.copy_(from[i].second);
  };
  copy(DefinedParameters(impl_->net), DefinedParameters(impl->net));
  copy(DefinedBuffers(impl_->net), DefinedBuffers(impl->net));
  impl->net->eval();
  return std::unique_ptr<PaCMNetwork>(new PaCMNetwork(std::move(impl)));
}

const PaCMNetworkShape& PaCMNetwork::shape() const { return impl_->shape; }
const PaCMColumnScales& PaCMNetwork::scales() const { return impl_->scales; }

absl::StatusOr<FitReport> PaCMNetwork::Train(const PaCMBatch& batch,
                                             const std::vector<float>& labels,
                                             const PaCMTrainingParams& params,
                                             const std::vector<int>* workloads,
                                             const std::vector<float>* list_weights) {
  const auto start = std::chrono::steady_clock::now();
  if (static_cast<int>(labels.size()) != batch.num_programs) {
    return absl::InvalidArgumentError(
        absl::StrCat("pacm: ", labels.size(), " labels for ", batch.num_programs, " programs"));
  }
  if (workloads != nullptr && static_cast<int>(workloads->size()) != batch.num_programs) {
    return absl::InvalidArgumentError(absl::StrCat("pacm: ", workloads->size(),
                                                   " workload ids for ", batch.num_programs,
                                                   " programs"));
  }
  if (list_weights != nullptr) {
    if (workloads == nullptr) {
      return absl::InvalidArgumentError("pacm: list weights without workload ids");
    }
    for (int w : *workloads) {
      if (w < 0 || w >= static_cast<int>(list_weights->size())) {
        return absl::InvalidArgumentError(absl::StrCat(
            "pacm: workload ", w, " has no list weight (", list_weights->size(), " weights)"));
      }
    }
  }
  const std::vector<int>* lists =
      params.schedule.per_workload_lists ? workloads : nullptr;
  std::vector<int> usable;
  bool any_positive = false;
  for (int p = 0; p < batch.num_programs; ++p) {
    if (!batch.valid[p]) continue;
    usable.push_back(p);
    any_positive = any_positive || labels[p] > 0;
  }
  if (usable.size() < 2 || !any_positive) {
    return absl::FailedPreconditionError(absl::StrCat(
        "pacm: nothing to rank (", usable.size(), " valid programs, ",
        any_positive ? "some" : "no", " positive label)"));
  }
  try {
    const TorchThreads threads(params.num_threads);
    impl_->SetScales(PaCMColumnScales::Fit(batch));
    const BatchTensors t =
        ToTensors(batch, impl_->statement_scale, impl_->block_scale, impl_->symbol_scale);
    PaCMNet& net = impl_->net;
    std::vector<torch::Tensor> parameters;
    for (auto& [name, p] : DefinedParameters(net)) parameters.push_back(p);

    std::vector<torch::Tensor> best;
    auto remember_best = [&](bool improved) {
      if (!params.keep_best_epoch || !improved) return;
      best.clear();
      for (const torch::Tensor& p : parameters) best.push_back(p.detach().clone());
    };
    net->train();
    const RankTrainingRun run = TrainRanking(
        parameters, usable, params.schedule,
        [&](const std::vector<int>& programs) -> torch::Tensor {
          if (programs.size() < 2) return {};
          Gathered g = Gather(t, programs);
          std::vector<float> y(programs.size());
          for (size_t i = 0; i < programs.size(); ++i) y[i] = labels[programs[i]];
          torch::Tensor scores = net->forward(g.rows, g.row_program, g.blocks, g.symbols, g.n);
          const double gain = params.schedule.gain_exponent;
          if (lists == nullptr) return LambdaRankLoss(scores, torch::tensor(y), gain);
          std::vector<int> group(programs.size());
          for (size_t i = 0; i < programs.size(); ++i) group[i] = (*lists)[programs[i]];
          return GroupedLambdaRankLoss(scores, torch::tensor(y), group, gain, list_weights);
        },
        remember_best, lists);
    if (!best.empty()) {
      torch::NoGradGuard no_grad;
      for (size_t i = 0; i < parameters.size(); ++i) parameters[i].copy_(best[i]);
    }
    EstimateNormStatistics(net, t, usable);

    FitReport report;
    report.iterations = run.epochs;
    report.train_loss = run.smoothed_loss;
    report.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return report;
  } catch (const std::exception& e) {
    impl_->net->eval();
    return absl::InternalError(absl::StrCat("pacm: training failed: ", FirstLine(e)));
  }
}

std::vector<double> PaCMNetwork::Score(const PaCMBatch& batch, int num_threads) const {
  constexpr double kUnscorable = -std::numeric_limits<double>::infinity();
  std::vector<double> scores(batch.num_programs, kUnscorable);
  if (batch.num_programs == 0) return scores;
  const TorchThreads threads(num_threads);
  torch::NoGradGuard no_grad;
  PaCMNet& net = impl_->net;
  net->eval();
  const BatchTensors t =
      ToTensors(batch, impl_->statement_scale, impl_->block_scale, impl_->symbol_scale);
  for (int64_t begin = 0; begin < batch.num_programs; begin += kChunkPrograms) {
    const int64_t end = std::min<int64_t>(batch.num_programs, begin + kChunkPrograms);
    const int64_t row_begin = t.first_row[begin];
    const int64_t row_count = t.first_row[end] - row_begin;
    torch::Tensor s = net->forward(t.rows.narrow(0, row_begin, row_count),
                                   t.row_program.narrow(0, row_begin, row_count) - begin,
                                   t.blocks.narrow(0, begin, end - begin),
                                   t.symbols.narrow(0, begin, end - begin), end - begin)
                          .contiguous();
    const float* v = s.data_ptr<float>();
    for (int64_t p = begin; p < end; ++p) {
      if (batch.valid[p]) scores[p] = v[p - begin];
    }
  }
  return scores;
}

absl::Status PaCMNetwork::MomentumUpdate(const PaCMNetwork& target, double momentum) {
  if (!(impl_->shape == target.impl_->shape)) {
    return absl::InvalidArgumentError("pacm: momentum update between networks of different shapes");
  }
  torch::NoGradGuard no_grad;
  const auto theirs = DefinedParameters(target.impl_->net);
  const auto mine = DefinedParameters(impl_->net);
  // φ_s + (1 − m)(φ_t − φ_s), the same as m·φ_s + (1 − m)·φ_t.
  for (size_t i = 0; i < mine.size(); ++i) {
    mine[i].second.lerp_(theirs[i].second, 1.0 - momentum);
  }
  return absl::OkStatus();
}

int64_t PaCMNetwork::NumParameterValues() const {
  int64_t n = 0;
  for (const auto& [name, p] : DefinedParameters(impl_->net)) n += p.numel();
  return n;
}

int64_t PaCMNetwork::NumBufferValues() const {
  int64_t n = 0;
  for (const auto& [name, b] : DefinedBuffers(impl_->net)) n += b.numel();
  return n;
}

std::vector<std::string> PaCMNetwork::ParameterNames() const {
  std::vector<std::string> names;
  for (const auto& [name, p] : DefinedParameters(impl_->net)) names.push_back(name);
  return names;
}

absl::StatusOr<std::vector<float>> PaCMNetwork::ParameterValues(std::string_view name) const {
  for (const auto& [key, p] : DefinedParameters(impl_->net)) {
    if (key != name) continue;
    torch::Tensor flat = p.detach().contiguous().view({-1});
    return std::vector<float>(flat.data_ptr<float>(), flat.data_ptr<float>() + flat.numel());
  }
  return absl::NotFoundError(absl::StrCat("pacm: no parameter '", ToAbsl(name), "'"));
}

absl::StatusOr<std::string> PaCMNetwork::Serialize() const {
  try {
    const PaCMNetworkShape& s = impl_->shape;
    torch::serialize::OutputArchive archive;
    // The module's own keys ("statement0", ...) and ours share the archive.
    impl_->net->save(archive);
    // Seven values as before the analyzer branch, then its width and the
    // vector's (so a network without it reads in builds that predate it).
    std::vector<int64_t> dims{s.hidden,           s.block_hidden,      s.attention_dim,
                              s.heads,            kPaCMStatementWidth, kDataflowBlockWidth,
                              kNumDataflowBlocks};
    if (s.symbol_hidden > 0) {
      dims.push_back(s.symbol_hidden);
      dims.push_back(kProgramSymbolWidth);
    }
    archive.write("pacm_shape", torch::tensor(dims));
    archive.write("statement_scale", impl_->statement_scale);
    archive.write("block_scale", impl_->block_scale);
    if (s.symbol_hidden > 0) archive.write("symbol_scale", impl_->symbol_scale);
    std::ostringstream out;
    archive.save_to(out);
    return out.str();
  } catch (const std::exception& e) {
    return absl::InternalError(absl::StrCat("pacm: serialize: ", FirstLine(e)));
  }
}

absl::StatusOr<std::unique_ptr<PaCMNetwork>> PaCMNetwork::Deserialize(std::string_view bytes) {
  try {
    std::istringstream in{std::string(bytes)};
    torch::serialize::InputArchive archive;
    archive.load_from(in);
    torch::Tensor dims, statement_scale, block_scale;
    archive.read("pacm_shape", dims);
    archive.read("statement_scale", statement_scale);
    archive.read("block_scale", block_scale);
    if (dims.scalar_type() != torch::kLong || (dims.numel() != 7 && dims.numel() != 9)) {
      return absl::InvalidArgumentError("pacm network: malformed shape record");
    }
    const std::vector<int64_t> d(dims.data_ptr<int64_t>(),
                                 dims.data_ptr<int64_t>() + dims.numel());
    if (d[4] != kPaCMStatementWidth || d[5] != kDataflowBlockWidth || d[6] != kNumDataflowBlocks) {
      return absl::InvalidArgumentError(absl::StrCat(
          "pacm network: trained on ", d[4], "-wide statement rows and ", d[6], " blocks of ",
          d[5], " values; this build extracts ", kPaCMStatementWidth, " and ",
          kNumDataflowBlocks, " of ", kDataflowBlockWidth));
    }
    if (d.size() == 9 && d[8] != kProgramSymbolWidth) {
      return absl::InvalidArgumentError(
          absl::StrCat("pacm network: trained on an analyzer vector of ", d[8],
                       " values; this build extracts ", kProgramSymbolWidth));
    }
    PaCMNetworkShape shape;
    shape.hidden = static_cast<int>(d[0]);
    shape.block_hidden = static_cast<int>(d[1]);
    shape.attention_dim = static_cast<int>(d[2]);
    shape.heads = static_cast<int>(d[3]);
    shape.symbol_hidden = d.size() == 9 ? static_cast<int>(d[7]) : 0;
    PRUNER_RETURN_IF_ERROR(shape.Validate());
    PaCMColumnScales scales;
    bool scales_read = ReadScale(statement_scale, &scales.statement) &&
                       ReadScale(block_scale, &scales.block);
    if (shape.symbol_hidden > 0) {
      torch::Tensor symbol_scale;
      archive.read("symbol_scale", symbol_scale);
      scales_read = scales_read && ReadScale(symbol_scale, &scales.symbol);
    }
    if (!scales_read) return absl::InvalidArgumentError("pacm network: malformed column scales");

    auto impl = std::make_unique<Impl>();
    impl->shape = shape;
    impl->net = PaCMNet(shape);
    impl->SetScales(scales);
    // Module::load adopts whatever tensors the archive holds, so compare
    // every shape with what the stored widths imply.
    std::map<std::string, std::vector<int64_t>> expected;
    for (const auto& [name, p] : DefinedParameters(impl->net)) expected[name] = p.sizes().vec();
    for (const auto& [name, b] : DefinedBuffers(impl->net)) expected[name] = b.sizes().vec();
    impl->net->load(archive);
    std::map<std::string, std::vector<int64_t>> loaded;
    for (const auto& [name, p] : DefinedParameters(impl->net)) loaded[name] = p.sizes().vec();
    for (const auto& [name, b] : DefinedBuffers(impl->net)) loaded[name] = b.sizes().vec();
    if (loaded != expected) {
      return absl::InvalidArgumentError("pacm network: tensor shapes do not match the layer widths");
    }
    impl->net->eval();
    return std::unique_ptr<PaCMNetwork>(new PaCMNetwork(std::move(impl)));
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("pacm network: unreadable: ", FirstLine(e)));
  }
}

}  // namespace pruner
