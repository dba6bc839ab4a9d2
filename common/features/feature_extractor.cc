#include "common/features/feature_extractor.h"

#include <algorithm>
#include <cmath>

#include "common/features/feature_columns.h"
#include "common/features/feature_math.h"
#include "common/features/intensity_curve.h"
#include "common/features/op_counts.h"

namespace pruner {
namespace {

namespace fc = feature_columns;

}  // namespace

ProgramFeatures StatementFeatureExtractor::Extract(const Program& program,
                                                   const DeviceProfile& device,
                                                   StoreObserver* observer) {
  program_ = &program;
  observer_ = observer;
  cache_line_bytes_ = device.cache_line_bytes > 0 ? device.cache_line_bytes : 64;
  rows_.clear();
  rows_.reserve(program.buffers.size());
  row_of_buffer_.assign(program.buffers.size(), -1);
  row_outer_prod_.clear();
  var_level_.assign(program.num_vars(), -1);
  ranges_.assign(program.num_vars(), Interval{});
  for (const Kernel& kernel : program.kernels) {
    if (kernel.body != nullptr) Walk(*kernel.body);
  }
  // Buffers that live for the whole program and are not inputs or outputs
  // are realized at the top of TVM's function: outside every loop.
  for (const Buffer& buffer : program.buffers) {
    if (buffer.role == BufferRole::kIntermediate && !buffer.attached &&
        row_of_buffer_[buffer.id] >= 0) {
      AddAllocation(buffer.id, 1.0);
    }
  }
  program_ = nullptr;
  observer_ = nullptr;
  return std::move(rows_);
}

void StatementFeatureExtractor::VisitAllocate(const StmtNode& s) {
  WalkBody(s);
  // After the body, as TenSet does, so that alloc_inner_prod sees the
  // stores' outer_prod. (A buffer never stored gets no row at all.)
  if (row_of_buffer_[s.buffer] >= 0) AddAllocation(s.buffer, ActiveLoops());
}

// Frames are kept per depth and reused (their touch sets keep their
// capacity); a shadowed thread binding is skipped by ActiveLoops (see
// loop_nest_walker.h).
void StatementFeatureExtractor::EnterLoop(const StmtNode& s) {
  const size_t depth = enclosing_loops().size() - 1;
  if (depth == frames_.size()) frames_.emplace_back();
  Frame& frame = frames_[depth];
  frame.var = s.var;
  // A loop that runs zero times runs nothing; keep the logs finite.
  frame.extent = std::max<int64_t>(s.extent, 1);
  frame.kind = s.for_kind;
  frame.auto_unroll_max_step = s.auto_unroll_max_step;
  frame.touches.Clear();
}

double StatementFeatureExtractor::ActiveLoops() {
  loops_.clear();
  double prod = 1;
  const std::vector<EnclosingLoop>& enclosing = enclosing_loops();
  for (size_t j = 0; j < enclosing.size(); ++j) {
    Frame& f = frames_[j];
    if (enclosing[j].shadowed) continue;
    loops_.push_back({f.var, f.extent, f.kind, &f.touches});
    prod *= static_cast<double>(f.extent);
  }
  return prod;
}

StatementFeatures& StatementFeatureExtractor::RowOf(int buffer) {
  int& row = row_of_buffer_[buffer];
  if (row < 0) {
    row = static_cast<int>(rows_.size());
    rows_.emplace_back();
    rows_.back().fill(0.0f);
    row_outer_prod_.push_back(0.0);
  }
  return rows_[row];
}

void StatementFeatureExtractor::AddAllocation(int buffer, double outer_prod) {
  const Buffer& b = program_->buffer(buffer);
  float* row = RowOf(buffer).data();
  const double elements = static_cast<double>(b.num_elements());
  row[fc::kAllocSize] = Slog(elements * DTypeBytes(b.dtype));
  row[fc::kAllocProd] = Slog(elements * outer_prod);
  row[fc::kAllocOuterProd] = Slog(outer_prod);
  row[fc::kAllocInnerProd] = Slog(row_outer_prod_[row_of_buffer_[buffer]] / outer_prod);
}

void StatementFeatureExtractor::WriteComputation(const OpCounts& ops, double outer_prod,
                                                 float* row) const {
  const int64_t counts[] = {
      ops.float_mad,     ops.float_addsub,    ops.float_mul,        ops.float_divmod,
      ops.float_cmp,     ops.float_math_func, ops.float_other_func, ops.int_mad,
      ops.int_addsub,    ops.int_mul,         ops.int_divmod,       ops.int_cmp,
      ops.int_math_func, ops.int_other_func,  ops.bool_op,          ops.select_op};
  for (int i = 0; i < 16; ++i) row[fc::kFloatMad + i] = Slog(counts[i] * outer_prod);

  // Vectorize / unroll / parallel: count, product and innermost extent of
  // the enclosing loops of that kind. Thread bindings are not parallel
  // loops. The position one-hot is None or Mixed only (decision in
  // statement_features.cc).
  auto annotation = [&](ForKind kind, int block) {
    double num = 0, prod = 1, len = 0;
    for (const LoopView& loop : loops_) {
      if (loop.kind != kind) continue;
      ++num;
      prod *= static_cast<double>(loop.extent);
      len = static_cast<double>(loop.extent);
    }
    float* b = row + block;
    std::fill(b, b + fc::kAnnotationBlockWidth, 0.0f);
    b[fc::kAnnNum] = Slog(num);
    b[fc::kAnnProd] = Slog(num > 0 ? prod : 0);
    b[fc::kAnnLen] = Slog(len);
    b[num > 0 ? fc::kAnnPosMixed : fc::kAnnPosNone] = 1.0f;
  };
  annotation(ForKind::kVectorized, fc::kVecBlock);
  annotation(ForKind::kUnrolled, fc::kUnrollBlock);
  annotation(ForKind::kParallel, fc::kParallelBlock);

  // GPU extents: the innermost binding of each axis; vthreads multiply.
  int64_t block[3] = {1, 1, 1}, thread[3] = {1, 1, 1}, vthread = 1;
  for (const LoopView& f : loops_) {
    if (IsBlockKind(f.kind)) block[BindingDim(f.kind)] = f.extent;
    if (IsThreadIdxKind(f.kind)) thread[BindingDim(f.kind)] = f.extent;
    if (f.kind == ForKind::kVThread) vthread *= f.extent;
  }
  row[fc::kIsGpu] = program_->target == DeviceKind::kGpu ? 1.0f : 0.0f;
  for (int d = 0; d < 3; ++d) {
    row[fc::kBlockIdxXLen + d] = Slog(static_cast<double>(block[d]));
    row[fc::kThreadIdxXLen + d] = Slog(static_cast<double>(thread[d]));
  }
  row[fc::kVThreadLen] = Slog(static_cast<double>(vthread));
}

void StatementFeatureExtractor::WriteOuterScope(double outer_prod, float* row) const {
  int64_t auto_unroll = 0;
  for (size_t j = 0; j < enclosing_loops().size(); ++j) {
    if (frames_[j].auto_unroll_max_step > 0) auto_unroll = frames_[j].auto_unroll_max_step;
  }
  row[fc::kOuterProd] = Slog(outer_prod);
  row[fc::kNumLoops] = Slog(static_cast<double>(loops_.size()));
  row[fc::kAutoUnrollMaxStep] = Slog(static_cast<double>(auto_unroll));
}

void StatementFeatureExtractor::VisitStore(const StmtNode& s) {
  const double outer_prod = ActiveLoops();
  const int n = static_cast<int>(loops_.size());
  for (int i = 0; i < n; ++i) {
    const int var = loops_[i].var;
    if (var < 0) continue;
    if (var >= static_cast<int>(var_level_.size())) {
      var_level_.resize(var + 1, -1);
      ranges_.resize(var + 1, Interval{});
    }
    var_level_[var] = i;
  }
  const int row_index = [&] {
    RowOf(s.buffer);
    return row_of_buffer_[s.buffer];
  }();
  float* row = rows_[row_index].data();

  // Group 1.
  OpCounts ops;
  CountOps(*s.value, &ops);
  WriteComputation(ops, outer_prod, row);

  // Group 2: regions at every level (recorded into the loops' touches
  // first, as TVM does, so this statement counts in its own reuse).
  accesses_.Collect(s, *program_);
  regions_.Compute(accesses_, loops_, var_level_, &ranges_);
  AccessContext context;
  context.program = program_;
  context.loops = loops_;
  context.outer_prod = outer_prod;
  context.cache_line_bytes = cache_line_bytes_;
  ComputeAccessFeatures(accesses_, regions_, context, &access_features_);
  if (observer_ != nullptr) {
    // Before WriteBufferAccessColumns sorts the features out of group order.
    observer_->OnStore({&s, &accesses_, access_features_, &ops, outer_prod});
  }
  WriteBufferAccessColumns(&access_features_, row);

  // Group 3: float ops with the loops from level i inward, innermost first.
  const double float_ops = static_cast<double>(ops.float_ops());
  log_ops_.clear();
  if (float_ops > 0) {
    double cumulative = float_ops;
    for (int i = n - 1; i >= 0; --i) {
      cumulative *= static_cast<double>(loops_[i].extent);
      log_ops_.push_back(std::log2(cumulative));
    }
  }
  ArithmeticIntensityCurve(float_ops, log_ops_, regions_.log_mem_bytes(),
                           row + fc::kArithCurveOffset);

  // Group 5.
  WriteOuterScope(outer_prod, row);
  row_outer_prod_[row_index] = outer_prod;

  for (int i = 0; i < n; ++i) {
    if (loops_[i].var >= 0) var_level_[loops_[i].var] = -1;
  }
}

}  // namespace pruner
