// Buffer layouts chosen by the loops that use them (layout_order.h): the
// transposed weights and accumulator tiles of CPU programs, and the input
// transpose callers rely on.
#include <string>

#include "common/ir/ops.h"
#include "common/lower/layout_order.h"
#include "common/lower/lower.h"
#include "gtest/gtest.h"
#include "tests/lower/lower_test_util.h"

namespace pruner {
namespace {

using testing::FindBuffer;
using testing::LowerAndCheck;
using testing::Share;
using testing::TestCpu;
using testing::TestGpu;

std::shared_ptr<const ComputeDag> SmallConv() {
  Conv2dParams p;
  p.in_channels = 8;
  p.height = 6;
  p.width = 6;
  p.out_channels = 16;
  p.kernel_h = 3;
  p.kernel_w = 3;
  p.pad_h = p.pad_w = 1;
  return Share(Conv2d(p));
}

// conv2d with the output channels innermost in the register tile (the
// sketch rules' "ff innermost" variant), padding computed at root.
constexpr char kConvFfInnermost[] =
    "CHW 3 local; SP 3 0 1 [1,1,1]; SP 3 4 16 [1,1,8]; SP 3 8 6 [1,1,1]; "
    "SP 3 12 6 [1,1,3]; SP 3 16 8 [1]; SP 3 18 3 [1]; SP 3 20 3 [1]; "
    "RE 3 [0,4,8,12,1,5,9,13,16,18,20,2,6,10,14,17,19,21,3,11,15,7]; "
    "FSP 4 0 1 1; FSP 4 2 2 1; FSP 4 4 3 1; FSP 4 6 4 1; RE 4 [0,2,4,6,1,3,5,7]; "
    "CA 3 4 3; FU 4 [0,1,2,3]; AN 4 0 parallel; AN 3 21 vectorize";

TEST(LayoutOrder, ConvWeightsAndTileGetTheOutputChannelLast) {
  absl::StatusOr<Program> program = LowerAndCheck(SmallConv(), kConvFfInnermost, TestCpu());
  ASSERT_TRUE(program.ok()) << program.status();
  const Buffer* w = FindBuffer(*program, "W");
  ASSERT_NE(w, nullptr);
  // W[ff, rc, ry, rx] read by loops rc.0 ry.0 rx.0 ... ff.3: stored
  // [rc][ry][rx][ff], the transpose callers apply from the tensor.
  EXPECT_EQ(w->dim_order, (std::vector<int>{1, 2, 3, 0}));
  EXPECT_EQ(w->shape, (std::vector<int64_t>{8, 3, 3, 16}));
  EXPECT_EQ(w->tensor_shape(), (std::vector<int64_t>{16, 8, 3, 3}));
  const Buffer* local = FindBuffer(*program, "conv2d.local");
  ASSERT_NE(local, nullptr);
  ASSERT_FALSE(local->dim_order.empty());
  EXPECT_EQ(local->dim_order.back(), 1);  // ff
  // The padded input is no layout-free tensor: its order stays.
  const Buffer* x = FindBuffer(*program, "X");
  ASSERT_NE(x, nullptr);
  EXPECT_TRUE(x->dim_order.empty());
}

TEST(LayoutOrder, TensorOrderWhenTheLoopsAlreadyFollowIt) {
  // Ansor's matmul sketch: A and B are no weights, C.local's j.3 is
  // innermost as in the tensor; nothing moves.
  absl::StatusOr<Program> program =
      LowerAndCheck(Share(Matmul(32, 16, 24)), testing::CpuMatmulSteps(32, 16, 24), TestCpu());
  ASSERT_TRUE(program.ok()) << program.status();
  for (const Buffer& b : program->buffers) EXPECT_TRUE(b.dim_order.empty()) << b.name;
}

TEST(LayoutOrder, GpuProgramsKeepTensorOrder) {
  absl::StatusOr<Program> program = LowerAndCheck(
      Share(Dense(64, 64, 64)),
      "SP 2 0 64 [1,4,2,2]; SP 2 5 64 [1,8,2,2]; SP 2 10 64 [4,4]; "
      "RE 2 [0,5,1,6,2,7,10,11,3,8,12,4,9]; FU 2 [0,1]; AN 2 0 blockIdx.x; "
      "FU 2 [1,2]; AN 2 1 vthread; FU 2 [2,3]; AN 2 2 threadIdx.x",
      TestGpu());
  ASSERT_TRUE(program.ok()) << program.status();
  for (const Buffer& b : program->buffers) EXPECT_TRUE(b.dim_order.empty()) << b.name;
}

TEST(LayoutOrder, InputInBufferLayoutTransposes) {
  Buffer b;
  b.name = "W";
  b.shape = {3, 2};  // stores W[2, 3] transposed
  b.dim_order = {1, 0};
  Tensor t;
  t.shape = {2, 3};
  t.data = {0, 1, 2, 10, 11, 12};
  absl::StatusOr<std::vector<float>> got = InputInBufferLayout(b, t);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(*got, (std::vector<float>{0, 10, 1, 11, 2, 12}));

  Tensor wrong;
  wrong.shape = {3, 2};
  wrong.data = t.data;
  absl::StatusOr<std::vector<float>> error = InputInBufferLayout(b, wrong);
  ASSERT_FALSE(error.ok());
  EXPECT_NE(std::string(error.status().message()).find("expected [2, 3]"), std::string::npos)
      << error.status();
}

}  // namespace
}  // namespace pruner
