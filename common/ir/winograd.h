// Winograd F(m x m, 3x3) convolution on NHWC tensors (Lavin & Gray, 2016),
// m = 2 or 4: each m x m output tile of a 3x3, stride-1 convolution comes
// from an a x a input tile (a = m + 2) with a^2 multiplies per (input,
// output) channel pair instead of 9 m^2: 16 instead of 36 for F(2x2, 3x3),
// 36 instead of 144 for F(4x4, 3x3). The work becomes four stages, the way
// TVM's auto-scheduler writes conv2d_winograd_nhwc, so that the sketch rules
// tile the batched product like any matmul:
//
//   data_pack[e, u, p, c] = sum_{a, b} B[a, e] B[b, u] tile_p[a, b, c]
//   bgemm[e, u, p, k]     = sum_c data_pack[e, u, p, c] * U[e, u, c, k]
//   inverse[i, j, p, k]   = sum_{a, b} A[a, i] A[b, j] bgemm[a, b, p, k]
//   out[n, y, x, k]       = inverse[y % m, x % m, tile of (n, y, x), k]
//
// p runs over the N * ceil(OH/m) * ceil(OW/m) tiles. U = G g G^T is the
// packed weight [a, a, C, K], computed once from the OIHW weight
// (WinogradPackWeights) when the model is compiled, never inside the timed
// kernel. The tile size is the packed weight's first extent minus 2.
//
// Instead of reading constant matrices the transforms reduce over a row's
// non-zero entries only, with the column and the coefficient computed from
// the row and the term:
// - F(2x2, 3x3): B and A have entries 0 and +-1 (B's rows are scaled so
//   that G absorbs the 1/2 factors): 2 terms per row of B, 3 per row of A,
//   so data_pack sums 4 terms per element and inverse 9, not 16.
// - F(4x4, 3x3): 4 terms per row of B and 5 per row of A (16 and 25 per
//   element, not 36). Rows with fewer non-zeros split one coefficient over
//   two terms of the same column (-5 = -4 - 1) rather than padding with a
//   zero coefficient: x * 0 is not 0 for every float, so a zero term would
//   cost a multiply-add in the generated code.
// The sketch rule SimplifyComputeWithConstTensor unrolls the row and term
// loops, and every index and coefficient becomes a literal.
//
// The stage builders are templates over the builder type so that the
// operator library (ops.cc) and the graph's stage builder (stages.cc) share
// one definition, and a graph task prints the same canonical text as the
// single operator.
#ifndef PRUNER_COMMON_IR_WINOGRAD_H_
#define PRUNER_COMMON_IR_WINOGRAD_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "common/ir/compute_dag.h"
#include "common/ir/expr.h"

namespace pruner {

inline constexpr int64_t kWinogradTile = 2;   // the default output tile side (m)
// Stage tags of the two transforms, which the CPU sketch rule
// SimplifyComputeWithConstTensor recognizes.
inline constexpr char kWinogradDataPackTag[] = "winograd_data_pack";
inline constexpr char kWinogradInverseTag[] = "winograd_inverse";
// Tags of the batched product and of the output stage (what the seed
// schedules of common/sketch/winograd_seeds.h look for).
inline constexpr char kWinogradBgemmTag[] = "winograd_bgemm";
inline constexpr char kWinogradOutputTag[] = "conv2d_winograd_nhwc";
inline constexpr int64_t kWinogradAlpha = 4;  // input tile side (m + r - 1) at kWinogradTile

// True for the output tile sides with a Winograd form here: 2 and 4.
inline bool IsWinogradTile(int64_t tile) { return tile == 2 || tile == 4; }

// Sizes of one NHWC Winograd convolution.
struct WinogradShape {
  int64_t batch = 1;
  int64_t height = 0;
  int64_t width = 0;
  int64_t in_channels = 0;
  int64_t out_channels = 0;
  int64_t pad_h = 0;
  int64_t pad_w = 0;
  int64_t tile = kWinogradTile;  // output tile side m: 2 or 4

  int64_t alpha() const { return tile + 2; }  // input tile side
  int64_t out_h() const { return height + 2 * pad_h - 2; }
  int64_t out_w() const { return width + 2 * pad_w - 2; }
  int64_t tiles_h() const { return (out_h() + tile - 1) / tile; }
  int64_t tiles_w() const { return (out_w() + tile - 1) / tile; }
  int64_t tiles() const { return batch * tiles_h() * tiles_w(); }
  // Bytes of the transformed input tiles (alpha^2 x tiles x C floats), or of
  // the products per output channel when there are more of those.
  int64_t tile_bytes() const {
    const int64_t channels = in_channels > out_channels ? in_channels : out_channels;
    return alpha() * alpha() * tiles() * channels * 4;
  }
  // Bytes of the packed weight [alpha, alpha, C, K].
  int64_t packed_weight_bytes() const { return alpha() * alpha() * in_channels * out_channels * 4; }
};

// Whether Winograd with s.tile is expected to beat a direct convolution of
// this shape on a CPU: its transformed tiles (tile_bytes) must fit in about
// 2 MiB, so that the batched product and the output transform find them in
// cache. Inside ResNet-18 on a 2-core EPYC the 64-channel 56x56
// convolutions as F(2x2, 3x3) (3.2 MB of tiles) ran at 1.7-2.6 ms against
// 1.0 ms direct, the 128- and 256-channel ones (1.6 and 0.8 MB) at 0.7-1.0 ms
// against 1.0-1.1 ms (bench/README.md, session 19).
inline constexpr int64_t kWinogradMaxTileBytes = int64_t{2} << 20;
inline bool WinogradPays(const WinogradShape& s) {
  return s.tile_bytes() <= kWinogradMaxTileBytes;
}

// The output tile side to use for a convolution of this shape (s.tile is
// ignored): 4 when F(4x4, 3x3) pays and its packed weight, streamed from
// memory once per call inside a model, stays within kWinogradMaxF4WeightBytes;
// else 2 when F(2x2, 3x3) pays; else 0 (direct convolution). F(4x4, 3x3)
// does 36 multiplies per 16 outputs where F(2x2, 3x3) does 16 per 4, but its
// weight is 2.25 times larger, and with fewer tiles each weight is reused
// less: 256 channels at 14x14 would stream 9.4 MB for 16 tiles.
inline constexpr int64_t kWinogradMaxF4WeightBytes = int64_t{4} << 20;
inline int64_t ChooseWinogradTile(WinogradShape s) {
  s.tile = 4;
  if (WinogradPays(s) && s.packed_weight_bytes() <= kWinogradMaxF4WeightBytes) return 4;
  s.tile = 2;
  return WinogradPays(s) ? 2 : 0;
}

// OK when a convolution with these parameters has a Winograd form here: a
// 3x3 kernel, stride 1, no dilation, one group, padding at most 1 and an
// output at least 2x2. Otherwise InvalidArgument saying which condition
// fails.
absl::Status CheckWinogradEligible(int64_t kernel_h, int64_t kernel_w, int64_t stride_h,
                                   int64_t stride_w, int64_t dilation_h, int64_t dilation_w,
                                   int64_t groups, int64_t pad_h, int64_t pad_w, int64_t height,
                                   int64_t width);

// U[e, u, c, k] = sum_{i, j} G[e, i] W[k, c, i, j] G[u, j] for an OIHW weight
// [K, C, 3, 3], row-major; the result is [a, a, C, K], row-major, a = tile + 2.
// `tile` must satisfy IsWinogradTile.
std::vector<float> WinogradPackWeights(const std::vector<float>& oihw, int64_t out_channels,
                                       int64_t in_channels, int64_t tile = kWinogradTile);

// F(2x2, 3x3): row `row` of B^T has non-zeros at WinogradInputIndex(row, 0)
// (sign +1) and WinogradInputIndex(row, 1) (sign WinogradInputSign(row, 1));
// `term` is 0 or 1. Row `row` of A^T has non-zeros at row + term, term = 0,
// 1, 2, with sign WinogradOutputSign(row, term). All take and return
// expressions so they can index with loop variables; the signs are float32.
Expr WinogradInputIndex(const Expr& row, const Expr& term);
Expr WinogradInputSign(const Expr& row, const Expr& term);
Expr WinogradOutputSign(const Expr& row, const Expr& term);

// Any tile: row `row` of B^T (A^T) is the sum over term < WinogradInputTerms
// (WinogradOutputTerms) of WinogradInputTerm(...).coef (OutputTerm) at its
// column; a column may repeat within a row, and no coefficient is zero. For
// tile 2 these are the index and sign expressions above.
struct WinogradTerm {
  Expr column;  // int64
  Expr coef;    // float32
};
int64_t WinogradInputTerms(int64_t tile);
int64_t WinogradOutputTerms(int64_t tile);
WinogradTerm WinogradInputTerm(int64_t tile, const Expr& row, const Expr& term);
WinogradTerm WinogradOutputTerm(int64_t tile, const Expr& row, const Expr& term);

// Appends the Winograd stages of an NHWC 3x3 convolution reading `input`
// [N, H, W, C] and `packed_weight` [4, 4, C, K] to builder `b`, and returns
// the output stage [N, OH, OW, K] (tag "conv2d_winograd_nhwc"). The input is
// padded to whole tiles first ("pad"); bias and activation stages are the
// caller's, as for Conv2d.
template <class Builder>
int WinogradConv2dStages(Builder& b, int input, int packed_weight, const WinogradShape& s) {
  const int64_t tiles_hw = s.tiles_h() * s.tiles_w();
  const int64_t m = s.tile;
  // Whole tiles read rows m * tiles_h + 1 at most, so the padded input
  // extends past the usual bottom/right padding when OH or OW is not a
  // multiple of m.
  const int64_t padded_h = m * s.tiles_h() + 2;
  const int64_t padded_w = m * s.tiles_w() + 2;
  int padded = input;
  if (s.pad_h != 0 || s.pad_w != 0 || padded_h != s.height || padded_w != s.width) {
    padded = b.Compute(
        "pad", Builder::AxesLike({s.batch, padded_h, padded_w, s.in_channels}), {},
        ReduceKind::kNone, "pad", [&](const std::vector<Expr>& v) {
          Expr in_bounds = IntImm(1, DType::kBool);
          auto within = [&](const Expr& x, int64_t pad, int64_t extent, int64_t padded_extent) {
            if (pad > 0) in_bounds = And(in_bounds, Compare(CompareOp::kGE, x, IntImm(pad)));
            if (extent + pad < padded_extent) {
              in_bounds = And(in_bounds, Compare(CompareOp::kLT, x, IntImm(extent + pad)));
            }
          };
          within(v[1], s.pad_h, s.height, padded_h);
          within(v[2], s.pad_w, s.width, padded_w);
          Expr read = b.Read(input, {v[0], Sub(v[1], IntImm(s.pad_h)), Sub(v[2], IntImm(s.pad_w)),
                                     v[3]});
          return Select(in_bounds, read, FloatImm(0.0));
        });
  }
  // F(2x2, 3x3) keeps the expressions (and so the workload keys) it had
  // before F(4x4, 3x3) existed: the product of two signs, not of
  // coefficients folded into one.
  auto weighted = [&](Expr value, Expr coef_a, Expr coef_b) {
    if (m == kWinogradTile) return Mul(Mul(std::move(value), coef_a), coef_b);
    return Mul(std::move(value), Mul(coef_a, coef_b));
  };
  const int64_t in_terms = WinogradInputTerms(m);
  const int data_pack = b.Compute(
      "data_pack", {{"eps", s.alpha()}, {"nu", s.alpha()}, {"p", s.tiles()}, {"ci", s.in_channels}},
      {{"r_a", in_terms}, {"r_b", in_terms}}, ReduceKind::kSum, kWinogradDataPackTag,
      [&](const std::vector<Expr>& v) {
        const Expr& p = v[2];
        Expr n = FloorDiv(p, IntImm(tiles_hw));
        Expr ty = FloorMod(FloorDiv(p, IntImm(s.tiles_w())), IntImm(s.tiles_h()));
        Expr tx = FloorMod(p, IntImm(s.tiles_w()));
        const WinogradTerm a = WinogradInputTerm(m, v[0], v[4]);
        const WinogradTerm c = WinogradInputTerm(m, v[1], v[5]);
        Expr y = Add(Mul(ty, IntImm(m)), a.column);
        Expr x = Add(Mul(tx, IntImm(m)), c.column);
        return weighted(b.Read(padded, {n, y, x, v[3]}), a.coef, c.coef);
      });
  const int bgemm = b.Compute(
      "bgemm", {{"eps", s.alpha()}, {"nu", s.alpha()}, {"p", s.tiles()}, {"co", s.out_channels}},
      {{"ci", s.in_channels}}, ReduceKind::kSum, kWinogradBgemmTag,
      [&](const std::vector<Expr>& v) {
        return Mul(b.Read(data_pack, {v[0], v[1], v[2], v[4]}),
                   b.Read(packed_weight, {v[0], v[1], v[4], v[3]}));
      });
  const int64_t out_terms = WinogradOutputTerms(m);
  const int inverse = b.Compute(
      "inverse", {{"vh", m}, {"vw", m}, {"p", s.tiles()}, {"co", s.out_channels}},
      {{"r_a", out_terms}, {"r_b", out_terms}}, ReduceKind::kSum, kWinogradInverseTag,
      [&](const std::vector<Expr>& v) {
        const WinogradTerm a = WinogradOutputTerm(m, v[0], v[4]);
        const WinogradTerm c = WinogradOutputTerm(m, v[1], v[5]);
        return weighted(b.Read(bgemm, {a.column, c.column, v[2], v[3]}), a.coef, c.coef);
      });
  return b.Compute(
      "conv2d_winograd_nhwc",
      {{"nn", s.batch}, {"yy", s.out_h()}, {"xx", s.out_w()}, {"ff", s.out_channels}}, {},
      ReduceKind::kNone, kWinogradOutputTag, [&](const std::vector<Expr>& v) {
        const Expr tile = IntImm(m);
        Expr p = Add(Add(Mul(v[0], IntImm(tiles_hw)), Mul(FloorDiv(v[1], tile), IntImm(s.tiles_w()))),
                     FloorDiv(v[2], tile));
        return b.Read(inverse, {FloorMod(v[1], tile), FloorMod(v[2], tile), p, v[3]});
      });
}

}  // namespace pruner

#endif  // PRUNER_COMMON_IR_WINOGRAD_H_
