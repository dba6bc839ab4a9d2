// Column-at-a-time expression evaluation for the program interpreter.
// Internal to common/lower (interpreter.cc is the user).
//
// The interpreter runs the innermost loops of a store nest as one "chunk":
// up to kChunkCap points, the loop variables flattened row-major. Every
// expression node evaluates all points of a chunk in one call, so the cost of
// dispatch (one virtual call per node) is paid once per chunk rather than
// once per element, and the per-element work is a tight loop the compiler
// vectorizes. Buffer accesses whose indices are affine in the flattened
// loops get a precomputed relative offset per point; their bounds are proven
// once per chunk from the index coefficients, and checked per point only
// when that proof fails (guards and selects can make a box check too
// coarse). Select evaluates each branch only at the points that take it, so
// a guarded out-of-range read is never performed.
#ifndef PRUNER_COMMON_LOWER_INTERP_EXPR_H_
#define PRUNER_COMMON_LOWER_INTERP_EXPR_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/ir/expr.h"

namespace pruner::interp_internal {

// Most points one chunk evaluates at once.
inline constexpr int kChunkCap = 2048;

// LIFO pool of kChunkCap-element arrays (8 bytes per element, so any of
// float, int64_t or int32_t fits) for intermediate columns.
class Scratch {
 public:
  void* Acquire();
  void Release() { --top_; }

 private:
  std::vector<std::unique_ptr<std::byte[]>> blocks_;
  size_t top_ = 0;
};

// One scratch array, released at scope exit.
class ScratchArray {
 public:
  explicit ScratchArray(Scratch* s) : s_(s), p_(s->Acquire()) {}
  ~ScratchArray() { s_->Release(); }
  ScratchArray(const ScratchArray&) = delete;
  ScratchArray& operator=(const ScratchArray&) = delete;
  template <typename T>
  T* as() const {
    return static_cast<T*>(p_);
  }

 private:
  Scratch* s_;
  void* p_;
};

// The flattened loops of the chunk being evaluated.
struct ChunkView {
  // Per flattened loop (outer to inner): the loop variable's value at each
  // point, relative to the value held in the variable slot.
  const std::vector<std::vector<int32_t>>* values = nullptr;
  // Per flattened loop: how many of its iterations this chunk covers.
  const int64_t* lens = nullptr;
};

// What one evaluation sees.
struct Frame {
  const int64_t* vars = nullptr;  // loop variable slots (chunk loops: first value)
  float* const* bufs = nullptr;   // per buffer id: this thread's storage
  int n = 1;                      // points to evaluate
  const int32_t* act = nullptr;   // their chunk positions; null: 0..n-1
  ChunkView chunk;
  Scratch* scratch = nullptr;
  std::string* error = nullptr;   // set when an evaluation fails

  int pos(int q) const { return act == nullptr ? q : act[q]; }
};

// Shape facts of one buffer, by buffer id.
struct BufferShape {
  std::string name;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;  // row-major, in elements
};

// What expressions are compiled against.
struct CompileEnv {
  const std::vector<BufferShape>* buffers = nullptr;
  int num_vars = 0;
  // Flattened loop variables, outer to inner, and their per-point values
  // (empty outside chunks: every variable is read from its slot).
  std::vector<int> flat_vars;
  const std::vector<std::vector<int32_t>>* flat_values = nullptr;
  int num_positions = 1;  // points of a full chunk

  int FlatIndex(int var) const;  // position in flat_vars, or -1
};

class Node {
 public:
  explicit Node(bool is_float) : is_float_(is_float) {}
  virtual ~Node() = default;
  bool is_float() const { return is_float_; }
  // Write f.n values; return false after setting *f.error on failure.
  virtual bool EvalF(const Frame& f, float* out) const;
  virtual bool EvalI(const Frame& f, int64_t* out) const;

 private:
  const bool is_float_;
};
using NodePtr = std::unique_ptr<const Node>;

absl::StatusOr<NodePtr> CompileExpr(const Expr& e, const CompileEnv& env);

// An integer expression evaluated at a single point (the chunk's first
// point, or a statement outside chunks): affine forms run without dispatch.
class IntScalar {
 public:
  static absl::StatusOr<IntScalar> Compile(const Expr& e, const CompileEnv& scalar_env);
  // Returns false (with *error set) on failure.
  bool Eval(const int64_t* vars, float* const* bufs, Scratch* scratch, std::string* error,
            int64_t* out) const;

 private:
  bool affine_ = false;
  int64_t constant_ = 0;
  std::vector<std::pair<int, int64_t>> terms_;  // (var slot, coefficient)
  std::shared_ptr<const Node> node_;
};

// Where a buffer access lands for every point of a chunk.
class Access {
 public:
  static absl::StatusOr<std::unique_ptr<Access>> Compile(int buffer,
                                                         const std::vector<Expr>& indices,
                                                         const CompileEnv& env);
  int buffer() const { return buffer_; }
  // Flat element offsets of the frame's points, bounds-checked.
  bool Offsets(const Frame& f, bool is_write, int64_t* offs) const;
  // out[q] = buffer[point q].
  bool Gather(const Frame& f, float* out) const;

 private:
  // Separable accesses: index_d(point) = index_d(first point) +
  // sum_k coef[d][k] * (flattened loop k's value at the point).
  bool BoxBase(const Frame& f, int64_t* base_offset, int64_t* base_index, bool* in_box) const;
  bool PointIndexCheck(const Frame& f, const int64_t* base_index, bool is_write,
                       int64_t* offs) const;
  bool GenericOffsets(const Frame& f, bool is_write, int64_t* offs) const;
  bool Fail(const Frame& f, bool is_write, const int64_t* index) const;

  int buffer_ = -1;
  const BufferShape* shape_ = nullptr;
  bool separable_ = false;
  std::vector<IntScalar> base_index_;        // per dim
  std::vector<std::vector<int64_t>> coef_;   // [dim][flattened loop]
  std::vector<int32_t> rel_;                 // per chunk position
  std::vector<NodePtr> index_nodes_;         // generic accesses, per dim
};

// ---- Helpers shared by expression and access compilation.

// InvalidArgument naming the expression.
absl::Status TypeError(const Expr& e, const std::string& what);
// True when e == (terms without flattened loops) + sum_k coef[k] * flat_k;
// fills coef (one entry per flattened loop).
bool SeparableAffine(const Expr& e, const CompileEnv& env, std::vector<int64_t>* coef);
// sum_k coef[k] * flat_k at every chunk position; false when a value does
// not fit in 32 bits.
bool RelativeValues(const std::vector<int64_t>& coef, const CompileEnv& env,
                    std::vector<int32_t>* rel);
// env without flattened loops: every variable read from its slot.
CompileEnv ScalarEnv(const CompileEnv& env);

}  // namespace pruner::interp_internal

#endif  // PRUNER_COMMON_LOWER_INTERP_EXPR_H_
