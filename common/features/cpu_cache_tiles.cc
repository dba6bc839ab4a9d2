#include "common/features/cpu_cache_tiles.h"

#include <cstdint>
#include <cstdlib>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "common/features/tiling_pattern.h"

namespace pruner {
namespace {

// The statements from a kernel's body down to one store, outermost first.
struct StorePath {
  int kernel = -1;
  std::vector<Stmt> nodes;
};

// A global-level buffer that holds its whole tensor (region_min all zeros).
bool IsGlobalTensor(const Buffer& b) {
  if (DataflowLevel(b, DeviceKind::kCpu) != MemScope::kGlobal) return false;
  for (const Expr& e : b.region_min) {
    int64_t v = 0;
    if (!IsConstInt(e, &v) || v != 0) return false;
  }
  return true;
}

// The inputs of `store` that can get a cache tile: whole global tensors the
// value reads at a single index tuple, in first-read order, each with that
// tuple.
struct Stageable {
  int buffer;
  const std::vector<Expr>* indices;
};
std::vector<Stageable> StageableInputs(const StmtNode& store, const Program& program) {
  std::vector<Stageable> out;
  for (int source : ReadTensors(store.value)) {
    const Buffer& x = program.buffer(source);
    if (!IsGlobalTensor(x)) continue;
    const std::vector<Expr>* indices = nullptr;
    bool one_tuple = true;
    VisitExpr(store.value, [&](const ExprNode& e) {
      if (e.kind != ExprKind::kRead || e.id != source) return;
      if (indices == nullptr) {
        indices = &e.args;
        return;
      }
      for (size_t d = 0; d < e.args.size(); ++d) {
        one_tuple = one_tuple && StructurallyEqual(e.args[d], (*indices)[d]);
      }
    });
    if (one_tuple && indices != nullptr && indices->size() == x.shape.size()) {
      out.push_back({source, indices});
    }
  }
  return out;
}

// A reduce update accumulating into a local-level buffer from exactly two
// stageable inputs. (With one or three, the pattern cannot match there:
// it needs two fetches followed by the compute.)
bool IsTiledUpdate(const StmtNode& s, const Program& program) {
  if (s.kind != StmtKind::kStore || s.store_role != StoreRole::kReduceUpdate) return false;
  if (DataflowLevel(program.buffer(s.buffer), DeviceKind::kCpu) != MemScope::kLocal) return false;
  return StageableInputs(s, program).size() == 2;
}

// Depth-first search for the first tiled update (in program order) whose
// init store came before it.
class TargetFinder {
 public:
  explicit TargetFinder(const Program& program)
      : program_(program), init_of_buffer_(program.buffers.size()) {}

  bool Find(StorePath* update, StorePath* init) {
    for (int k = 0; k < static_cast<int>(program_.kernels.size()); ++k) {
      kernel_ = k;
      const Stmt& body = program_.kernels[k].body;
      if (body != nullptr && Visit(body)) {
        update->kernel = k;
        update->nodes = stack_;
        *init = init_of_buffer_[stack_.back()->buffer];
        return true;
      }
    }
    return false;
  }

 private:
  // True when the target was found (stack_ then holds its path).
  bool Visit(const Stmt& s) {
    stack_.push_back(s);
    switch (s->kind) {
      case StmtKind::kStore:
        if (s->store_role == StoreRole::kReduceInit) {
          init_of_buffer_[s->buffer] = {kernel_, stack_};
        } else if (IsTiledUpdate(*s, program_) &&
                   !init_of_buffer_[s->buffer].nodes.empty()) {
          return true;
        }
        break;
      case StmtKind::kSeq:
        for (const Stmt& child : s->seq) {
          if (Visit(child)) return true;
        }
        break;
      case StmtKind::kFor:
      case StmtKind::kAllocate:
      case StmtKind::kIfThenElse:
        if (s->body != nullptr && Visit(s->body)) return true;
        if (s->else_body != nullptr && Visit(s->else_body)) return true;
        break;
      case StmtKind::kBarrier:
        break;
    }
    stack_.pop_back();
    return false;
  }

  const Program& program_;
  int kernel_ = -1;
  std::vector<Stmt> stack_;
  std::vector<StorePath> init_of_buffer_;
};

// True when a variable with a slot occurs in e.
bool UsesTileVar(const ExprNode& e, std::span<const int> slot) {
  if (e.kind == ExprKind::kVar) {
    return e.id >= 0 && e.id < static_cast<int>(slot.size()) && slot[e.id] >= 0;
  }
  for (const Expr& arg : e.args) {
    if (UsesTileVar(*arg, slot)) return true;
  }
  return false;
}

// Adds scale * (coefficient of each tile variable in e) to coefs[slot] and
// returns true when e = f(other variables) + sum(c * tile variable), i.e.
// tile variables occur only under +, -, * by a constant and integer casts.
bool TileLinear(const ExprNode& e, int64_t scale, std::span<const int> slot,
                std::vector<int64_t>* coefs) {
  switch (e.kind) {
    case ExprKind::kVar:
      if (e.id >= 0 && e.id < static_cast<int>(slot.size()) && slot[e.id] >= 0) {
        (*coefs)[slot[e.id]] += scale;
      }
      return true;
    case ExprKind::kCast:
      if (IsInt(e.dtype)) return TileLinear(*e.args[0], scale, slot, coefs);
      break;
    case ExprKind::kBinary: {
      int64_t c = 0;
      switch (e.binary_op()) {
        case BinaryOp::kAdd:
          return TileLinear(*e.args[0], scale, slot, coefs) &&
                 TileLinear(*e.args[1], scale, slot, coefs);
        case BinaryOp::kSub:
          return TileLinear(*e.args[0], scale, slot, coefs) &&
                 TileLinear(*e.args[1], -scale, slot, coefs);
        case BinaryOp::kMul:
          if (IsConstInt(e.args[1], &c)) return TileLinear(*e.args[0], scale * c, slot, coefs);
          if (IsConstInt(e.args[0], &c)) return TileLinear(*e.args[1], scale * c, slot, coefs);
          break;
        default:
          break;
      }
      break;
    }
    default:
      break;
  }
  return !UsesTileVar(e, slot);
}

struct TileLoop {
  int var;
  std::string name;
  int64_t extent;
};

// One dimension of a cache tile: its global start (over the loops outside
// the tile), its extent, and the tile-relative index the compute reads.
struct TileDim {
  Expr min;
  int64_t extent = 1;
  Expr index;
};

TileDim TileDimOf(const Expr& index, int64_t tensor_extent, std::span<const TileLoop> loops,
                  std::span<const int> slot) {
  std::vector<int64_t> coefs(loops.size(), 0);
  if (!TileLinear(*index, 1, slot, &coefs)) {
    // The inner loops move the index non-linearly: the tile spans the
    // whole dimension and the compute keeps its global index.
    return {IntImm(0), tensor_extent, index};
  }
  TileDim dim;
  int64_t offset = 0;  // how far below the index at inner loops = 0 the box starts
  Expr relative = IntImm(0);
  for (size_t i = 0; i < loops.size(); ++i) {
    const int64_t c = coefs[i];
    if (c == 0) continue;
    const int64_t span = loops[i].extent - 1;
    dim.extent += std::abs(c) * span;
    if (c < 0) offset += -c * span;
    relative = Add(relative, Mul(Var(loops[i].var, loops[i].name), IntImm(c)));
  }
  dim.min = SubstituteVars(index, [&](int var) -> Expr {
    if (var < 0 || var >= static_cast<int>(slot.size()) || slot[var] < 0) return nullptr;
    return IntImm(coefs[slot[var]] < 0 ? loops[slot[var]].extent - 1 : 0);
  });
  dim.index = Add(relative, IntImm(offset));
  return dim;
}

// A copy of `parent` with its child `old_child` replaced.
Stmt ReplaceChild(const StmtNode& parent, const StmtNode* old_child, Stmt new_child) {
  auto copy = std::make_shared<StmtNode>(parent);
  if (copy->body.get() == old_child) {
    copy->body = std::move(new_child);
  } else if (copy->else_body.get() == old_child) {
    copy->else_body = std::move(new_child);
  } else {
    for (Stmt& c : copy->seq) {
      if (c.get() == old_child) {
        c = std::move(new_child);
        break;
      }
    }
  }
  return copy;
}

struct StagedTile {
  int source = -1;  // the global buffer
  int tile = -1;    // its cache tile
  std::vector<TileDim> dims;
};

}  // namespace

std::optional<Program> StageCpuCacheTiles(const Program& program) {
  if (program.target != DeviceKind::kCpu) return std::nullopt;
  StorePath update, init;
  if (!TargetFinder(program).Find(&update, &init)) return std::nullopt;
  const StmtNode& store = *update.nodes.back();

  // The update's loops (and their places in its path), and how many of them
  // it shares with its init.
  std::vector<int> loop_at;  // path index of each enclosing For, outermost first
  for (int i = 0; i < static_cast<int>(update.nodes.size()); ++i) {
    if (update.nodes[i]->kind == StmtKind::kFor) loop_at.push_back(i);
  }
  const int depth = static_cast<int>(loop_at.size());
  int shared_loops = 0;
  if (init.kernel == update.kernel) {
    const size_t common = std::min(init.nodes.size(), update.nodes.size());
    for (size_t i = 0; i < common && init.nodes[i] == update.nodes[i]; ++i) {
      shared_loops += init.nodes[i]->kind == StmtKind::kFor;
    }
  }
  if (shared_loops >= depth) return std::nullopt;  // no reduction nest of its own
  const StmtNode& first = *update.nodes[loop_at[shared_loops]];
  const Buffer& dest = program.buffer(store.buffer);
  bool first_is_reduce = true;
  for (const Expr& e : store.indices) first_is_reduce = first_is_reduce && !UsesVar(e, first.var);
  for (const Expr& e : dest.region_min) first_is_reduce = first_is_reduce && !UsesVar(e, first.var);
  const int tile_level = shared_loops + (first_is_reduce ? 1 : 0);
  // The path node the copies go in front of: the loop at tile_level, or
  // the store itself when the tile sits inside the innermost loop.
  const int wrap_at =
      tile_level < depth ? loop_at[tile_level] : static_cast<int>(update.nodes.size()) - 1;

  std::vector<TileLoop> inner;
  std::vector<int> slot(program.num_vars(), -1);
  for (int l = tile_level; l < depth; ++l) {
    const StmtNode& loop = *update.nodes[loop_at[l]];
    if (loop.var < 0 || loop.var >= program.num_vars()) continue;
    slot[loop.var] = static_cast<int>(inner.size());
    inner.push_back({loop.var, loop.var_name, loop.extent});
  }

  // A cache tile for each stageable input.
  Program staged = program;
  std::vector<StagedTile> tiles;
  for (const Stageable& input : StageableInputs(store, program)) {
    const Buffer& x = program.buffer(input.buffer);
    StagedTile t;
    t.source = input.buffer;
    t.tile = static_cast<int>(staged.buffers.size());
    Buffer tile;
    tile.id = t.tile;
    tile.name = x.name + ".tile";
    tile.scope = MemScope::kShared;
    tile.dtype = x.dtype;
    tile.tensor_id = x.tensor_id;
    tile.role = BufferRole::kIntermediate;
    tile.attached = true;
    for (size_t d = 0; d < input.indices->size(); ++d) {
      t.dims.push_back(TileDimOf((*input.indices)[d], x.shape[d], inner, slot));
      tile.shape.push_back(t.dims.back().extent);
      tile.region_min.push_back(t.dims.back().min);
    }
    staged.buffers.push_back(std::move(tile));
    tiles.push_back(std::move(t));
  }
  if (tiles.empty()) return std::nullopt;

  // The compute reads the tiles.
  const Expr value = RewriteReads(store.value, [&](const ExprNode& read) -> Expr {
    for (const StagedTile& t : tiles) {
      if (read.id != t.source) continue;
      std::vector<Expr> index;
      for (const TileDim& d : t.dims) index.push_back(d.index);
      const Buffer& tile = staged.buffer(t.tile);
      return Read(tile.id, tile.name, tile.dtype, std::move(index));
    }
    return nullptr;
  });
  Stmt current = MakeStore(store.buffer, store.indices, value, store.store_role, store.stage);

  // tile[t0, t1, ...] = X[min0 + t0, min1 + t1, ...], one serial loop per
  // dimension longer than 1 (lowering drops extent-1 loops too).
  auto copy_nest = [&](const StagedTile& t) {
    const Buffer& tile = staged.buffer(t.tile);
    const Buffer& x = staged.buffer(t.source);
    std::vector<Expr> tile_index, source_index;
    std::vector<TileLoop> loops;
    for (size_t d = 0; d < t.dims.size(); ++d) {
      Expr at = IntImm(0);
      if (t.dims[d].extent > 1) {
        const int var = staged.num_vars();
        staged.var_names.push_back(tile.name + ".ax" + std::to_string(d));
        loops.push_back({var, staged.var_names.back(), t.dims[d].extent});
        at = Var(var, staged.var_names.back());
      }
      tile_index.push_back(at);
      source_index.push_back(Add(t.dims[d].min, at));
    }
    Stmt nest = MakeStore(tile.id, std::move(tile_index),
                          Read(x.id, x.name, x.dtype, std::move(source_index)),
                          StoreRole::kCompute, /*stage=*/-1);
    for (size_t i = loops.size(); i-- > 0;) {
      nest = MakeFor(loops[i].var, loops[i].name, loops[i].extent, ForKind::kSerial,
                     std::move(nest));
    }
    return nest;
  };
  auto wrap = [&](Stmt child) {
    std::vector<Stmt> seq;
    for (const StagedTile& t : tiles) seq.push_back(copy_nest(t));
    seq.push_back(std::move(child));
    Stmt body = MakeSeq(std::move(seq));
    for (size_t i = tiles.size(); i-- > 0;) body = MakeAllocate(tiles[i].tile, std::move(body));
    return body;
  };
  for (int i = static_cast<int>(update.nodes.size()) - 1; i >= 0; --i) {
    if (i == wrap_at) current = wrap(std::move(current));
    if (i > 0) current = ReplaceChild(*update.nodes[i - 1], update.nodes[i].get(), current);
  }
  staged.kernels[update.kernel].body = std::move(current);
  return staged;
}

}  // namespace pruner
