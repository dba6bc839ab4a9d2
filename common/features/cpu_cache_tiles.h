// The CPU counterpart of the GPU shared-memory stage, for the PaCM dataflow
// blocks (dataflow_features.cc).
//
// Ansor's GPU sketch copies the tiles of a tiled reduction's inputs into
// shared memory inside the outermost reduce loop; the compute then reads
// them from there. Its CPU sketch tiles the same loops but leaves the
// staging to the caches: the compute reads the inputs straight from global
// memory, and the tile it walks per reduce step is only implicit. To give
// CPU programs the same global -> tile -> local dataflow, this file makes
// that tile explicit: a copy of the program in which each global input of
// the reduction is first copied, at the place Ansor's GPU sketch would put
// its shared stage, into a "cache tile" buffer of scope shared, and the
// compute reads the tile instead. The copy is analysed, never run.
#ifndef PRUNER_COMMON_FEATURES_CPU_CACHE_TILES_H_
#define PRUNER_COMMON_FEATURES_CPU_CACHE_TILES_H_

#include <optional>

#include "common/lower/program.h"

namespace pruner {

// The staged copy of a CPU program, or std::nullopt when there is nothing to
// stage: a GPU program, or no reduction that accumulates into a local-level
// buffer (tiling_pattern.h DataflowLevel) behind a separate init store while
// reading exactly two inputs it can stage (whole global tensors, each read
// at one index tuple). With one or three such inputs the pattern cannot
// match there: it needs two fetches followed by the compute.
//
// Only the first such reduction, in program order, is staged (the pattern
// uses only its first match). Where the tile goes: the update's loops below
// the deepest loop it shares with its init store are its reduction nest
// (Ansor's multi-level tiling puts the outermost reduce split first in that
// nest). The tiles are copied inside the first loop of the nest when that
// loop is a reduce loop, i.e. one tile per reduce step, exactly where the
// GPU sketch attaches its shared stage; when the first loop of the nest is
// spatial (the outer reduce split had extent 1 and lowering dropped it),
// just before the nest, so that the tile spans the whole reduction. Either
// way the copies come after the init and before the compute, the order the
// pattern needs.
//
// The tile of input X is the box X's indices cover while the loops inside
// the tile's place run, with the outer loops at their current iteration:
// per dimension, an index that is f(outer loops) + sum(c * inner loop)
// gives a box of 1 + sum(|c| * (extent - 1)) starting at f + the negative
// terms at their far end; any other index (an inner loop under a division,
// a min, a select ...) gives the whole dimension.
std::optional<Program> StageCpuCacheTiles(const Program& program);

}  // namespace pruner

#endif  // PRUNER_COMMON_FEATURES_CPU_CACHE_TILES_H_
