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
constexpr double kG2[4][3] = {{1, 0, 0}, {0.5, 0.5, 0.5}, {-0.5, 0.5, -0.5}, {0, 0, 1}};

// F(4x4, 3x3), Lavin & Gray's matrices:
//
//   B^T = [4  0 -5  0  1  0]   G = [ 1/4    0     0  ]   A^T = [1  1  1  1  1  0]
//         [0 -4 -4  1  1  0]       [-1/6  -1/6  -1/6 ]         [0  1 -1  2 -2  0]
//         [0  4 -4 -1  1  0]       [-1/6   1/6  -1/6 ]         [0  1  1  4  4  0]
//         [0 -2 -1  2  1  0]       [ 1/24  1/12  1/6 ]         [0  1 -1  8 -8  1]
//         [0  2 -1 -2  1  0]       [ 1/24 -1/12  1/6 ]
//         [0  4  0 -5  0  1]       [ 0     0     1   ]
//
// as (column, coefficient) terms, 4 per row of B^T and 5 per row of A^T; a
// row with fewer non-zeros splits a coefficient over two terms of one
// column (winograd.h says why). winograd_test multiplies them out.
constexpr double kG4[6][3] = {{1.0 / 4, 0, 0},
                              {-1.0 / 6, -1.0 / 6, -1.0 / 6},
                              {-1.0 / 6, 1.0 / 6, -1.0 / 6},
                              {1.0 / 24, 1.0 / 12, 1.0 / 6},
                              {1.0 / 24, -1.0 / 12, 1.0 / 6},
                              {0, 0, 1}};
struct Term {
  int column;
  int coef;
};
constexpr Term kInputTerms4[6][4] = {{{0, 4}, {2, -4}, {2, -1}, {4, 1}},
                                     {{1, -4}, {2, -4}, {3, 1}, {4, 1}},
                                     {{1, 4}, {2, -4}, {3, -1}, {4, 1}},
                                     {{1, -2}, {2, -1}, {3, 2}, {4, 1}},
                                     {{1, 2}, {2, -1}, {3, -2}, {4, 1}},
                                     {{1, 4}, {3, -4}, {3, -1}, {5, 1}}};
constexpr Term kOutputTerms4[4][5] = {{{0, 1}, {1, 1}, {2, 1}, {3, 1}, {4, 1}},
                                      {{1, 1}, {2, -1}, {3, 1}, {3, 1}, {4, -2}},
                                      {{1, 1}, {2, 1}, {3, 2}, {3, 2}, {4, 4}},
                                      {{1, 1}, {2, -1}, {3, 8}, {4, -8}, {5, 1}}};

// table[row][term] as an expression of row and term: a chain of selects
// that folds to one literal once both are constants.
template <size_t kRows, size_t kTerms, class Value>
Expr Lookup(const Term (&table)[kRows][kTerms], const Expr& row, const Expr& term, Value value) {
  Expr by_row;
  for (int r = static_cast<int>(kRows) - 1; r >= 0; --r) {
    Expr by_term = value(table[r][kTerms - 1]);
    for (int t = static_cast<int>(kTerms) - 2; t >= 0; --t) {
      by_term = Select(Compare(CompareOp::kEQ, term, IntImm(t)), value(table[r][t]), by_term);
    }
    by_row = r == static_cast<int>(kRows) - 1
                 ? by_term
                 : Select(Compare(CompareOp::kEQ, row, IntImm(r)), by_term, by_row);
  }
  return by_row;
}

Expr ColumnOf(const Term& t) { return IntImm(t.column); }
Expr CoefOf(const Term& t) { return FloatImm(t.coef); }

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
                                       int64_t in_channels, int64_t tile) {
  const int alpha = static_cast<int>(tile) + 2;
  const double(*kg)[3] = tile == 4 ? kG4 : kG2;
  std::vector<float> packed(static_cast<size_t>(alpha * alpha * in_channels * out_channels));
  for (int64_t k = 0; k < out_channels; ++k) {
    for (int64_t c = 0; c < in_channels; ++c) {
      const float* g = &oihw[static_cast<size_t>((k * in_channels + c) * 9)];
      // G g (alpha x 3), then (G g) G^T (alpha x alpha), in double so that
      // packing adds no rounding of its own beyond the final float.
      double gg[6][3] = {};
      for (int e = 0; e < alpha; ++e) {
        for (int j = 0; j < 3; ++j) {
          for (int i = 0; i < 3; ++i) gg[e][j] += kg[e][i] * g[i * 3 + j];
        }
      }
      for (int e = 0; e < alpha; ++e) {
        for (int u = 0; u < alpha; ++u) {
          double sum = 0;
          for (int j = 0; j < 3; ++j) sum += gg[e][j] * kg[u][j];
          packed[static_cast<size_t>(((e * alpha + u) * in_channels + c) * out_channels + k)] =
              static_cast<float>(sum);
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

int64_t WinogradInputTerms(int64_t tile) { return tile == 4 ? 4 : 2; }
int64_t WinogradOutputTerms(int64_t tile) { return tile == 4 ? 5 : 3; }

WinogradTerm WinogradInputTerm(int64_t tile, const Expr& row, const Expr& term) {
  if (tile == 4) {
    return {Lookup(kInputTerms4, row, term, ColumnOf), Lookup(kInputTerms4, row, term, CoefOf)};
  }
  return {WinogradInputIndex(row, term), WinogradInputSign(row, term)};
}

WinogradTerm WinogradOutputTerm(int64_t tile, const Expr& row, const Expr& term) {
  if (tile == 4) {
    return {Lookup(kOutputTerms4, row, term, ColumnOf), Lookup(kOutputTerms4, row, term, CoefOf)};
  }
  return {Add(row, term), WinogradOutputSign(row, term)};
}

}  // namespace pruner
