// The loop-nest program: what lowering produces from a schedule state, what
// codegen prints, what the interpreter runs and what the analyzers read.
//
// The program makes explicit everything that the schedule leaves implicit:
// buffers with their storage scope and their allocated (bound-inferred)
// shape, the loop kind of every loop (serial, parallel, vectorized, unrolled,
// vthread, or a thread binding), guards for points that a non-divisible split
// or an overshooting region would otherwise visit, reduction init and update
// statements, barriers around shared-memory stages, and on GPUs one kernel
// per root stage with its launch configuration.
//
// Conventions
// - Loop variables are small integers numbered by the program
//   (Program::var_names); index and value expressions are common/ir Exprs
//   whose kVar nodes are those loop variables and whose kRead nodes read
//   program buffers (ExprNode::id is a Buffer::id).
// - Buffers are multi-dimensional and row-major. A buffer that holds a
//   region of a tensor (a cache stage, a compute_at stage) is indexed
//   relative to that region: element 0 is at global coordinates
//   `region_min` (Exprs over the loop variables enclosing its Allocate).
// - A For whose kind is a thread binding does not loop: its variable is the
//   hardware index of that dimension, and its body runs only where the index
//   is below `extent`, which may be smaller than the kernel's launch
//   dimension when stages of one kernel bind different extents.
// - A vthread loop is a serial loop around whatever the schedule put inside
//   it, as in TVM's IR before virtual-thread injection: a local buffer
//   allocated inside it holds one virtual thread's tile (registers per real
//   thread = that times the vthread extent), and a shared fetch inside it
//   runs once per virtual thread unless codegen hoists the statements that
//   do not use the vthread variable (TVM's InjectVirtualThread does).
// - Guards sit directly around the store they protect, never around
//   attached stages or barriers.
#ifndef PRUNER_COMMON_LOWER_PROGRAM_H_
#define PRUNER_COMMON_LOWER_PROGRAM_H_

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/device/device_profile.h"
#include "common/ir/dtype.h"
#include "common/ir/expr.h"
#include "common/ir/tensor.h"
#include "absl/status/statusor.h"

namespace pruner {

// ---------------------------------------------------------------- Buffers --

enum class MemScope : uint8_t { kGlobal, kShared, kLocal };
const char* MemScopeName(MemScope scope);  // "global" "shared" "local"
// "global" (or ""), "shared", "local"; anything else gives std::nullopt.
std::optional<MemScope> ParseMemScope(std::string_view name);

enum class BufferRole : uint8_t {
  kInput,         // a placeholder of the workload
  kOutput,        // a workload output
  kIntermediate,  // everything else: root intermediates and cache/attached stages
};
const char* BufferRoleName(BufferRole role);

struct Buffer {
  int id = -1;  // index in Program::buffers
  std::string name;
  MemScope scope = MemScope::kGlobal;
  DType dtype = DType::kFloat32;
  std::vector<int64_t> shape;  // allocated shape
  int tensor_id = -1;          // the DAG tensor (op id) whose values it holds
  int stage = -1;              // the schedule stage that writes it (-1: input)
  BufferRole role = BufferRole::kIntermediate;
  // True when the buffer is allocated by an Allocate statement inside a
  // kernel (cache stages, compute_at stages). Other buffers (inputs, outputs,
  // root intermediates) live for the whole program.
  bool attached = false;
  // Global coordinate of allocation element 0, one Expr per dimension, over
  // the loop variables that enclose the buffer's Allocate. All zeros for
  // buffers that hold a whole tensor.
  std::vector<Expr> region_min;
  // Which tensor dimension each buffer dimension holds, when lowering chose
  // another order (layout_order.h); empty: the tensor's own order. For an
  // input, callers pass the tensor as usual and InputInBufferLayout
  // transposes it.
  std::vector<int> dim_order;

  int64_t num_elements() const;
  // The shape in the tensor's own dimension order.
  std::vector<int64_t> tensor_shape() const;
  int64_t bytes() const;
};

// Global tensor coordinates of an access to `buffer` at buffer-relative
// `indices`: indices + region_min, simplified. Analyses that ask "does loop
// v change which element of the tensor is touched" should look at these
// rather than at the tile-local indices (../shared/specs/pruner.md §2.1 [REC]).
std::vector<Expr> GlobalCoordinates(const Buffer& buffer, const std::vector<Expr>& indices);

// The values of input tensor `t` laid out as `buffer` stores them (a copy,
// transposed when the buffer has a dim_order). Errors when t's shape or
// dtype is not the buffer's tensor's.
absl::StatusOr<std::vector<float>> InputInBufferLayout(const Buffer& buffer, const Tensor& t);

// ------------------------------------------------------------- Statements --

enum class ForKind : uint8_t {
  kSerial,
  kParallel,
  kVectorized,
  kUnrolled,
  kVThread,  // a virtual thread: runs serially, but analysis treats it apart
  kBlockX,
  kBlockY,
  kBlockZ,
  kThreadX,
  kThreadY,
  kThreadZ,
};
const char* ForKindName(ForKind kind);
bool IsBlockKind(ForKind kind);
bool IsThreadIdxKind(ForKind kind);
// blockIdx.* or threadIdx.*: the loop is a binding, not a loop.
inline bool IsThreadBindingKind(ForKind kind) {
  return IsBlockKind(kind) || IsThreadIdxKind(kind);
}
// 0, 1, 2 for x, y, z of a binding kind.
int BindingDim(ForKind kind);

enum class StmtKind : uint8_t { kFor, kSeq, kIfThenElse, kStore, kBarrier, kAllocate };

// What a store does for its stage; analysis merges init and update rows.
enum class StoreRole : uint8_t { kCompute, kReduceInit, kReduceUpdate };

struct StmtNode;
using Stmt = std::shared_ptr<const StmtNode>;

struct StmtNode {
  StmtKind kind = StmtKind::kSeq;

  // kFor
  int var = -1;  // loop variable id
  std::string var_name;
  int64_t extent = 0;
  ForKind for_kind = ForKind::kSerial;
  int64_t auto_unroll_max_step = 0;  // > 0: pragma auto_unroll_max_step=N
  // Which schedule iterator the loop realizes; `init_copy` marks the copies
  // of spatial loops that a reduction's init nest re-creates.
  int stage = -1;  // also set for kStore
  int iter = -1;
  bool init_copy = false;

  // kSeq
  std::vector<Stmt> seq;

  // kIfThenElse
  Expr condition;
  Stmt else_body;  // may be null

  // kStore: buffer[indices] = value
  int buffer = -1;  // also kAllocate
  std::vector<Expr> indices;
  Expr value;
  StoreRole store_role = StoreRole::kCompute;

  // kFor, kIfThenElse (then branch), kAllocate
  Stmt body;
};

Stmt MakeFor(int var, std::string var_name, int64_t extent, ForKind kind, Stmt body,
             int stage = -1, int iter = -1);
Stmt MakeSeq(std::vector<Stmt> stmts);  // flattens nested Seqs
Stmt MakeIf(Expr condition, Stmt then_body, Stmt else_body = nullptr);
Stmt MakeStore(int buffer, std::vector<Expr> indices, Expr value, StoreRole role,
               int stage);
Stmt MakeBarrier();
Stmt MakeAllocate(int buffer, Stmt body);

// Calls f on s and every statement below it, parents first.
void VisitStmt(const Stmt& s, const std::function<void(const StmtNode&)>& f);
// True when a Barrier occurs in s.
bool ContainsBarrier(const Stmt& s);

// ---------------------------------------------------------------- Program --

// One device function. On GPUs: a root stage with everything attached to it
// (and, through their bodies, everything inlined into them). On CPUs: the one
// function holding every root stage in order.
struct Kernel {
  std::string name;
  int root_stage = -1;      // GPU: the root stage; CPU: -1
  std::vector<int> stages;  // stages with a loop nest in this kernel, nest order
  std::array<int64_t, 3> grid = {1, 1, 1};   // blockIdx extents x, y, z
  std::array<int64_t, 3> block = {1, 1, 1};  // threadIdx extents x, y, z
  int64_t shared_bytes = 0;                  // all shared buffers of the kernel
  int64_t local_bytes_per_thread = 0;        // all local buffers (per vthread)
  Stmt body;

  int64_t threads_per_block() const { return block[0] * block[1] * block[2]; }
  int64_t num_blocks() const { return grid[0] * grid[1] * grid[2]; }
};

struct Program {
  DeviceKind target = DeviceKind::kCpu;
  std::vector<Buffer> buffers;  // Buffer::id == index
  // Buffer ids of the workload inputs, in ComputeDag::InputIndices() order of
  // the original DAG, and of its outputs in OutputIndices() order.
  std::vector<int> inputs;
  std::vector<int> outputs;
  std::vector<Kernel> kernels;  // run in order
  std::vector<std::string> var_names;  // loop variable id -> name
  // Per schedule stage: its op's name and the buffer it writes (-1 for
  // inlined stages).
  std::vector<std::string> stage_names;
  std::vector<int> stage_buffers;

  int num_vars() const { return static_cast<int>(var_names.size()); }
  const Buffer& buffer(int id) const { return buffers[id]; }
  // Readable pseudo-code: buffers, then each kernel's nest. Stable, so it is
  // used by golden tests.
  std::string ToString() const;
};

// Pseudo-code for one statement, indented by `indent` levels.
std::string StmtToString(const Program& program, const Stmt& stmt, int indent = 0);

}  // namespace pruner

#endif  // PRUNER_COMMON_LOWER_PROGRAM_H_
