// PaCM's temporal dataflow features (../shared/specs/pruner.md §4.2-§4.4) on our
// lowered loop-nest program. The walk is the statement features' walk
// (feature_extractor.cc), observed store by store; the recognition of the
// pattern is in tiling_pattern.cc, the 23 values of a block in
// dataflow_block.cc, the CPU's cache tiles in cpu_cache_tiles.cc.
//
// What we copy from Pruner's feature_pam.cc and what we do differently
// --------------------------------------------------------------------
// Parity with the shipped PaCM weights is out of reach (they were trained
// on TVM's IR, whose features ours do not reproduce bit for bit; see
// statement_features.cc), so, as there, a quirk is copied when it is
// harmless and fixed when it makes a value describe something else.
//
// [copied] The pattern: needle "20101112" over one digit per access (0
//   global, 1 shared, 2 local), exactly 8 blocks from its first occurrence,
//   all zeros when it does not occur. Programs with several tiled stages
//   describe the first; element-wise programs, reductions without a staged
//   tile and programs with three or more staged inputs get zeros, as in
//   the original.
// [quirk fixed] The order of a statement's accesses in the digit string.
//   Pruner iterates an unordered_map keyed by buffer pointers, so the order
//   (and whether the pattern is found at all) depends on the heap; about 7%
//   of its programs lose their blocks by accident. We use the order that
//   map yields in the common case, by rule: the buffers read, in reverse
//   order of first appearance in the statement, then the written buffer
//   (../shared/specs/pruner.md §4.3 [REC]). The canonical GEMM then reads
//   "2" "01" "01" "112" "20" and its blocks are
//   [C.local W, A R, A.shared W, B R, B.shared W, B.shared R, A.shared R,
//   C.local RW], exactly as in Pruner when its map behaves.
// [copied] The per-access record is Ansor's group 2 of the same access, and
//   literally so: the values come from the statement features' own
//   computation (access_features.cc), so a block and the statement row's
//   slot for the same access always agree. [quirks fixed there] This
//   inherits the statement features' decisions: TVM's quirks in
//   reduce_ratio (innermost extent), n_continuous (last buffer's region)
//   and unique_bytes (first record at the outermost loop, possibly another
//   statement's) are fixed there, hence here too, although
//   ../shared/specs/pruner.md §9.9 lists them as what Pruner's blocks contain.
//   outer_prod counts thread and vthread pseudo-loops, as §4.1 asks, with a
//   cooperative fetch's inner thread binding counted once (see
//   statement_features.cc).
// [quirk fixed] float_op. Pruner multiplies the statement's op count by the
//   product of all loop extents *and* by outer_loop_prod, i.e. by
//   outer_prod twice (§4.2). We multiply once: float_op is the float work
//   the statement really does, the quantity the statement row's float
//   columns also count. The double product only matters for loading the
//   shipped weights, which we cannot use anyway.
// [copied] alloc_size is the buffer's allocated bytes for shared- and
//   local-level buffers and 0 for global ones. TVM writes it at the realize
//   node for every record of the buffer; our buffer shapes are static, so
//   every record of a buffer has it from the start.
// [copied] location by storage scope on GPUs.
// [extension] CPUs (the paper and the code are GPU-only). The three levels
//   become DRAM -> cache tile -> accumulator tile:
//   - global: tensors that live for the whole program (inputs, outputs,
//     root intermediates), which stream from DRAM;
//   - shared: the tile of each input that one reduce step of the tiled
//     reduction walks (cpu_cache_tiles.h). The CPU sketch leaves it to the
//     caches; we make it an explicit buffer, copied at the place where the
//     GPU sketch puts its shared stage (inside the outermost reduce loop of
//     the tiled nest), so the CPU blocks describe the same movement as the
//     GPU ones: the fetch (its traffic, reuse across the outer tiles) and
//     the compute's reads from it (reuse inside the tile);
//   - local: the accumulator tile, i.e. a cache_write's local buffer or an
//     attached buffer (a reduction computed at its consumer's tile), which
//     sits in L1 and registers.
//   The tile's place is structural, not chosen by cache capacity: the
//   copies must fall between the accumulator's init and the compute for
//   the pattern's temporal order to hold, and the same schedule should
//   give the same blocks on any CPU. Capacity enters through the values:
//   the tile's alloc_size, unique_bytes and reuse distances say whether it
//   fits the device's caches, and each device trains its own model.
//   Statement rows are always read from the program as lowered; only the
//   blocks see the staged copy. A CPU reduction with one or three inputs to
//   stage is passed over for the next one (it could not match), where a
//   GPU program's first such reduction simply misses.
// [copied] The statement branch (pacm_features.h): Ansor's 164-value rows,
//   which already keep max_n_bufs = 5 slots, plus the 10-value workload tag
//   of §4.5 (workload_tag.h maps TVM's DAG-text substrings to our operator
//   tags). A failed lowering has no features; PaCMBatch::AddInvalid holds
//   its place with §4.1's zero row and zero blocks, and it scores -inf.
// Normalisation: every count and size is slog'ed here (one-hots raw), as
//   in §4.4. The division of each column by its maximum over the training
//   set (§4.6) depends on the training set, so the model's data loader
//   does it (PaCMColumnScales in pacm_batch.h).
#include "common/features/dataflow_features.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "common/features/cpu_cache_tiles.h"
#include "common/features/feature_extractor.h"

namespace pruner {
namespace {

// Turns every store the walk visits into digits and records.
class DataflowRecorder : public StoreObserver {
 public:
  void Reset(const Program& program) {
    program_ = &program;
    digits_.clear();
    records_.clear();
  }

  void OnStore(const StoreVisit& visit) override {
    const std::vector<AccessGroup>& groups = visit.accesses->groups();
    const int n = static_cast<int>(groups.size());
    const double float_ops = static_cast<double>(visit.ops->float_ops()) * visit.outer_prod;
    for (int position = 0; position < n; ++position) {
      const int g = PatternGroupAt(position, n);
      const Buffer& buffer = program_->buffer(groups[g].buffer);
      AccessRecord r;
      r.buffer = buffer.id;
      r.level = DataflowLevel(buffer, program_->target);
      r.access = visit.features[g];
      r.float_ops = float_ops;
      r.alloc_bytes = r.level == MemScope::kGlobal ? 0.0 : static_cast<double>(buffer.bytes());
      digits_.push_back(LevelDigit(r.level));
      records_.push_back(r);
    }
  }

  const std::string& digits() const { return digits_; }
  const std::vector<AccessRecord>& records() const { return records_; }

 private:
  const Program* program_ = nullptr;
  std::string digits_;
  std::vector<AccessRecord> records_;
};

struct Scratch {
  StatementFeatureExtractor extractor;
  DataflowRecorder recorder;
};

Scratch& ThreadScratch() {
  // Search featurizes from several threads; each keeps its own scratch.
  thread_local Scratch scratch;
  return scratch;
}

DataflowFeatures BlocksOf(const DataflowRecorder& recorder, DataflowTrace* trace) {
  DataflowFeatures out;
  const int match = FindMultiTilingPattern(recorder.digits());
  if (match >= 0) {
    out.has_pattern = true;
    for (int b = 0; b < kNumDataflowBlocks; ++b) {
      EncodeDataflowBlock(recorder.records()[match + b],
                          out.blocks.data() + b * kDataflowBlockWidth);
    }
  }
  if (trace != nullptr) {
    trace->digits = recorder.digits();
    trace->records = recorder.records();
    trace->match = match;
  }
  return out;
}

}  // namespace

DataflowFeatures ExtractDataflowAndStatementFeatures(const Program& program,
                                                     const DeviceProfile& device,
                                                     ProgramFeatures* rows,
                                                     DataflowTrace* trace) {
  Scratch& scratch = ThreadScratch();
  std::optional<Program> staged = StageCpuCacheTiles(program);
  if (trace != nullptr) {
    trace->staged = staged.has_value();
    trace->analysed = staged.has_value() ? *staged : program;
  }
  if (staged.has_value()) {
    // The staged copy's rows describe statements that do not run.
    if (rows != nullptr) *rows = scratch.extractor.Extract(program, device);
    scratch.recorder.Reset(*staged);
    scratch.extractor.Extract(*staged, device, &scratch.recorder);
  } else {
    scratch.recorder.Reset(program);
    ProgramFeatures walked = scratch.extractor.Extract(program, device, &scratch.recorder);
    if (rows != nullptr) *rows = std::move(walked);
  }
  return BlocksOf(scratch.recorder, trace);
}

DataflowFeatures ExtractDataflowFeatures(const Program& program, const DeviceProfile& device,
                                         DataflowTrace* trace) {
  return ExtractDataflowAndStatementFeatures(program, device, nullptr, trace);
}

}  // namespace pruner
