// Compiled statements of the program interpreter. Internal to common/lower
// (interpreter.cc compiles statements into these and runs kernels).
//
// Every executor can run for one thread (Run) or for all threads of a block
// at once (RunBlock). A statement that contains no barrier runs thread by
// thread; one that contains a barrier runs collectively, so that each
// barrier phase completes for every thread before the next one starts (see
// interpreter.h for the semantics).
#ifndef PRUNER_COMMON_LOWER_INTERP_STMT_H_
#define PRUNER_COMMON_LOWER_INTERP_STMT_H_

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "common/ir/expr.h"
#include "common/lower/interp_expr.h"

namespace pruner::interp_internal {

// One GPU thread (or the one CPU thread): its loop variables and its view of
// the buffers (global storage, its block's shared arena, its local arena).
struct ThreadCtx {
  int64_t* vars = nullptr;
  float** bufs = nullptr;
  std::array<int64_t, 3> tid = {0, 0, 0};
  std::array<int64_t, 3> bid = {0, 0, 0};
};

// State of one kernel launch.
struct RunCtx {
  Scratch scratch;
  std::string error;
  std::vector<ThreadCtx> threads;
};

// A compiled statement.
class Exec {
 public:
  explicit Exec(bool has_barrier) : has_barrier_(has_barrier) {}
  virtual ~Exec() = default;
  bool has_barrier() const { return has_barrier_; }

  virtual absl::Status Run(RunCtx& rc, ThreadCtx& t) const = 0;
  // Default: Run for each thread in turn (right for barrier-free statements).
  virtual absl::Status RunBlock(RunCtx& rc) const;

 private:
  const bool has_barrier_;
};
using ExecPtr = std::unique_ptr<const Exec>;

// Runs `e` for all threads: collectively when it holds a barrier, else
// thread by thread.
absl::Status RunAll(const Exec& e, RunCtx& rc);

ExecPtr MakeSeqExec(std::vector<ExecPtr> children);
ExecPtr MakeLoopExec(int var, int64_t extent, ExecPtr body);
// A blockIdx/threadIdx binding: the variable is the hardware index `dim` of
// the block (is_block) or thread index; the body runs where it is < extent.
ExecPtr MakeBindExec(int var, int64_t extent, bool is_block, int dim, ExecPtr body);
ExecPtr MakeIfExec(IntScalar cond, ExecPtr then_body, ExecPtr else_body);
// Fills the buffer with NaN (once per block when per_block, i.e. shared).
ExecPtr MakeAllocExec(int buffer, int64_t elements, bool per_block, ExecPtr body);
ExecPtr MakeBarrierExec();

// How a store nest writes its destination.
enum class StoreMode {
  kAssign,     // the value does not read the destination: evaluate, then store
  kCombine,    // dst = combine(dst, rest), rest not reading dst: sequential update
  kPointwise,  // anything else: one point at a time, in order
};

// A store under a perfect nest of loops and one-armed ifs, run a chunk of
// points at a time (see interp_expr.h). The outermost flattened loop may be
// split into several chunks; the others are covered whole.
struct StoreNestPlan {
  std::vector<int> vars;         // flattened loops, outer to inner
  std::vector<int64_t> extents;  // their full extents
  int64_t chunk0 = 1;            // iterations of vars[0] per chunk
  int64_t inner_points = 1;      // product of extents[1..]
  std::vector<std::vector<int32_t>> values;  // per loop: its value at each position
  std::vector<NodePtr> masks;    // the ifs' conditions
  std::unique_ptr<Access> dst;
  StoreMode mode = StoreMode::kAssign;
  BinaryOp combine = BinaryOp::kAdd;
  NodePtr value;        // the whole value, or `rest` for kCombine
  std::string context;  // "stage C.local", for error messages
};
ExecPtr MakeStoreNestExec(std::unique_ptr<StoreNestPlan> plan);

}  // namespace pruner::interp_internal

#endif  // PRUNER_COMMON_LOWER_INTERP_STMT_H_
