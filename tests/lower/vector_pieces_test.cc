// The split of a vectorized loop into vectors that the LLVM backend emits
// and the symbol analyzer counts (vector_pieces.h).
#include "common/lower/vector_pieces.h"

#include <vector>

#include "gtest/gtest.h"

namespace pruner {
namespace {

TEST(VectorPieces, PowerOfTwoPiecesDownToANarrowRemainder) {
  using V = std::vector<int64_t>;
  EXPECT_EQ(VectorPieces(16), V({16}));
  EXPECT_EQ(VectorPieces(14), V({8, 6}));
  EXPECT_EQ(VectorPieces(12), V({8, 4}));
  EXPECT_EQ(VectorPieces(7), V({7}));
  EXPECT_EQ(VectorPieces(144), V({128, 16}));
  EXPECT_EQ(VectorPieces(384), V({256, 128}));
  EXPECT_EQ(VectorPieces(1024), V({256, 256, 256, 256}));
  EXPECT_TRUE(VectorPieces(0).empty());
}

TEST(VectorPieces, RegistersCountEachPieceInWholeRegisters) {
  EXPECT_EQ(VectorRegisters(16, 16), 1);
  EXPECT_EQ(VectorRegisters(14, 16), 2);  // an 8- and a 6-lane vector
  EXPECT_EQ(VectorRegisters(7, 16), 1);
  EXPECT_EQ(VectorRegisters(32, 16), 2);
  EXPECT_EQ(VectorRegisters(16, 8), 2);  // AVX2: two ymm
  EXPECT_EQ(VectorRegisters(14, 8), 2);
  EXPECT_EQ(VectorRegisters(144, 16), 9);
  EXPECT_EQ(VectorRegisters(1, 16), 1);
}

}  // namespace
}  // namespace pruner
