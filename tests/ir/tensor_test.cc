#include "common/ir/tensor.h"

#include <cmath>
#include <iostream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pruner {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(TensorTest, ShapesStridesAndIndexing) {
  Tensor t = Tensor::Zeros({2, 3, 4});
  EXPECT_EQ(t.num_elements(), 24);
  EXPECT_EQ(t.data.size(), 24u);
  EXPECT_THAT(t.strides(), ElementsAre(12, 4, 1));
  t.at({1, 2, 3}) = 5.0f;
  EXPECT_EQ(t.data[23], 5.0f);
  EXPECT_EQ(t.at({1, 2, 3}), 5.0f);
  EXPECT_THAT(UnflattenIndex(23, t.shape), ElementsAre(1, 2, 3));
  EXPECT_EQ(ShapeToString(t.shape), "[2, 3, 4]");
  EXPECT_EQ(NumElements({}), 1);  // a scalar
}

TEST(TensorTest, RandomValuesAreNonZeroAndSeeded) {
  const Tensor a = RandomTensor({1000}, 7);
  const Tensor b = RandomTensor({1000}, 7);
  const Tensor c = RandomTensor({1000}, 8);
  EXPECT_EQ(a.data, b.data);
  EXPECT_NE(a.data, c.data);
  int negatives = 0;
  for (float v : a.data) {
    EXPECT_GE(std::fabs(v), 0.1f);
    EXPECT_LE(std::fabs(v), 1.0f);
    negatives += v < 0;
  }
  EXPECT_GT(negatives, 400);
  EXPECT_LT(negatives, 600);
  // Pinned: the values depend only on the seed, on every platform, so a
  // worker and the server draw the same inputs.
  EXPECT_THAT(RandomTensor({4}, 0).data,
              ElementsAre(-0.894979715f, 0.488375157f, -0.123790391f, 0.973793745f));
  const Tensor ints = RandomTensor({100}, 3, DType::kInt32);
  for (float v : ints.data) {
    EXPECT_EQ(v, std::round(v));
    EXPECT_NE(v, 0.0f);
    EXPECT_LE(std::fabs(v), 10.0f);
  }
}

TEST(CheckAllCloseTest, AcceptsValuesWithinTolerance) {
  Tensor want = Tensor::Zeros({2, 2});
  want.data = {1.0f, -2.0f, 100.0f, NAN};
  Tensor got = want;
  got.data[2] = 100.0009f;
  EXPECT_TRUE(CheckAllClose(got, want, 1e-5, 0).ok());
  EXPECT_TRUE(CheckAllClose(want, want, 0, 0).ok());
}

TEST(CheckAllCloseTest, NamesFirstMismatchAndCount) {
  Tensor want = Tensor::Zeros({2, 3});
  want.data = {1, 2, 3, 4, 5, 6};
  Tensor got = want;
  got.data[4] = 5.5f;
  got.data[5] = NAN;
  absl::Status s = CheckAllClose(got, want, 1e-5, 1e-6);
  EXPECT_EQ(s.code(), absl::StatusCode::kInternal);
  EXPECT_THAT(std::string(s.message()), HasSubstr("2 of 6 elements differ"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("first at index [1, 1]: got 5.5, want 5"));
  std::cout << "CheckAllClose: " << s << "\n";
}

TEST(CheckAllCloseTest, RejectsShapeAndDTypeMismatch) {
  absl::Status shape = CheckAllClose(Tensor::Zeros({2, 3}), Tensor::Zeros({3, 2}), 0, 0);
  EXPECT_EQ(shape.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(shape.message()), HasSubstr("shape mismatch: got [2, 3], want [3, 2]"));
  absl::Status dtype =
      CheckAllClose(Tensor::Zeros({2}, DType::kFloat16), Tensor::Zeros({2}), 0, 0);
  EXPECT_EQ(dtype.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(dtype.message()), HasSubstr("dtype mismatch: got float16, want float32"));
  std::cout << shape << "\n" << dtype << "\n";
}

}  // namespace
}  // namespace pruner
