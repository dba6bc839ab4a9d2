#include "tests/search/test_models.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "common/lower/lower.h"

namespace pruner::testing {

std::vector<double> CountingModel::Predict(const std::vector<State>& states) {
  batch_sizes_.push_back(states.size());
  std::vector<double> scores;
  scores.reserve(states.size());
  for (const State& s : states) scores.push_back(Score(s));
  return scores;
}

absl::Status CountingModel::Update(const std::vector<MeasuredState>& records) {
  records_ += static_cast<int64_t>(records.size());
  return absl::OkStatus();
}

double OracleModel::Score(const State& state) {
  auto program = Lower(state, device_);
  if (!program.ok()) return -std::numeric_limits<double>::infinity();
  return OracleScore(state, *program, device_);
}

namespace {

// The loops around one store, outermost first.
struct StorePath {
  std::vector<const StmtNode*> loops;
  const StmtNode* store = nullptr;
};

void CollectStores(const Stmt& s, std::vector<const StmtNode*>* stack,
                   std::vector<StorePath>* out) {
  if (s == nullptr) return;
  switch (s->kind) {
    case StmtKind::kFor:
      stack->push_back(s.get());
      CollectStores(s->body, stack, out);
      stack->pop_back();
      break;
    case StmtKind::kSeq:
      for (const Stmt& c : s->seq) CollectStores(c, stack, out);
      break;
    case StmtKind::kIfThenElse:
      CollectStores(s->body, stack, out);
      CollectStores(s->else_body, stack, out);
      break;
    case StmtKind::kAllocate:
      CollectStores(s->body, stack, out);
      break;
    case StmtKind::kStore:
      out->push_back(StorePath{*stack, s.get()});
      break;
    case StmtKind::kBarrier:
      break;
  }
}

double Iterations(const StorePath& p) {
  double n = 1;
  for (const StmtNode* l : p.loops) n *= static_cast<double>(l->extent);
  return n;
}

// Filling `units` workers with `work` parallel pieces: the share of the
// workers' time spent on useful work (last wave partly empty).
double Fill(double work, double units) {
  if (work <= 0 || units <= 0) return 0;
  return work / (std::ceil(work / units) * units);
}

}  // namespace

double OracleScore(const State& state, const Program& program, const DeviceProfile& device) {
  std::vector<StorePath> stores;
  for (const Kernel& k : program.kernels) {
    std::vector<const StmtNode*> stack;
    CollectStores(k.body, &stack, &stores);
  }
  // The heaviest reduction update (or plain store when nothing reduces).
  const StorePath* main = nullptr;
  bool main_reduces = false;
  for (const StorePath& p : stores) {
    const bool reduces = p.store->store_role == StoreRole::kReduceUpdate;
    if (main == nullptr || (reduces && !main_reduces) ||
        (reduces == main_reduces && Iterations(p) > Iterations(*main))) {
      main = &p;
      main_reduces = reduces;
    }
  }
  if (main == nullptr) return 0;

  auto is_reduce = [&](const StmtNode* loop) {
    if (loop->stage < 0 || loop->iter < 0 || loop->stage >= state.num_stages()) return false;
    const Stage& st = state.stage(loop->stage);
    return loop->iter < static_cast<int>(st.iters.size()) &&
           st.iter_kind(loop->iter) == IterKind::kReduce;
  };
  // Register tile: spatial iterations inside the innermost reduce loop.
  double tile = 1;
  for (auto it = main->loops.rbegin(); it != main->loops.rend() && !is_reduce(*it); ++it) {
    if (!IsThreadBindingKind((*it)->for_kind)) tile *= static_cast<double>((*it)->extent);
  }
  if (!main_reduces) tile = 1;
  constexpr double kRegisterTile = 64;  // elements one thread keeps busy
  const double reuse = tile <= kRegisterTile ? std::sqrt(tile / kRegisterTile)
                                             : kRegisterTile / tile;  // spills

  double parallel = 1, vector = 1;
  if (device.IsGpu()) {
    double threads_per_block = 1, blocks = 1;
    for (const StmtNode* l : main->loops) {
      if (IsThreadIdxKind(l->for_kind)) threads_per_block *= static_cast<double>(l->extent);
      if (IsBlockKind(l->for_kind)) blocks *= static_cast<double>(l->extent);
    }
    const double warp = std::max(device.warp_size, 1);
    const double warp_fill = threads_per_block / (std::ceil(threads_per_block / warp) * warp);
    const double slots = std::max(device.sm_count, 1) * 1024.0;
    parallel = warp_fill * std::min(1.0, blocks * threads_per_block / slots);
  } else {
    double par = 1, vec = 1;
    for (const StmtNode* l : main->loops) {
      if (l->for_kind == ForKind::kParallel) par *= static_cast<double>(l->extent);
      if (l->for_kind == ForKind::kVectorized) vec *= static_cast<double>(l->extent);
    }
    const double lanes = std::max(device.vector_unit_bytes / 4, 1);
    parallel = Fill(par, std::max(device.num_cores, 1));
    vector = std::min(vec, lanes) / lanes;
  }
  // Small floors keep every lowered state strictly positive and ordered.
  return (0.05 + parallel) * (0.05 + vector) * (0.05 + reuse) / (1.05 * 1.05 * 1.05);
}

double OracleModel::MeanScore(const std::vector<State>& states) {
  double sum = 0;
  for (const State& s : states) sum += Score(s);
  return states.empty() ? 0 : sum / static_cast<double>(states.size());
}

}  // namespace pruner::testing
