#include "common/model/autotvm_model.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <string_view>
#include <thread>
#include <utility>

#include <xgboost/c_api.h>  // XGBoosterUpdateOneIter

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/base/parallel_for.h"
#include "common/base/status_macros.h"
#include "common/features/autotvm_features.h"
#include "common/lower/lower.h"
#include "common/model/checkpoint.h"
#include "common/model/xgb_handles.h"
#include "common/model/xgb_regressor.h"

namespace pruner {
namespace {

constexpr char kName[] = "autotvm";

// Rows of one matrix grouped by workload: what a fit needs.
struct RankData {
  int columns = 0;
  std::vector<float> values;        // row-major
  std::vector<float> labels;
  std::vector<unsigned> groups;     // consecutive rows per workload
  std::vector<float> base_margin;   // empty: none
};

absl::Status Configure(void* booster, const AutotvmXgbParams& p) {
  const std::pair<const char*, std::string> settings[] = {
      {"objective", p.rank ? "rank:pairwise" : "reg:squarederror"},
      {"max_depth", absl::StrCat(p.max_depth)},
      {"gamma", absl::StrCat(p.gamma)},
      {"min_child_weight", absl::StrCat(p.min_child_weight)},
      {"eta", absl::StrCat(p.eta)},
      {"lambda", absl::StrCat(p.lambda)},
      {"alpha", "0"},
      {"subsample", "1"},
      // TVM leaves XGBoost's default ("exact" at these sizes); "hist" fits
      // tens of thousands of rows far faster, as in xgb_regressor.h.
      {"tree_method", "hist"},
      {"nthread", absl::StrCat(p.nthread > 0 ? p.nthread : DefaultXgbThreads())},
      {"seed", absl::StrCat(p.seed)},
      {"verbosity", "0"},
  };
  for (const auto& [name, value] : settings) {
    PRUNER_RETURN_IF_ERROR(SetXgbParam(booster, name, value));
  }
  return absl::OkStatus();
}

// Mean over query groups of TVM's a-recall@N.
double GroupedRecall(const std::vector<float>& predictions, const RankData& data, int n) {
  double sum = 0;
  int counted = 0;
  size_t begin = 0;
  for (unsigned size : data.groups) {
    if (size >= 2) {
      const std::vector<float> p(predictions.begin() + begin, predictions.begin() + begin + size);
      const std::vector<float> y(data.labels.begin() + begin, data.labels.begin() + begin + size);
      sum += AverageRecallAtN(p, y, n);
      ++counted;
    }
    begin += size;
  }
  return counted > 0 ? sum / counted : 0;
}

// TVM's fit: boost one round at a time, score a-recall on the training
// data every second round, stop after `early_stopping_rounds` without a
// better one, keep every tree (TVM predicts with the whole booster).
absl::StatusOr<XgbBooster> FitBooster(const RankData& data, const AutotvmXgbParams& params,
                                      int* rounds) {
  const int64_t rows = static_cast<int64_t>(data.labels.size());
  PRUNER_ASSIGN_OR_RETURN(XgbDMatrix train, MakeXgbDMatrix(data.values.data(), rows, data.columns));
  PRUNER_RETURN_IF_ERROR(SetXgbFloatInfo(train.get(), "label", data.labels));
  PRUNER_RETURN_IF_ERROR(SetXgbGroups(train.get(), data.groups));
  if (!data.base_margin.empty()) {
    PRUNER_RETURN_IF_ERROR(SetXgbFloatInfo(train.get(), "base_margin", data.base_margin));
  }
  PRUNER_ASSIGN_OR_RETURN(XgbBooster booster, MakeXgbBooster(train.get()));
  PRUNER_RETURN_IF_ERROR(Configure(booster.get(), params));
  double best = -1;
  int best_round = 0, round = 0;
  for (; round < params.max_rounds; ++round) {
    PRUNER_RETURN_IF_ERROR(XgbStatus(XGBoosterUpdateOneIter(booster.get(), round, train.get()),
                                     "boost"));
    if (round % 2 != 0) continue;
    PRUNER_ASSIGN_OR_RETURN(std::vector<float> scores,
                            PredictXgbMargins(booster.get(), train.get(), rows, /*training=*/true));
    const double recall = GroupedRecall(scores, data, params.recall_at);
    if (recall > best) {
      best = recall;
      best_round = round;
    } else if (round - best_round >= params.early_stopping_rounds) {
      ++round;
      break;
    }
  }
  *rounds = round;
  return booster;
}

// One measured or candidate program as the model reads it.
struct Featurized {
  bool ok = false;
  AutotvmProgramFeatures features;
};

std::vector<Featurized> FeaturizeAll(int n, const std::function<const State&(int)>& state_at,
                                     const DeviceProfile& device, int threads) {
  std::vector<Featurized> out(n);
  if (threads <= 0) threads = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  ParallelFor(n, threads, [&](int i) {
    auto program = Lower(state_at(i), device);
    if (!program.ok()) return;
    out[i].features = AutotvmFeatures(*program);
    out[i].ok = true;
  });
  return out;
}

// Rows sorted into workload groups, labels y / max y per workload (failed
// records 0).
// `order_out` (may be null) receives the input index of each grouped row.
RankData GroupByWorkload(const std::vector<std::string>& workloads, const std::vector<float>& labels,
                         const std::vector<const std::vector<float>*>& rows, int columns,
                         std::vector<int>* order_out = nullptr) {
  std::vector<int> order(workloads.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return workloads[a] < workloads[b]; });
  RankData data;
  data.columns = columns;
  data.values.reserve(order.size() * columns);
  for (size_t k = 0; k < order.size(); ++k) {
    const int i = order[k];
    data.values.insert(data.values.end(), rows[i]->begin(), rows[i]->end());
    data.labels.push_back(labels[i]);
    if (k == 0 || workloads[i] != workloads[order[k - 1]]) data.groups.push_back(0);
    ++data.groups.back();
  }
  if (order_out != nullptr) *order_out = std::move(order);
  return data;
}

class AutotvmModel final : public CostModel {
 public:
  AutotvmModel(const DeviceProfile& device, const AutotvmModelOptions& options)
      : device_(device), options_(options), warmup_(MakeRandomModel(options.seed)) {}

  absl::Status FitBase(const std::vector<MeasuredState>& history);

  std::string Name() const override { return kName; }
  absl::Status Update(const std::vector<MeasuredState>& records) override;
  std::vector<double> Predict(const std::vector<State>& states) override;
  int64_t NumTrainingRecords() const override {
    return records_.empty() ? loaded_records_ : static_cast<int64_t>(records_.size());
  }
  bool Ranks() const override { return local_ || base_; }
  absl::StatusOr<std::string> Save() const override;
  absl::Status Load(std::string_view blob) override;

 private:
  // The base model's margins of programs' curve features.
  absl::StatusOr<std::vector<float>> BaseMargins(const std::vector<const Featurized*>& programs) const;
  double DiscountFor(const std::string& workload) const;
  absl::Status FitLocal();

  struct Record {
    std::string workload;
    double mean_cost_s = 0;
    bool ok = false;
    std::vector<float> itervar;
    float base_margin = 0;
  };

  DeviceProfile device_;
  AutotvmModelOptions options_;
  std::unique_ptr<CostModel> warmup_;
  XgbBooster base_, local_;
  std::vector<Record> records_;
  std::map<std::string, int64_t> local_count_;  // records per workload at the last fit
  int64_t loaded_records_ = 0;
};

absl::Status AutotvmModel::FitBase(const std::vector<MeasuredState>& history) {
  const std::vector<Featurized> f = FeaturizeAll(
      static_cast<int>(history.size()), [&](int i) -> const State& { return history[i].state; },
      device_, options_.featurize_threads);
  std::vector<MeasuredState> kept;
  std::vector<const std::vector<float>*> rows;
  for (size_t i = 0; i < history.size(); ++i) {
    if (!f[i].ok) continue;
    kept.push_back(history[i]);
    rows.push_back(&f[i].features.curve);
  }
  const std::vector<float> labels = NormalizedThroughputLabels(kept);
  const int64_t ok = std::count_if(labels.begin(), labels.end(), [](float y) { return y > 0; });
  if (ok < options_.min_history_records) return absl::OkStatus();  // TVM: no transfer
  std::vector<std::string> workloads;
  for (const MeasuredState& r : kept) workloads.push_back(r.workload_key);
  const RankData data = GroupByWorkload(workloads, labels, rows, kAutotvmCurveWidth);
  int rounds = 0;
  PRUNER_ASSIGN_OR_RETURN(base_, FitBooster(data, options_.base, &rounds));
  return absl::OkStatus();
}

absl::StatusOr<std::vector<float>> AutotvmModel::BaseMargins(
    const std::vector<const Featurized*>& programs) const {
  std::vector<float> values;
  values.reserve(programs.size() * kAutotvmCurveWidth);
  for (const Featurized* p : programs) {
    values.insert(values.end(), p->features.curve.begin(), p->features.curve.end());
  }
  const int64_t n = static_cast<int64_t>(programs.size());
  PRUNER_ASSIGN_OR_RETURN(XgbDMatrix m, MakeXgbDMatrix(values.data(), n, kAutotvmCurveWidth));
  return PredictXgbMargins(base_.get(), m.get(), n, /*training=*/false);
}

double AutotvmModel::DiscountFor(const std::string& workload) const {
  if (!base_) return 0;
  auto it = local_count_.find(workload);
  return TransferDiscount(it == local_count_.end() ? 0 : it->second, options_.plan_size,
                          options_.min_discount);
}

absl::Status AutotvmModel::Update(const std::vector<MeasuredState>& records) {
  const std::vector<Featurized> f = FeaturizeAll(
      static_cast<int>(records.size()), [&](int i) -> const State& { return records[i].state; },
      device_, options_.featurize_threads);
  std::vector<const Featurized*> programs;
  std::vector<size_t> added;
  for (size_t i = 0; i < records.size(); ++i) {
    if (!f[i].ok) continue;  // unscorable programs teach the ranking nothing
    records_.push_back({records[i].workload_key, records[i].mean_cost_s, records[i].ok,
                        f[i].features.itervar, 0.0f});
    programs.push_back(&f[i]);
    added.push_back(records_.size() - 1);
  }
  if (base_ && !programs.empty()) {
    PRUNER_ASSIGN_OR_RETURN(std::vector<float> margins, BaseMargins(programs));
    for (size_t k = 0; k < added.size(); ++k) records_[added[k]].base_margin = margins[k];
  }
  if (static_cast<int>(records_.size()) < options_.num_warmup_sample) return absl::OkStatus();
  return FitLocal();
}

absl::Status AutotvmModel::FitLocal() {
  std::vector<CostRecord> costs;
  std::vector<std::string> workloads;
  std::vector<const std::vector<float>*> rows;
  std::map<std::string, int64_t> count;
  for (const Record& r : records_) {
    costs.push_back({r.workload, r.mean_cost_s, r.ok});
    workloads.push_back(r.workload);
    rows.push_back(&r.itervar);
    ++count[r.workload];
  }
  const std::vector<float> labels = NormalizedThroughputLabels(costs);
  if (std::none_of(labels.begin(), labels.end(), [](float y) { return y > 0; })) {
    return absl::OkStatus();  // nothing ranks above anything yet
  }
  local_count_ = std::move(count);
  std::vector<int> order;
  RankData data = GroupByWorkload(workloads, labels, rows, kAutotvmItervarWidth, &order);
  if (base_) {
    for (int i : order) {
      data.base_margin.push_back(
          static_cast<float>(DiscountFor(records_[i].workload) * records_[i].base_margin));
    }
  }
  int rounds = 0;
  PRUNER_ASSIGN_OR_RETURN(local_, FitBooster(data, options_.local, &rounds));
  return absl::OkStatus();
}

std::vector<double> AutotvmModel::Predict(const std::vector<State>& states) {
  if (!local_ && !base_) return warmup_->Predict(states);
  const int n = static_cast<int>(states.size());
  std::vector<double> out(n, -std::numeric_limits<double>::infinity());
  const std::vector<Featurized> f = FeaturizeAll(
      n, [&](int i) -> const State& { return states[i]; }, device_, options_.featurize_threads);
  std::vector<const Featurized*> programs;
  std::vector<int> index;
  for (int i = 0; i < n; ++i) {
    if (!f[i].ok) continue;
    programs.push_back(&f[i]);
    index.push_back(i);
  }
  if (programs.empty()) return out;
  std::vector<float> margin(programs.size(), 0.0f);
  if (base_) {
    auto m = BaseMargins(programs);
    if (!m.ok()) return out;
    margin = *std::move(m);
  }
  if (!local_) {
    for (size_t k = 0; k < programs.size(); ++k) out[index[k]] = margin[k];
    return out;
  }
  std::vector<float> values;
  values.reserve(programs.size() * kAutotvmItervarWidth);
  // A Predict call scores one task's candidates: key each DAG once.
  std::map<const ComputeDag*, std::string> keys;
  for (size_t k = 0; k < programs.size(); ++k) {
    values.insert(values.end(), programs[k]->features.itervar.begin(),
                  programs[k]->features.itervar.end());
    if (base_) {
      const ComputeDag* dag = states[index[k]].original_dag().get();
      auto key = keys.find(dag);
      if (key == keys.end()) key = keys.emplace(dag, dag->WorkloadKey()).first;
      margin[k] *= static_cast<float>(DiscountFor(key->second));
    }
  }
  const int64_t rows = static_cast<int64_t>(programs.size());
  auto m = MakeXgbDMatrix(values.data(), rows, kAutotvmItervarWidth);
  if (!m.ok()) return out;
  if (base_ && !SetXgbFloatInfo(m->get(), "base_margin", margin).ok()) return out;
  auto scores = PredictXgbMargins(local_.get(), m->get(), rows, /*training=*/false);
  if (!scores.ok()) return out;
  for (size_t k = 0; k < programs.size(); ++k) out[index[k]] = (*scores)[k];
  return out;
}

// Payload: "<base bytes length>\n<base bytes><local bytes>" (either may be
// empty).
absl::StatusOr<std::string> AutotvmModel::Save() const {
  std::string base, local;
  if (base_) {
    PRUNER_ASSIGN_OR_RETURN(base, SaveXgbBooster(base_.get()));
  }
  if (local_) {
    PRUNER_ASSIGN_OR_RETURN(local, SaveXgbBooster(local_.get()));
  }
  ModelCheckpoint c;
  c.model = kName;
  c.device = device_.name;
  c.columns = kAutotvmItervarWidth;
  c.records = NumTrainingRecords();
  if (!base.empty() || !local.empty()) c.payload = absl::StrCat(base.size(), "\n", base, local);
  return EncodeCheckpoint(c);
}

absl::Status AutotvmModel::Load(std::string_view blob) {
  PRUNER_ASSIGN_OR_RETURN(ModelCheckpoint c, DecodeCheckpoint(blob));
  if (c.model != kName || c.device != device_.name || c.columns != kAutotvmItervarWidth) {
    return absl::InvalidArgumentError(absl::StrCat("autotvm: the checkpoint is of model ", c.model,
                                                   " on ", c.device, " with ", c.columns,
                                                   " columns"));
  }
  XgbBooster base, local;
  if (!c.payload.empty()) {
    const size_t eol = c.payload.find('\n');
    size_t base_len = 0;
    if (eol == std::string::npos || !absl::SimpleAtoi(c.payload.substr(0, eol), &base_len) ||
        eol + 1 + base_len > c.payload.size()) {
      return absl::InvalidArgumentError("autotvm: malformed checkpoint payload");
    }
    const std::string_view rest = std::string_view(c.payload).substr(eol + 1);
    const int threads = options_.local.nthread > 0 ? options_.local.nthread : DefaultXgbThreads();
    if (base_len > 0) {
      PRUNER_ASSIGN_OR_RETURN(base, LoadXgbBooster(rest.substr(0, base_len), threads));
    }
    if (rest.size() > base_len) {
      PRUNER_ASSIGN_OR_RETURN(local, LoadXgbBooster(rest.substr(base_len), threads));
    }
  }
  base_ = std::move(base);
  local_ = std::move(local);
  records_.clear();
  local_count_.clear();
  loaded_records_ = c.records;
  return absl::OkStatus();
}

}  // namespace

double AverageRecallAtN(const std::vector<float>& predictions, const std::vector<float>& labels,
                        int n) {
  const int size = static_cast<int>(labels.size());
  if (size == 0 || n <= 0) return 0;
  std::vector<int> by_label(size), rank(size), by_prediction(size);
  std::iota(by_label.begin(), by_label.end(), 0);
  std::stable_sort(by_label.begin(), by_label.end(),
                   [&](int a, int b) { return labels[a] > labels[b]; });
  for (int r = 0; r < size; ++r) rank[by_label[r]] = r;
  std::iota(by_prediction.begin(), by_prediction.end(), 0);
  std::stable_sort(by_prediction.begin(), by_prediction.end(),
                   [&](int a, int b) { return predictions[a] > predictions[b]; });
  // recall(i) counts the first i trials (j < i) whose true rank is <= i.
  const int limit = std::min(n, size);
  double sum = 0;
  for (int i = 0; i < limit; ++i) {
    int hits = 0;
    for (int j = 0; j < i; ++j) hits += rank[by_prediction[j]] <= i;
    sum += static_cast<double>(hits) / (i + 1);
  }
  return sum / n;
}

double TransferDiscount(int64_t local_records, int plan_size, double min_discount) {
  const double d = std::pow(2.0, -static_cast<double>(local_records) / std::max(plan_size, 1));
  return d < min_discount ? 0.0 : d;
}

absl::StatusOr<std::unique_ptr<CostModel>> MakeAutotvmModel(
    const DeviceProfile& device, const AutotvmModelOptions& options,
    const std::vector<MeasuredState>& history) {
  auto model = std::make_unique<AutotvmModel>(device, options);
  if (!history.empty()) PRUNER_RETURN_IF_ERROR(model->FitBase(history));
  return std::unique_ptr<CostModel>(std::move(model));
}

}  // namespace pruner
