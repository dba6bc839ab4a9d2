#include "common/ir/winograd.h"

#include "absl/strings/str_cat.h"

namespace pruner {
namespace {

// The F(2x2, 3x3) matrices of Lavin & Gray with B^T's third row negated
// (d1 - d2 instead of d2 - d1) and G's third row with it, which leaves the
// product unchanged and makes the first non-zero of every B^T row +1:
//
//   B^T = [1  0 -1  0]   G = [ 1    0    0 ]   A^T = [1  1  1  0]
//         [0  1  1  0]       [ 1/2  1/2  1/2]         [0  1 -1 -1]
//         [0  1 -1  0]       [-1/2  1/2 -1/2]
//         [0  1  0 -1]       [ 0    0    1 ]
//
// WinogradInputIndex/Sign and WinogradOutputSign below describe B^T and A^T;
// winograd_test checks them against these matrices entry by entry.
constexpr float kG[kWinogradAlpha][3] = {
    {1.0f, 0.0f, 0.0f}, {0.5f, 0.5f, 0.5f}, {-0.5f, 0.5f, -0.5f}, {0.0f, 0.0f, 1.0f}};

Expr Eq(const Expr& a, int64_t b) { return Compare(CompareOp::kEQ, a, IntImm(b)); }

Expr PlusOrMinusOne(Expr plus) { return Select(std::move(plus), FloatImm(1.0), FloatImm(-1.0)); }

}  // namespace

absl::Status CheckWinogradEligible(int64_t kernel_h, int64_t kernel_w, int64_t stride_h,
                                   int64_t stride_w, int64_t dilation_h, int64_t dilation_w,
                                   int64_t groups, int64_t pad_h, int64_t pad_w, int64_t height,
                                   int64_t width) {
  auto fail = [](auto&&... parts) {
    return absl::InvalidArgumentError(absl::StrCat("conv2d_winograd: ", parts...));
  };
  if (kernel_h != 3 || kernel_w != 3) return fail("needs a 3x3 kernel, got ", kernel_h, "x", kernel_w);
  if (stride_h != 1 || stride_w != 1) return fail("needs stride 1, got ", stride_h, "x", stride_w);
  if (dilation_h != 1 || dilation_w != 1) {
    return fail("needs dilation 1, got ", dilation_h, "x", dilation_w);
  }
  if (groups != 1) return fail("needs groups=1, got ", groups);
  if (pad_h < 0 || pad_h > 2 || pad_w < 0 || pad_w > 2) {
    return fail("needs padding in [0, 2], got ", pad_h, "x", pad_w);
  }
  if (height + 2 * pad_h < 3 || width + 2 * pad_w < 3) {
    return fail("the padded input ", height + 2 * pad_h, "x", width + 2 * pad_w,
                " is smaller than the 3x3 kernel");
  }
  return absl::OkStatus();
}

std::vector<float> WinogradPackWeights(const std::vector<float>& oihw, int64_t out_channels,
                                       int64_t in_channels) {
  std::vector<float> packed(static_cast<size_t>(kWinogradAlpha * kWinogradAlpha * in_channels *
                                                out_channels));
  for (int64_t k = 0; k < out_channels; ++k) {
    for (int64_t c = 0; c < in_channels; ++c) {
      const float* g = &oihw[static_cast<size_t>((k * in_channels + c) * 9)];
      // G g (4x3), then (G g) G^T (4x4), in double so that packing adds no
      // rounding of its own beyond the final float.
      double gg[kWinogradAlpha][3] = {};
      for (int e = 0; e < kWinogradAlpha; ++e) {
        for (int j = 0; j < 3; ++j) {
          for (int i = 0; i < 3; ++i) gg[e][j] += double{kG[e][i]} * g[i * 3 + j];
        }
      }
      for (int e = 0; e < kWinogradAlpha; ++e) {
        for (int u = 0; u < kWinogradAlpha; ++u) {
          double sum = 0;
          for (int j = 0; j < 3; ++j) sum += gg[e][j] * kG[u][j];
          packed[static_cast<size_t>(((e * kWinogradAlpha + u) * in_channels + c) * out_channels +
                                     k)] = static_cast<float>(sum);
        }
      }
    }
  }
  return packed;
}

// B^T rows as (first index, second index, second sign): (0, 2, -), (1, 2, +),
// (1, 2, -), (1, 3, -): the first index is min(row, 1), the second
// 2 + row / 3, and only row 1 adds its second term.
Expr WinogradInputIndex(const Expr& row, const Expr& term) {
  return Select(Eq(term, 0), Min(row, IntImm(1)), Add(FloorDiv(row, IntImm(3)), IntImm(2)));
}

Expr WinogradInputSign(const Expr& row, const Expr& term) {
  return PlusOrMinusOne(Or(Eq(term, 0), Eq(row, 1)));
}

// A^T rows: (+, +, +) from index 0 and (+, -, -) from index 1.
Expr WinogradOutputSign(const Expr& row, const Expr& term) {
  return PlusOrMinusOne(Or(Eq(row, 0), Eq(term, 0)));
}

}  // namespace pruner
