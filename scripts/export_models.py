#!/usr/bin/python3
"""Exports models with PyTorch's own ONNX exporter, with fixed-seed inputs
and PyTorch's outputs, for Pruner's tests and model benchmark.

    scripts/export_models.py --out DIR [--set test|bench|all] [--only NAME ...]

For every model NAME it writes into DIR:
    NAME.onnx            torch.onnx.export of the model in eval mode
    NAME.input.npy       the input (float32, or int64 token ids; fixed seed)
    NAME.output.npy      PyTorch's output for that input (float32)
    NAME.torchscript.pt  (bench set only) the model traced and frozen
                         (torch.jit.freeze); the loader then applies
                         torch.jit.optimize_for_inference, the way a CPU
                         user deploys it

The test set is small models that the test suite runs end to end: convs with
batch norm, a residual add, depthwise convs with ReLU6, poolings, concats and
slices of activations, a BERT-style encoder layer exported at opsets 14
(LayerNorm and GELU decomposed) and 17 (LayerNormalization), and a whole
small BERT from int64 token ids (embeddings, pooler); and three models the importer must
refuse clearly (unsupported operators, opset 9, a symbolic batch dimension). The bench set is torchvision's
ResNet-18 and MobileNet-V2 (random weights: the machine has no network), and
BERT-mini at sequence length 128: whole from token ids, and its encoder alone.
"""
import argparse
import math
import os
import sys

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class ConvNet(nn.Module):
    """The CNN patterns of ResNet and MobileNet-V2, at 32x32."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, 1, 1, bias=False), nn.BatchNorm2d(16),
                                  nn.ReLU(inplace=True))
        self.pool = nn.MaxPool2d(3, 2, 1)
        self.block_a = nn.Sequential(nn.Conv2d(16, 16, 3, 1, 1, bias=False), nn.BatchNorm2d(16),
                                     nn.ReLU(inplace=True), nn.Conv2d(16, 16, 3, 1, 1, bias=False),
                                     nn.BatchNorm2d(16))
        self.down = nn.Sequential(nn.Conv2d(16, 32, 1, 2, bias=False), nn.BatchNorm2d(32))
        self.block_b = nn.Sequential(nn.Conv2d(16, 32, 3, 2, 1, bias=False), nn.BatchNorm2d(32),
                                     nn.ReLU(inplace=True), nn.Conv2d(32, 32, 3, 1, 1, bias=False),
                                     nn.BatchNorm2d(32))
        # MobileNet-V2's inverted residual: expand, depthwise, project.
        self.inverted = nn.Sequential(nn.Conv2d(32, 64, 1, bias=False), nn.BatchNorm2d(64),
                                      nn.ReLU6(inplace=True),
                                      nn.Conv2d(64, 64, 3, 1, 1, groups=64, bias=False),
                                      nn.BatchNorm2d(64), nn.ReLU6(inplace=True),
                                      nn.Conv2d(64, 32, 1, bias=False), nn.BatchNorm2d(32))
        self.avg = nn.AvgPool2d(2, 2)
        self.fc = nn.Linear(32, 10)

    def forward(self, x):
        x = self.pool(self.stem(x))
        x = F.relu(self.block_a(x) + x)
        x = F.relu(self.block_b(x) + self.down(x))
        x = x + self.inverted(x)
        x = self.avg(x)
        x = F.adaptive_avg_pool2d(x, 1)
        return self.fc(torch.flatten(x, 1))


class EncoderLayer(nn.Module):
    """One BERT encoder layer (post-norm, GELU), written out as BERT is."""

    def __init__(self, hidden, heads, ffn):
        super().__init__()
        self.heads = heads
        self.head_dim = hidden // heads
        self.query = nn.Linear(hidden, hidden)
        self.key = nn.Linear(hidden, hidden)
        self.value = nn.Linear(hidden, hidden)
        self.attn_out = nn.Linear(hidden, hidden)
        self.attn_norm = nn.LayerNorm(hidden, eps=1e-12)
        self.intermediate = nn.Linear(hidden, ffn)
        self.output = nn.Linear(ffn, hidden)
        self.out_norm = nn.LayerNorm(hidden, eps=1e-12)

    def split_heads(self, x):
        b, s, _ = x.shape
        return x.view(b, s, self.heads, self.head_dim).permute(0, 2, 1, 3)

    def forward(self, x):
        b, s, h = x.shape
        q = self.split_heads(self.query(x))
        k = self.split_heads(self.key(x))
        v = self.split_heads(self.value(x))
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.head_dim)
        probs = torch.softmax(scores, dim=-1)
        context = torch.matmul(probs, v).permute(0, 2, 1, 3).reshape(b, s, h)
        x = self.attn_norm(self.attn_out(context) + x)
        return self.out_norm(self.output(F.gelu(self.intermediate(x))) + x)


class Encoder(nn.Module):
    def __init__(self, layers, hidden, heads, ffn):
        super().__init__()
        self.layers = nn.ModuleList([EncoderLayer(hidden, heads, ffn) for _ in range(layers)])

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


class Bert(nn.Module):
    """BERT as Hugging Face writes it: token ids in (int64), word, position and
    token-type embeddings, LayerNorm, encoder layers, and the pooler on the
    first token (x[:, 0], a Gather of a constant index)."""

    def __init__(self, vocab, seq, layers, hidden, heads, ffn):
        super().__init__()
        self.word = nn.Embedding(vocab, hidden)
        self.position = nn.Embedding(seq, hidden)
        self.token_type = nn.Embedding(2, hidden)
        self.register_buffer("position_ids", torch.arange(seq).unsqueeze(0))
        self.register_buffer("token_type_ids", torch.zeros(1, seq, dtype=torch.long))
        self.norm = nn.LayerNorm(hidden, eps=1e-12)
        self.encoder = Encoder(layers, hidden, heads, ffn)
        self.pooler = nn.Linear(hidden, hidden)

    def forward(self, ids):
        x = self.word(ids) + self.position(self.position_ids) + self.token_type(self.token_type_ids)
        x = self.encoder(self.norm(x))
        return torch.tanh(self.pooler(x[:, 0]))


class Branches(nn.Module):
    """Concat and Slice on activations: two conv branches joined on channels
    (as Inception and ShuffleNet do), then split again and recombined."""

    def __init__(self):
        super().__init__()
        self.a = nn.Conv2d(3, 8, 3, padding=1)
        self.b = nn.Conv2d(3, 4, 1)
        self.c = nn.Conv2d(12, 6, 1)

    def forward(self, x):
        y = torch.cat([F.relu(self.a(x)), self.b(x)], dim=1)
        head, tail = y[:, :6], y[:, 6:]
        z = self.c(torch.cat([tail, head], dim=1))
        return torch.cat([z[:, :, 1:7, :], z[:, :, :2, :]], dim=2)


class Unsupported(nn.Module):
    """Operators the importer refuses: two CumSum and one Resize."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)

    def forward(self, x):
        x = torch.cumsum(self.conv(x), dim=2)
        x = torch.cumsum(x, dim=3)
        return F.interpolate(x, scale_factor=2.0, mode="nearest")


class Tiny(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)

    def forward(self, x):
        return F.relu(self.conv(x))


def randomize_batch_norm(model, generator):
    """Fresh BatchNorm layers are the identity; give them real statistics."""
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            with torch.no_grad():
                m.running_mean.copy_(torch.randn(m.num_features, generator=generator) * 0.1)
                m.running_var.copy_(torch.rand(m.num_features, generator=generator) + 0.5)
                m.weight.copy_(torch.rand(m.num_features, generator=generator) + 0.5)
                m.bias.copy_(torch.randn(m.num_features, generator=generator) * 0.1)


def test_models():
    return {
        # name: (constructor, input shape, opset[, vocabulary for int64 token ids])
        "convnet": (ConvNet, [1, 3, 32, 32], 13),
        "branches": (Branches, [1, 3, 8, 8], 13),
        "bert": (lambda: Bert(100, 16, 1, 64, 4, 128), [1, 16], 14, 100),
        "encoder": (lambda: Encoder(1, 64, 4, 128), [1, 16, 64], 14),
        "encoder_opset17": (lambda: Encoder(1, 64, 4, 128), [1, 16, 64], 17),
        # Bad input for the importer's errors.
        "unsupported_ops": (Unsupported, [1, 3, 8, 8], 13),
        "tiny_opset9": (Tiny, [1, 3, 8, 8], 9),
        "tiny_dynamic_batch": (Tiny, [1, 3, 8, 8], 13),
    }


def bench_models():
    import torchvision
    return {
        "resnet18": (lambda: torchvision.models.resnet18(), [1, 3, 224, 224], 13),
        "mobilenet_v2": (lambda: torchvision.models.mobilenet_v2(), [1, 3, 224, 224], 13),
        # google/bert_uncased_L-4_H-256_A-4 (BERT-mini) at sequence 128: the
        # whole model from token ids (vocabulary 30522), and its encoder alone
        # on hidden states.
        "bert_s128": (lambda: Bert(30522, 128, 4, 256, 4, 1024), [1, 128], 14, 30522),
        "encoder_s128": (lambda: Encoder(4, 256, 4, 1024), [1, 128, 256], 14),
    }


def export(name, ctor, shape, opset, out_dir, torchscript, vocab=None):
    torch.manual_seed(0)
    generator = torch.Generator().manual_seed(1)
    model = ctor()
    randomize_batch_norm(model, generator)
    model.eval()
    if vocab is None:
        x = torch.randn(*shape, generator=torch.Generator().manual_seed(2))
    else:
        x = torch.randint(0, vocab, shape, generator=torch.Generator().manual_seed(2))
    with torch.no_grad():
        y = model(x)
    path = os.path.join(out_dir, name + ".onnx")
    dynamic_axes = {"input": {0: "batch"}} if name.endswith("_dynamic_batch") else None
    torch.onnx.export(model, (x,), path, input_names=["input"], output_names=["output"],
                      opset_version=opset, do_constant_folding=True, dynamic_axes=dynamic_axes)
    np.save(os.path.join(out_dir, name + ".input.npy"),
            x.numpy().astype(np.float32 if vocab is None else np.int64))
    np.save(os.path.join(out_dir, name + ".output.npy"), y.numpy().astype(np.float32))
    if torchscript:
        # Frozen only: optimize_for_inference's MKL-DNN constants do not
        # survive save/load, so the loader applies it (bench/model does, with
        # torch::jit::optimize_for_inference, as a deploying user would).
        with torch.no_grad():
            frozen = torch.jit.freeze(torch.jit.trace(model, x).eval())
        frozen.save(os.path.join(out_dir, name + ".torchscript.pt"))
    print(f"export_models: {name} (opset {opset}) -> {path}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--set", choices=["test", "bench", "all"], default="test")
    parser.add_argument("--only", nargs="*", default=None)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    torch.set_num_threads(1)
    sets = []
    if args.set in ("test", "all"):
        sets.append((test_models(), False))
    if args.set in ("bench", "all"):
        sets.append((bench_models(), True))
    for models, torchscript in sets:
        for name, (ctor, shape, opset, *vocab) in models.items():
            if args.only and name not in args.only:
                continue
            export(name, ctor, shape, opset, args.out, torchscript, *vocab)
    return 0


if __name__ == "__main__":
    sys.exit(main())
