#include "common/schedule/state.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/base/status_macros.h"

namespace pruner {
namespace {

absl::Status Invalid(const Step& step, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("step '", StepToString(step), "': ", what));
}

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

IterKind KindOfAxis(const Op& op, int axis) {
  return axis < static_cast<int>(op.axes.size()) ? IterKind::kSpatial : IterKind::kReduce;
}

// A copy of `op` with a new body (ids and axes unchanged).
OpRef WithBody(const Op& op, Expr body) {
  auto copy = std::make_shared<Op>(op);
  copy->body = std::move(body);
  return copy;
}

// The same tensor (id, name, spatial axes, attrs) with no reduction and no
// body yet: what cache_write and rfactor turn the original stage into.
std::shared_ptr<Op> SpatialShell(const Op& op) {
  auto shell = std::make_shared<Op>();
  shell->id = op.id;
  shell->name = op.name;
  shell->kind = OpKind::kCompute;
  shell->dtype = op.dtype;
  shell->shape = op.shape;
  shell->axes = op.axes;
  shell->attrs = op.attrs;
  return shell;
}

int NextTensorId(const std::vector<Stage>& stages) {
  int id = 0;
  for (const Stage& s : stages) id = std::max(id, s.op->id + 1);
  return id;
}

}  // namespace

int Stage::IterIndexOfNode(int node) const {
  for (size_t i = 0; i < iters.size(); ++i) {
    if (iters[i].node == node) return static_cast<int>(i);
  }
  return -1;
}

Stage MakeStage(OpRef op) {
  Stage stage;
  stage.op = std::move(op);
  const Op& o = *stage.op;
  if (!o.is_placeholder()) {
    for (int i = 0; i < o.num_axes(); ++i) {
      const Axis& axis = i < static_cast<int>(o.axes.size())
                             ? o.axes[i]
                             : o.reduce_axes[i - o.axes.size()];
      stage.nodes.push_back(IterNode{axis.name, axis.extent, KindOfAxis(o, i)});
      stage.iters.push_back(Iterator{i, IterAnnotation::kNone});
    }
  }
  return stage;
}

void PropagateExtents(Stage* stage) {
  for (const IterRelation& rel : stage->relations) {
    if (rel.kind == IterRelation::Kind::kFuse) {
      int64_t product = 1;
      for (int in : rel.inputs) {
        const int64_t e = stage->nodes[in].extent;
        product = (product < 0 || e < 0) ? -1 : product * e;
      }
      stage->nodes[rel.outputs[0]].extent = product;
      continue;
    }
    const int64_t parent = stage->nodes[rel.inputs[0]].extent;
    if (rel.nparts) {
      const int64_t nparts = rel.lengths[0];
      stage->nodes[rel.outputs[0]].extent = nparts;
      stage->nodes[rel.outputs[1]].extent =
          (parent < 0 || nparts < 0) ? -1 : CeilDiv(parent, nparts);
      continue;
    }
    int64_t inner = 1;
    for (size_t i = 0; i < rel.lengths.size(); ++i) {
      stage->nodes[rel.outputs[i + 1]].extent = rel.lengths[i];
      inner = (inner < 0 || rel.lengths[i] < 0) ? -1 : inner * rel.lengths[i];
    }
    stage->nodes[rel.outputs[0]].extent = (parent < 0 || inner < 0) ? -1 : CeilDiv(parent, inner);
  }
}

absl::StatusOr<RootIndexing> ExpressRootsByLeaves(
    const Stage& stage, const std::function<Expr(int node)>& leaf_value) {
  std::vector<Expr> value(stage.nodes.size());
  for (const Iterator& it : stage.iters) value[it.node] = leaf_value(it.node);
  RootIndexing result;
  // Relations only create nodes, so walking them backwards resolves every
  // node whose outputs are already known.
  for (auto rel = stage.relations.rbegin(); rel != stage.relations.rend(); ++rel) {
    if (rel->kind == IterRelation::Kind::kSplit) {
      Expr sum;
      int64_t stride = 1;
      for (int i = static_cast<int>(rel->outputs.size()) - 1; i >= 0; --i) {
        const int out = rel->outputs[i];
        if (!value[out]) {
          return absl::InternalError(absl::StrCat("iterator '", stage.nodes[out].name,
                                                  "' of stage '", stage.op->name,
                                                  "' is neither a loop nor derived from one"));
        }
        if (stage.nodes[out].extent < 0) {
          return absl::FailedPreconditionError(
              absl::StrCat("stage '", stage.op->name, "' has an unchosen split length"));
        }
        Expr term = Mul(value[out], IntImm(stride));
        sum = sum ? Add(term, sum) : term;
        stride *= stage.nodes[out].extent;
      }
      const int parent = rel->inputs[0];
      value[parent] = sum;
      if (stride != stage.nodes[parent].extent) {
        result.guards.push_back(
            Compare(CompareOp::kLT, sum, IntImm(stage.nodes[parent].extent)));
      }
    } else {
      const Expr fused = value[rel->outputs[0]];
      if (!fused) {
        return absl::InternalError(absl::StrCat("fused iterator of stage '", stage.op->name,
                                                "' is neither a loop nor derived from one"));
      }
      int64_t stride = 1;
      for (int i = static_cast<int>(rel->inputs.size()) - 1; i >= 0; --i) {
        const int in = rel->inputs[i];
        const int64_t extent = stage.nodes[in].extent;
        Expr v = stride == 1 ? fused : FloorDiv(fused, IntImm(stride));
        if (i > 0) v = FloorMod(v, IntImm(extent));
        value[in] = v;
        stride *= extent;
      }
    }
  }
  for (int i = 0; i < stage.num_root_nodes(); ++i) {
    if (!value[i]) {
      return absl::InternalError(absl::StrCat("axis '", stage.nodes[i].name, "' of stage '",
                                              stage.op->name, "' has no loop"));
    }
    result.root_values.push_back(value[i]);
  }
  return result;
}

State State::Initial(std::shared_ptr<const ComputeDag> dag) {
  State state;
  state.original_dag_ = dag;
  state.current_dag_ = dag;
  for (const OpRef& op : dag->ops()) state.stages_.push_back(MakeStage(op));
  return state;
}

absl::StatusOr<State> State::Replay(std::shared_ptr<const ComputeDag> dag,
                                    const std::vector<Step>& steps) {
  State state = Initial(std::move(dag));
  for (size_t i = 0; i < steps.size(); ++i) {
    absl::Status st = state.Apply(steps[i]);
    if (!st.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("step ", i, ": ", st.message()));
    }
  }
  return state;
}

absl::Status State::CheckStage(int stage) const {
  if (stage < 0 || stage >= num_stages()) {
    return absl::InvalidArgumentError(
        absl::StrCat("stage ", stage, " does not exist (", num_stages(), " stages)"));
  }
  return absl::OkStatus();
}

absl::Status State::CheckIter(int stage, int iter) const {
  absl::Status st = CheckStage(stage);
  if (!st.ok()) return st;
  const Stage& s = stages_[stage];
  if (iter < 0 || iter >= static_cast<int>(s.iters.size())) {
    return absl::InvalidArgumentError(absl::StrCat("stage ", stage, " ('", s.op->name,
                                                   "') has no iterator ", iter, " (it has ",
                                                   s.iters.size(), ")"));
  }
  return absl::OkStatus();
}

absl::Status State::Apply(const Step& step) {
  absl::Status st = CheckStage(step.stage);
  if (!st.ok()) return Invalid(step, st.message());
  if (stages_[step.stage].is_placeholder() && step.kind != StepKind::kCacheRead) {
    return Invalid(step, absl::StrCat("stage '", stages_[step.stage].op->name,
                                      "' is a placeholder and cannot be scheduled"));
  }
  switch (step.kind) {
    case StepKind::kSplit: {
      std::vector<int64_t> lengths;
      for (const auto& l : step.lengths) lengths.push_back(l.value_or(-1));
      st = ApplySplit(step, lengths, false);
      break;
    }
    case StepKind::kFollowSplit:
    case StepKind::kFollowFusedSplit: {
      auto lengths = FollowedLengths(step);
      if (!lengths.ok()) return Invalid(step, lengths.status().message());
      st = ApplySplit(step, *lengths,
                      step.kind == StepKind::kFollowFusedSplit && !step.factor);
      break;
    }
    case StepKind::kReorder: st = ApplyReorder(step); break;
    case StepKind::kFuse: st = ApplyFuse(step); break;
    case StepKind::kAnnotation: st = ApplyAnnotation(step); break;
    case StepKind::kPragma: st = ApplyPragma(step); break;
    case StepKind::kComputeAt: st = ApplyComputeAt(step); break;
    case StepKind::kComputeInline: st = ApplyComputeInline(step); break;
    case StepKind::kComputeRoot: st = ApplyComputeRoot(step); break;
    case StepKind::kCacheRead: st = ApplyCacheRead(step); break;
    case StepKind::kCacheWrite: st = ApplyCacheWrite(step); break;
    case StepKind::kRfactor: st = ApplyRfactor(step); break;
  }
  if (!st.ok()) return st;
  steps_.push_back(step);
  return absl::OkStatus();
}

absl::StatusOr<std::vector<int64_t>> State::FollowedLengths(const Step& step) const {
  auto source = [&](int index) -> absl::StatusOr<const Step*> {
    if (index < 0 || index >= static_cast<int>(steps_.size()) ||
        steps_[index].kind != StepKind::kSplit) {
      return absl::InvalidArgumentError(absl::StrCat("step ", index, " is not an earlier split"));
    }
    return &steps_[index];
  };
  if (step.kind == StepKind::kFollowSplit) {
    PRUNER_ASSIGN_OR_RETURN(auto src, source(step.src_step));
    const auto& l = src->lengths;
    if (step.n_split < 1 || step.n_split > static_cast<int>(l.size())) {
      return absl::InvalidArgumentError(absl::StrCat("n_split ", step.n_split,
                                                     " does not fit a split of ", l.size(),
                                                     " lengths"));
    }
    std::vector<int64_t> out;
    int j = 0;
    for (; j < step.n_split - 1; ++j) out.push_back(l[j].value_or(-1));
    int64_t last = 1;
    for (; j < static_cast<int>(l.size()); ++j) {
      last = (last < 0 || !l[j].has_value()) ? -1 : last * *l[j];
    }
    out.push_back(last);
    return out;
  }
  if (step.ints.empty()) return absl::InvalidArgumentError("no source steps");
  int64_t length = 1;
  for (int index : step.ints) {
    PRUNER_ASSIGN_OR_RETURN(auto src, source(index));
    const auto& l = src->lengths;
    if (step.level < 0 || step.level >= static_cast<int>(l.size())) {
      return absl::InvalidArgumentError(
          absl::StrCat("level ", step.level, " does not fit a split of ", l.size(), " lengths"));
    }
    length = (length < 0 || !l[step.level].has_value()) ? -1 : length * *l[step.level];
  }
  return std::vector<int64_t>{length};
}

absl::Status State::ApplySplit(const Step& step, const std::vector<int64_t>& lengths,
                               bool nparts) {
  absl::Status st = CheckIter(step.stage, step.iter);
  if (!st.ok()) return Invalid(step, st.message());
  if (lengths.empty()) return Invalid(step, "a split needs at least one length");
  // Bounded so that products of extents stay far from int64 overflow (found
  // by schedule_sentence_fuzz.cc: 69 lengths multiplied to 0 and divided).
  constexpr int64_t kMaxLengthProduct = int64_t{1} << 31;
  int64_t product = 1;
  for (int64_t l : lengths) {
    if (l == 0 || l < -1) return Invalid(step, "split lengths must be positive");
    if (l > 0) {
      if (l > kMaxLengthProduct / product) {
        return Invalid(step, "split lengths multiply to more than 2^31");
      }
      product *= l;
    }
  }
  Stage& s = stages_[step.stage];
  const Iterator old = s.iters[step.iter];
  if (old.annotation != IterAnnotation::kNone) {
    return Invalid(step, "cannot split an annotated iterator");
  }
  IterRelation rel;
  rel.kind = IterRelation::Kind::kSplit;
  rel.inputs = {old.node};
  rel.lengths = lengths;
  rel.nparts = nparts;
  const IterNode parent = s.nodes[old.node];
  const int parts = static_cast<int>(lengths.size()) + 1;
  std::vector<Iterator> new_iters;
  for (int i = 0; i < parts; ++i) {
    rel.outputs.push_back(static_cast<int>(s.nodes.size()));
    new_iters.push_back(Iterator{static_cast<int>(s.nodes.size()), IterAnnotation::kNone});
    s.nodes.push_back(IterNode{absl::StrCat(parent.name, ".", i), -1, parent.kind});
  }
  s.relations.push_back(rel);
  PropagateExtents(&s);
  s.iters.erase(s.iters.begin() + step.iter);
  s.iters.insert(s.iters.begin() + step.iter, new_iters.begin(), new_iters.end());
  // Stages attached at the split iterator follow its innermost part.
  for (Stage& other : stages_) {
    if (other.compute_at == ComputeAtKind::kIter && other.attach_stage == step.stage &&
        other.attach_node == old.node) {
      other.attach_node = new_iters.back().node;
    }
  }
  return absl::OkStatus();
}

absl::Status State::ApplyReorder(const Step& step) {
  Stage& s = stages_[step.stage];
  std::vector<int> sorted = step.ints;
  std::sort(sorted.begin(), sorted.end());
  std::vector<int> identity(s.iters.size());
  std::iota(identity.begin(), identity.end(), 0);
  if (sorted != identity) {
    return Invalid(step, absl::StrCat("reorder must list each of the ", s.iters.size(),
                                      " iterators exactly once"));
  }
  std::vector<Iterator> reordered;
  for (int i : step.ints) reordered.push_back(s.iters[i]);
  s.iters = std::move(reordered);
  return absl::OkStatus();
}

absl::Status State::ApplyFuse(const Step& step) {
  Stage& s = stages_[step.stage];
  const std::vector<int>& ids = step.ints;
  if (ids.empty()) return Invalid(step, "fuse needs at least one iterator");
  for (size_t i = 0; i < ids.size(); ++i) {
    absl::Status st = CheckIter(step.stage, ids[i]);
    if (!st.ok()) return Invalid(step, st.message());
    if (i > 0 && ids[i] != ids[i - 1] + 1) return Invalid(step, "fused iterators must be consecutive");
    if (s.iters[ids[i]].annotation != IterAnnotation::kNone) {
      return Invalid(step, "cannot fuse an annotated iterator");
    }
    if (i + 1 < ids.size() && !AttachedStages(step.stage, s.iters[ids[i]].node).empty()) {
      return Invalid(step, "only the innermost fused iterator may have attached stages");
    }
  }
  if (ids.size() == 1) return absl::OkStatus();
  IterRelation rel;
  rel.kind = IterRelation::Kind::kFuse;
  std::string name;
  IterKind kind = s.node_of(ids[0]).kind;
  for (int i : ids) {
    rel.inputs.push_back(s.iters[i].node);
    absl::StrAppend(&name, s.node_of(i).name, "@");
    if (s.node_of(i).kind != kind) kind = IterKind::kMixed;
  }
  const int fused = static_cast<int>(s.nodes.size());
  rel.outputs = {fused};
  s.nodes.push_back(IterNode{name, -1, kind});
  s.relations.push_back(rel);
  PropagateExtents(&s);
  const int last_node = s.iters[ids.back()].node;
  s.iters.erase(s.iters.begin() + ids.front(), s.iters.begin() + ids.back() + 1);
  s.iters.insert(s.iters.begin() + ids.front(), Iterator{fused, IterAnnotation::kNone});
  for (Stage& other : stages_) {
    if (other.compute_at == ComputeAtKind::kIter && other.attach_stage == step.stage &&
        other.attach_node == last_node) {
      other.attach_node = fused;
    }
  }
  return absl::OkStatus();
}

absl::Status State::ApplyAnnotation(const Step& step) {
  absl::Status st = CheckIter(step.stage, step.iter);
  if (!st.ok()) return Invalid(step, st.message());
  Iterator& it = stages_[step.stage].iters[step.iter];
  if (it.annotation != IterAnnotation::kNone) {
    return Invalid(step, absl::StrCat("iterator is already annotated ", AnnotationName(it.annotation)));
  }
  if (step.annotation == IterAnnotation::kNone) return Invalid(step, "empty annotation");
  it.annotation = step.annotation;
  return absl::OkStatus();
}

absl::Status State::ApplyPragma(const Step& step) {
  absl::Status st = CheckIter(step.stage, step.iter);
  if (!st.ok()) return Invalid(step, st.message());
  stages_[step.stage].auto_unroll_max_step = step.pragma_value;
  return absl::OkStatus();
}

absl::Status State::ApplyComputeAt(const Step& step) {
  absl::Status st = CheckIter(step.target_stage, step.target_iter);
  if (!st.ok()) return Invalid(step, st.message());
  if (step.target_stage == step.stage) return Invalid(step, "a stage cannot attach to itself");
  const Stage& target = stages_[step.target_stage];
  if (target.compute_at == ComputeAtKind::kInlined) {
    return Invalid(step, "cannot attach to an inlined stage");
  }
  // Attaching inside a stage that is itself (transitively) attached to us
  // would make a cycle.
  for (int t = step.target_stage; t >= 0;) {
    if (t == step.stage) return Invalid(step, "compute_at would create a cycle");
    t = stages_[t].compute_at == ComputeAtKind::kIter ? stages_[t].attach_stage : -1;
  }
  Stage& s = stages_[step.stage];
  s.compute_at = ComputeAtKind::kIter;
  s.attach_stage = step.target_stage;
  s.attach_node = target.iters[step.target_iter].node;
  return absl::OkStatus();
}

absl::Status State::ApplyComputeInline(const Step& step) {
  Stage& s = stages_[step.stage];
  if (s.has_reduce()) return Invalid(step, "a reduction cannot be inlined");
  for (const Stage& other : stages_) {
    if (other.compute_at == ComputeAtKind::kIter && other.attach_stage == step.stage) {
      return Invalid(step, "stages are attached to this stage");
    }
  }
  if (current_dag_->Consumers(step.stage).empty()) {
    return Invalid(step, "an output stage cannot be inlined");
  }
  s.compute_at = ComputeAtKind::kInlined;
  s.attach_stage = -1;
  s.attach_node = -1;
  return absl::OkStatus();
}

absl::Status State::ApplyComputeRoot(const Step& step) {
  Stage& s = stages_[step.stage];
  s.compute_at = ComputeAtKind::kRoot;
  s.attach_stage = -1;
  s.attach_node = -1;
  return absl::OkStatus();
}

void State::InsertStage(int index, Stage stage) {
  for (Stage& s : stages_) {
    if (s.compute_at == ComputeAtKind::kIter && s.attach_stage >= index) ++s.attach_stage;
  }
  stages_.insert(stages_.begin() + index, std::move(stage));
}

absl::Status State::RebuildDag() {
  std::vector<OpRef> ops;
  for (const Stage& s : stages_) ops.push_back(s.op);
  // The steps check what they need first, so this fails only on a case a
  // step's checks missed; that must be the step's error, not a crash (a
  // sentence comes from a database or over the wire).
  auto dag = ComputeDag::Create(std::move(ops));
  if (!dag.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the step leaves an invalid program: ", dag.status().message()));
  }
  current_dag_ = std::make_shared<const ComputeDag>(*std::move(dag));
  return absl::OkStatus();
}

absl::Status State::ApplyCacheRead(const Step& step) {
  const int s = step.stage;
  const Op& src = *stages_[s].op;
  if (step.ints.empty()) return Invalid(step, "cache_read needs at least one reader");
  for (int r : step.ints) {
    if (r <= s || r >= num_stages()) return Invalid(step, absl::StrCat("reader ", r, " is not a later stage"));
    if (ReadsOf(*stages_[r].op, src.id).empty()) {
      return Invalid(step, absl::StrCat("stage ", r, " ('", stages_[r].op->name, "') does not read '",
                                        src.name, "'"));
    }
  }
  auto cache = std::make_shared<Op>();
  cache->id = NextTensorId(stages_);
  cache->name = absl::StrCat(src.name, ".", step.scope);
  cache->kind = OpKind::kCompute;
  cache->dtype = src.dtype;
  cache->shape = src.shape;
  std::vector<Expr> indices;
  for (size_t d = 0; d < src.shape.size(); ++d) {
    cache->axes.push_back(Axis{absl::StrCat("ax", d), src.shape[d]});
    indices.push_back(Var(static_cast<int>(d), absl::StrCat("ax", d)));
  }
  cache->body = Read(src.id, src.name, src.dtype, indices);
  cache->attrs["cache"] = step.scope;
  const int cache_id = cache->id;
  const std::string cache_name = cache->name;
  for (int r : step.ints) {
    const Op& reader = *stages_[r].op;
    Expr body = RewriteReads(reader.body, [&](const ExprNode& read) -> Expr {
      if (read.id != src.id) return nullptr;
      return Read(cache_id, cache_name, read.dtype, read.args);
    });
    stages_[r].op = WithBody(reader, body);
  }
  Stage cache_stage = MakeStage(cache);
  cache_stage.scope = step.scope;
  InsertStage(s + 1, std::move(cache_stage));
  return RebuildDag();
}

absl::Status State::ApplyCacheWrite(const Step& step) {
  const int s = step.stage;
  const Stage& old = stages_[s];
  if (!old.relations.empty() || old.compute_at != ComputeAtKind::kRoot ||
      !AttachedStages(s, -1).empty()) {
    return Invalid(step, "cache_write needs an untransformed root stage");
  }
  for (const Iterator& it : old.iters) {
    if (it.annotation != IterAnnotation::kNone) {
      return Invalid(step, "cache_write needs an untransformed root stage");
    }
  }
  const Op& op = *old.op;
  auto cache = std::make_shared<Op>(op);
  cache->id = NextTensorId(stages_);
  cache->name = absl::StrCat(op.name, ".", step.scope);
  cache->attrs["cache"] = step.scope;
  auto copy = SpatialShell(op);
  std::vector<Expr> indices;
  for (size_t d = 0; d < op.axes.size(); ++d) indices.push_back(Var(static_cast<int>(d), op.axes[d].name));
  copy->body = Read(cache->id, cache->name, op.dtype, indices);
  Stage cache_stage = MakeStage(cache);
  cache_stage.scope = step.scope;
  Stage copy_stage = MakeStage(copy);
  copy_stage.auto_unroll_max_step = old.auto_unroll_max_step;
  stages_[s] = std::move(copy_stage);
  InsertStage(s, std::move(cache_stage));
  return RebuildDag();
}

absl::Status State::ApplyRfactor(const Step& step) {
  absl::Status st = CheckIter(step.stage, step.iter);
  if (!st.ok()) return Invalid(step, st.message());
  const Stage& old = stages_[step.stage];
  const Op& op = *old.op;
  if (!old.has_reduce() || op.reduce == ReduceKind::kNone) return Invalid(step, "rfactor needs a reduction");
  if (old.compute_at != ComputeAtKind::kRoot) return Invalid(step, "rfactor needs a root stage");
  const int num_spatial = static_cast<int>(op.axes.size());
  // Spatial axes must still be plain loops: the rfactor stage keeps them as
  // its leading axes.
  for (int a = 0; a < num_spatial; ++a) {
    if (old.IterIndexOfNode(a) < 0) return Invalid(step, "rfactor needs unsplit spatial axes");
  }
  const int factored = old.iters[step.iter].node;
  if (old.nodes[factored].kind != IterKind::kReduce) {
    return Invalid(step, "the factored iterator must be a reduction iterator");
  }
  if (step.factor_iter < 0 || step.factor_iter > num_spatial) {
    return Invalid(step, absl::StrCat("factor_iter must be in [0, ", num_spatial, "]"));
  }
  for (const IterNode& n : old.nodes) {
    if (n.extent < 0) return Invalid(step, "rfactor needs chosen split lengths");
  }
  // The rfactor stage reduces over the other reduction loops: with none
  // left it would be no reduction (found by schedule_sentence_fuzz.cc:
  // "RF 2 2 1" on an unsplit matmul).
  bool other_reduce = false;
  for (const Iterator& it : old.iters) {
    other_reduce |= old.nodes[it.node].kind == IterKind::kReduce && it.node != factored;
  }
  if (!other_reduce) {
    return Invalid(step, "rfactor needs a reduction loop besides the factored one (split it first)");
  }
  // New op: spatial axes = old spatial axes with the factored iterator
  // inserted at factor_iter; reduce axes = the other reduce loops.
  auto rf = std::make_shared<Op>();
  rf->id = NextTensorId(stages_);
  rf->name = absl::StrCat(op.name, ".rf");
  rf->kind = OpKind::kCompute;
  rf->dtype = op.dtype;
  rf->reduce = op.reduce;
  rf->attrs.emplace("rfactor", "1");
  std::vector<int> spatial_nodes;  // rf spatial axis → old node
  for (int a = 0; a < num_spatial; ++a) spatial_nodes.push_back(a);
  spatial_nodes.insert(spatial_nodes.begin() + step.factor_iter, factored);
  std::vector<int> reduce_nodes;
  for (const Iterator& it : old.iters) {
    if (old.nodes[it.node].kind == IterKind::kReduce && it.node != factored) {
      reduce_nodes.push_back(it.node);
    }
  }
  std::map<int, Expr> leaf_var;
  int axis_index = 0;
  for (int node : spatial_nodes) {
    rf->axes.push_back(Axis{old.nodes[node].name, old.nodes[node].extent});
    rf->shape.push_back(old.nodes[node].extent);
    leaf_var[node] = Var(axis_index++, old.nodes[node].name);
  }
  for (int node : reduce_nodes) {
    rf->reduce_axes.push_back(Axis{old.nodes[node].name, old.nodes[node].extent});
    leaf_var[node] = Var(axis_index++, old.nodes[node].name);
  }
  auto indexing = ExpressRootsByLeaves(old, [&](int node) { return leaf_var[node]; });
  if (!indexing.ok()) return Invalid(step, indexing.status().message());
  Expr body = SubstituteVars(op.body, [&](int var) { return indexing->root_values[var]; });
  Expr in_range;
  for (const Expr& g : indexing->guards) in_range = in_range ? And(in_range, g) : g;
  if (in_range) body = Select(in_range, body, FloatImm(ReduceIdentity(op.reduce), op.dtype));
  rf->body = body;
  // The original becomes a reduction over the factored axis of rf.
  auto final_op = SpatialShell(op);
  final_op->reduce = op.reduce;
  final_op->reduce_axes = {Axis{old.nodes[factored].name, old.nodes[factored].extent}};
  std::vector<Expr> rf_indices;
  for (int a = 0; a < num_spatial; ++a) rf_indices.push_back(Var(a, op.axes[a].name));
  rf_indices.insert(rf_indices.begin() + step.factor_iter, Var(num_spatial, old.nodes[factored].name));
  final_op->body = Read(rf->id, rf->name, op.dtype, rf_indices);
  Stage final_stage = MakeStage(final_op);
  final_stage.auto_unroll_max_step = old.auto_unroll_max_step;
  stages_[step.stage] = std::move(final_stage);
  InsertStage(step.stage, MakeStage(rf));
  return RebuildDag();
}

bool State::IsConcrete() const {
  for (const Stage& s : stages_) {
    for (const IterNode& n : s.nodes) {
      if (n.extent < 0) return false;
    }
  }
  return true;
}

std::vector<int> State::AttachedStages(int stage, int node) const {
  std::vector<int> out;
  for (int i = 0; i < num_stages(); ++i) {
    const Stage& s = stages_[i];
    if (s.compute_at == ComputeAtKind::kIter && s.attach_stage == stage &&
        (node < 0 || s.attach_node == node)) {
      out.push_back(i);
    }
  }
  return out;
}

int State::StageOfTensor(int tensor_id) const {
  for (int i = 0; i < num_stages(); ++i) {
    if (stages_[i].op->id == tensor_id) return i;
  }
  return -1;
}

namespace {

void PrintStage(const State& state, int index, int indent, std::string* out) {
  const Stage& s = state.stage(index);
  auto pad = [&](int n) { out->append(static_cast<size_t>(2 * n), ' '); };
  if (s.auto_unroll_max_step > 0) {
    pad(indent);
    absl::StrAppend(out, s.op->name, " auto_unroll: ", s.auto_unroll_max_step, "\n");
  }
  int depth = indent;
  for (const Iterator& it : s.iters) {
    const IterNode& n = s.nodes[it.node];
    if (n.extent != 1) {
      pad(depth);
      absl::StrAppend(out, it.annotation == IterAnnotation::kNone ? "for" : AnnotationName(it.annotation),
                      " ", n.name, " (0,", n.extent, ")\n");
      ++depth;
    }
    for (int child : state.AttachedStages(index, it.node)) PrintStage(state, child, depth, out);
  }
  pad(depth);
  absl::StrAppend(out, s.op->name, " = ...\n");
}

}  // namespace

std::string State::ToStr() const {
  std::string out;
  for (int i = 0; i < num_stages(); ++i) {
    const Stage& s = stages_[i];
    if (s.is_placeholder()) {
      absl::StrAppend(&out, "Placeholder: ", s.op->name, "\n");
    } else if (s.compute_at == ComputeAtKind::kRoot) {
      PrintStage(*this, i, 0, &out);
    }
  }
  return out;
}

}  // namespace pruner
