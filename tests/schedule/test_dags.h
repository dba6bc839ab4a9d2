// Small DAGs built directly from IR nodes, so the schedule core can be tested
// without the operator library.
#ifndef PRUNER_TESTS_SCHEDULE_TEST_DAGS_H_
#define PRUNER_TESTS_SCHEDULE_TEST_DAGS_H_

#include <memory>

#include "common/ir/compute_dag.h"

namespace pruner::testing {

inline OpRef MakePlaceholder(int id, std::string name, std::vector<int64_t> shape) {
  auto op = std::make_shared<Op>();
  op->id = id;
  op->name = std::move(name);
  op->kind = OpKind::kPlaceholder;
  op->shape = std::move(shape);
  return op;
}

// C[i, j] = sum_k A[i, k] * B[k, j]; optionally D = relu(C).
inline std::shared_ptr<const ComputeDag> MakeMatmulDag(int64_t m, int64_t n, int64_t k,
                                                       bool relu = false) {
  std::vector<OpRef> ops = {MakePlaceholder(0, "A", {m, k}), MakePlaceholder(1, "B", {k, n})};
  auto c = std::make_shared<Op>();
  c->id = 2;
  c->name = "C";
  c->kind = OpKind::kCompute;
  c->shape = {m, n};
  c->axes = {{"i", m}, {"j", n}};
  c->reduce_axes = {{"k", k}};
  c->reduce = ReduceKind::kSum;
  Expr i = Var(0, "i"), j = Var(1, "j"), kk = Var(2, "k");
  c->body = Mul(Read(0, "A", DType::kFloat32, {i, kk}), Read(1, "B", DType::kFloat32, {kk, j}));
  ops.push_back(c);
  if (relu) {
    auto d = std::make_shared<Op>();
    d->id = 3;
    d->name = "D";
    d->kind = OpKind::kCompute;
    d->shape = {m, n};
    d->axes = {{"i", m}, {"j", n}};
    d->body = Max(Read(2, "C", DType::kFloat32, {i, j}), FloatImm(0.0));
    ops.push_back(d);
  }
  auto dag = ComputeDag::Create(std::move(ops));
  return std::make_shared<const ComputeDag>(*std::move(dag));
}

}  // namespace pruner::testing

#endif  // PRUNER_TESTS_SCHEDULE_TEST_DAGS_H_
