#include "common/model/ensemble_model.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <string_view>
#include <unordered_map>

#include "absl/strings/str_cat.h"
#include "common/ir/compute_dag.h"

namespace pruner {
namespace {

constexpr std::string_view kMagic = "pruner-ensemble-v1\n";

class EnsembleModel final : public CostModel {
 public:
  EnsembleModel(std::string name, std::vector<std::unique_ptr<CostModel>> members)
      : name_(std::move(name)), members_(std::move(members)) {}

  std::string Name() const override { return name_; }

  absl::Status Update(const std::vector<MeasuredState>& records) override {
    absl::Status first;
    for (auto& m : members_) {
      absl::Status s = m->Update(records);
      if (!s.ok() && first.ok()) {
        first = absl::Status(s.code(), absl::StrCat(name_, ": ", m->Name(), ": ", s.message()));
      }
    }
    return first;
  }

  std::vector<double> Predict(const std::vector<State>& states) override {
    bool any_ranks = false;
    for (const auto& m : members_) any_ranks = any_ranks || m->Ranks();
    std::vector<std::vector<double>> scores;
    for (auto& m : members_) {
      if (any_ranks && !m->Ranks()) continue;
      scores.push_back(m->Predict(states));
    }
    return SumOfZScores(scores, WorkloadGroups(states));
  }

  int64_t NumTrainingRecords() const override {
    int64_t n = 0;
    for (const auto& m : members_) n = std::max(n, m->NumTrainingRecords());
    return n;
  }

  bool Ranks() const override {
    for (const auto& m : members_) {
      if (m->Ranks()) return true;
    }
    return false;
  }

  absl::StatusOr<std::string> Save() const override {
    std::string blob(kMagic);
    absl::StrAppend(&blob, members_.size(), "\n");
    for (const auto& m : members_) {
      absl::StatusOr<std::string> part = m->Save();
      if (!part.ok()) {
        return absl::Status(part.status().code(),
                            absl::StrCat(name_, ": ", m->Name(), ": ", part.status().message()));
      }
      absl::StrAppend(&blob, m->Name(), "\n", part->size(), "\n", *part);
    }
    return blob;
  }

  absl::Status Load(std::string_view blob) override {
    if (!blob.starts_with(kMagic)) {
      return absl::InvalidArgumentError(absl::StrCat(name_, ": not an ensemble checkpoint"));
    }
    blob.remove_prefix(kMagic.size());
    size_t count = 0;
    if (!ReadLine(blob, [&](std::string_view s) { return ParseSize(s, &count); }) ||
        count != members_.size()) {
      return absl::InvalidArgumentError(absl::StrCat(
          name_, ": the checkpoint holds another number of members than this ensemble's ",
          members_.size()));
    }
    // Parse everything before loading anything: a bad blob changes no member.
    std::vector<std::string_view> parts;
    for (const auto& m : members_) {
      std::string_view name;
      size_t size = 0;
      if (!ReadLine(blob, [&](std::string_view s) { name = s; return true; }) ||
          !ReadLine(blob, [&](std::string_view s) { return ParseSize(s, &size); }) ||
          size > blob.size()) {
        return absl::InvalidArgumentError(absl::StrCat(name_, ": truncated checkpoint"));
      }
      if (name != m->Name()) {
        return absl::InvalidArgumentError(absl::StrCat(name_, ": the checkpoint's member '", std::string(name),
                                                       "' stands where this ensemble has '",
                                                       m->Name(), "'"));
      }
      parts.push_back(blob.substr(0, size));
      blob.remove_prefix(size);
    }
    for (size_t i = 0; i < members_.size(); ++i) {
      absl::Status s = members_[i]->Load(parts[i]);
      if (!s.ok()) {
        return absl::Status(s.code(),
                            absl::StrCat(name_, ": ", members_[i]->Name(), ": ", s.message()));
      }
    }
    return absl::OkStatus();
  }

 private:
  // Takes the text up to the next newline off `blob` and hands it to `parse`.
  template <typename Parse>
  static bool ReadLine(std::string_view& blob, Parse parse) {
    const size_t end = blob.find('\n');
    if (end == std::string_view::npos) return false;
    const bool ok = parse(blob.substr(0, end));
    blob.remove_prefix(end + 1);
    return ok;
  }

  static bool ParseSize(std::string_view s, size_t* out) {
    const auto [end, error] = std::from_chars(s.data(), s.data() + s.size(), *out);
    return error == std::errc() && end == s.data() + s.size() && !s.empty();
  }

  // States of one workload share a group; the key is computed once per DAG.
  static std::vector<int> WorkloadGroups(const std::vector<State>& states) {
    std::unordered_map<const ComputeDag*, int> by_dag;
    std::unordered_map<std::string, int> by_key;
    std::vector<int> groups;
    groups.reserve(states.size());
    for (const State& s : states) {
      const ComputeDag* dag = s.original_dag().get();
      auto it = by_dag.find(dag);
      if (it == by_dag.end()) {
        const std::string key = dag ? dag->WorkloadKey() : std::string();
        const int group = by_key.emplace(key, static_cast<int>(by_key.size())).first->second;
        it = by_dag.emplace(dag, group).first;
      }
      groups.push_back(it->second);
    }
    return groups;
  }

  std::string name_;
  std::vector<std::unique_ptr<CostModel>> members_;
};

}  // namespace

std::vector<double> SumOfZScores(const std::vector<std::vector<double>>& scores,
                                 const std::vector<int>& groups) {
  const size_t n = groups.size();
  std::vector<double> sum(n, 0.0);
  int num_groups = 0;
  for (int g : groups) num_groups = std::max(num_groups, g + 1);
  for (const std::vector<double>& s : scores) {
    // Mean and standard deviation of each group's finite scores.
    std::vector<double> total(num_groups, 0.0), squares(num_groups, 0.0);
    std::vector<int> count(num_groups, 0);
    for (size_t i = 0; i < n; ++i) {
      if (!std::isfinite(s[i])) continue;
      total[groups[i]] += s[i];
      ++count[groups[i]];
    }
    for (size_t i = 0; i < n; ++i) {
      if (!std::isfinite(s[i])) continue;
      const double d = s[i] - total[groups[i]] / count[groups[i]];
      squares[groups[i]] += d * d;
    }
    for (size_t i = 0; i < n; ++i) {
      if (!std::isfinite(s[i])) {
        sum[i] = -std::numeric_limits<double>::infinity();
        continue;
      }
      const int g = groups[i];
      const double sd = std::sqrt(squares[g] / count[g]);
      // A member that scores a whole group alike says nothing about its order.
      sum[i] += sd > 0 ? (s[i] - total[g] / count[g]) / sd : 0.0;
    }
  }
  return sum;
}

absl::StatusOr<std::unique_ptr<CostModel>> MakeEnsembleModel(
    std::string name, std::vector<std::unique_ptr<CostModel>> members) {
  if (members.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": an ensemble needs a member"));
  }
  for (const auto& m : members) {
    if (m == nullptr) return absl::InvalidArgumentError(absl::StrCat(name, ": a null member"));
  }
  return std::unique_ptr<CostModel>(new EnsembleModel(std::move(name), std::move(members)));
}

}  // namespace pruner
