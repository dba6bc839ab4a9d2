// BERT encoders, as HuggingFace's BertModel defines them (see networks.h).
#include <cmath>

#include "absl/strings/str_cat.h"
#include "common/graph/graph_builder.h"
#include "common/graph/networks.h"

namespace pruner {
namespace {

// [batch * seq, hidden] -> [batch * heads, seq, head_dim]: PyTorch's
// view(batch, seq, heads, head_dim).permute(0, 2, 1, 3), batch folded.
TensorId SplitHeads(GraphBuilder& b, TensorId x, const BertConfig& c) {
  const int64_t head_dim = c.hidden / c.heads;
  x = b.Reshape(x, {c.batch, c.seq, c.heads, head_dim});
  x = b.Transpose(x, {0, 2, 1, 3});
  return b.Reshape(x, {c.batch * c.heads, c.seq, head_dim});
}

// The inverse of SplitHeads.
TensorId MergeHeads(GraphBuilder& b, TensorId x, const BertConfig& c) {
  const int64_t head_dim = c.hidden / c.heads;
  x = b.Reshape(x, {c.batch, c.heads, c.seq, head_dim});
  x = b.Transpose(x, {0, 2, 1, 3});
  return b.Reshape(x, {c.batch * c.seq, c.hidden});
}

TensorId Linear(GraphBuilder& b, TensorId x, int64_t units) { return b.BiasAdd(b.Dense(x, units)); }

TensorId EncoderLayer(GraphBuilder& b, TensorId x, const BertConfig& c) {
  TensorId attention_out;
  {
    auto scope = b.Scope("attention");
    const TensorId q = SplitHeads(b, Linear(b, x, c.hidden), c);
    const TensorId k = SplitHeads(b, Linear(b, x, c.hidden), c);
    const TensorId v = SplitHeads(b, Linear(b, x, c.hidden), c);
    TensorId scores = b.BatchMatmul(q, k, /*transpose_b=*/true);
    scores = b.Scale(scores, 1.0 / std::sqrt(static_cast<double>(c.hidden / c.heads)));
    const TensorId probs = b.Softmax(scores);
    const TensorId context = MergeHeads(b, b.BatchMatmul(probs, v), c);
    // BertSelfOutput: LayerNorm(dense(context) + input).
    attention_out = b.LayerNorm(b.Add(Linear(b, context, c.hidden), x), c.eps);
  }
  auto scope = b.Scope("ffn");
  const TensorId hidden = b.Gelu(Linear(b, attention_out, c.ffn));
  return b.LayerNorm(b.Add(Linear(b, hidden, c.hidden), attention_out), c.eps);
}

}  // namespace

absl::StatusOr<Graph> BuildBert(const BertConfig& c, std::string name) {
  if (c.layers < 1 || c.hidden <= 0 || c.heads <= 0 || c.ffn <= 0 || c.seq <= 0 || c.batch <= 0 ||
      c.hidden % c.heads != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        name,
        ": need layers, hidden, heads, ffn, seq, batch > 0 and hidden divisible by heads; got "
        "layers=",
        c.layers, " hidden=", c.hidden, " heads=", c.heads, " ffn=", c.ffn, " seq=", c.seq,
        " batch=", c.batch));
  }
  GraphBuilder b(name);
  TensorId x = b.Input("embeddings", {c.batch * c.seq, c.hidden});
  {
    auto scope = b.Scope("embeddings");
    x = b.LayerNorm(x, c.eps);
  }
  for (int layer = 0; layer < c.layers; ++layer) {
    auto scope = b.Scope(absl::StrCat("encoder.layer.", layer));
    x = EncoderLayer(b, x, c);
  }
  return std::move(b).Build();
}

}  // namespace pruner
