// Cost models for the search tests. None of them is a measurement or a model
// of real hardware:
// - OracleModel scores a state by an analytic proxy of its lowered program
//   (how well it fills the cores or SMs, how much of a vector it uses, how
//   large its register tile is). It is deterministic and smooth enough under
//   mutation for the evolutionary search to climb, which is all the tests
//   need to tell search from random sampling.
// - ConstantModel gives every state the same score (e.g. 0 or -1: the
//   roulette's all-nonpositive case).
// - UniformModel draws uniform [0, 1) scores like Ansor's RandomModel (for
//   tests that must not depend on the model library).
// Every model counts its Predict calls and the batch sizes it saw.
#ifndef PRUNER_TESTS_SEARCH_TEST_MODELS_H_
#define PRUNER_TESTS_SEARCH_TEST_MODELS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "common/device/device_profile.h"
#include "common/lower/program.h"
#include "common/model/cost_model.h"
#include "common/sketch/random.h"

namespace pruner::testing {

class CountingModel : public CostModel {
 public:
  std::vector<double> Predict(const std::vector<State>& states) final;
  absl::Status Update(const std::vector<MeasuredState>& records) override;
  int64_t NumTrainingRecords() const override { return records_; }
  absl::StatusOr<std::string> Save() const override { return std::string(); }
  absl::Status Load(std::string_view) override { return absl::OkStatus(); }

  int predict_calls() const { return static_cast<int>(batch_sizes_.size()); }
  const std::vector<size_t>& batch_sizes() const { return batch_sizes_; }

 protected:
  virtual double Score(const State& state) = 0;

 private:
  std::vector<size_t> batch_sizes_;
  int64_t records_ = 0;
};

class OracleModel : public CountingModel {
 public:
  explicit OracleModel(DeviceProfile device) : device_(std::move(device)) {}
  std::string Name() const override { return "oracle"; }
  // In (0, 1]; -inf when the state does not lower.
  double Score(const State& state) override;
  // The mean Score of `states`; 0 for none.
  double MeanScore(const std::vector<State>& states);

 private:
  DeviceProfile device_;
};

class ConstantModel : public CountingModel {
 public:
  explicit ConstantModel(double value) : value_(value) {}
  std::string Name() const override { return "constant"; }
  double Score(const State&) override { return value_; }

 private:
  double value_;
};

class UniformModel : public CountingModel {
 public:
  explicit UniformModel(uint64_t seed) : rng_(seed) {}
  // Claims to be the random model, so the policy caps its generations at 2
  // as it does for Ansor's RandomModel.
  std::string Name() const override { return "random"; }
  double Score(const State&) override { return rng_.UniformReal(); }

 private:
  Rng rng_;
};

// The oracle's proxy for a lowered program of `state`.
double OracleScore(const State& state, const Program& program, const DeviceProfile& device);

}  // namespace pruner::testing

#endif  // PRUNER_TESTS_SEARCH_TEST_MODELS_H_
