// How the CPU backend splits a vectorized loop into vectors, kept below
// codegen so that the LLVM emitter (which applies it) and the symbol
// analyzer (which counts the registers and instructions it costs) read one
// rule, as unroll_rules.h does for unrolling.
#ifndef PRUNER_COMMON_LOWER_VECTOR_PIECES_H_
#define PRUNER_COMMON_LOWER_VECTOR_PIECES_H_

#include <cstdint>
#include <vector>

namespace pruner {

// The widest vector one piece of a vectorized loop becomes.
inline constexpr int64_t kMaxVectorPieceLanes = 256;
// A remainder narrower than this stays one vector.
inline constexpr int64_t kSplitVectorLanes = 8;

// The lanes of each vector a vectorized loop of `extent` iterations goes out
// as: power-of-two widths of at most kMaxVectorPieceLanes, widest first,
// down to a remainder narrower than kSplitVectorLanes that stays one vector
// (144: 128 + 16; 14: 8 + 6; 12: 8 + 4; 7: 7; 384: 256 + 128). LLVM splits
// a power-of-two vector into the machine's registers cleanly but legalizes
// wide others poorly (cpu_llvm_codegen.cc says what that cost). Empty for
// extent < 1.
std::vector<int64_t> VectorPieces(int64_t extent);

// The machine vector registers (and so instructions) one value of such a
// loop occupies on a machine of `register_lanes` lanes: each piece takes
// ceil(piece / register_lanes). 14 lanes on 16-lane registers take 2 (an
// 8-lane and a 6-lane vector), 16 take 1, 32 take 2. At least 1.
int64_t VectorRegisters(int64_t extent, int64_t register_lanes);

}  // namespace pruner

#endif  // PRUNER_COMMON_LOWER_VECTOR_PIECES_H_
