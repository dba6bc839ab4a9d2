#!/usr/bin/env python3
"""Writes tiny ONNX models, exported by PyTorch, as seeds of the onnx_import
fuzz target (tests/fuzz/corpus/onnx_import/): each few-KB model carries the
operator patterns of a real network (conv + batch norm + pooling + gemm,
depthwise + ReLU6 + residual, an encoder layer with embeddings, layer norm,
GELU and softmax), so mutations start from deep inside the importer.

    /usr/bin/python3 tests/fuzz/make_onnx_seeds.py tests/fuzz/corpus/onnx_import   (Debian's python3-torch)
"""
import os
import sys

import torch
from torch import nn


class ConvNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, stride=2, padding=1)
        self.bn = nn.BatchNorm2d(4)
        self.pool = nn.MaxPool2d(2)
        self.fc = nn.Linear(4, 3)

    def forward(self, x):
        x = self.pool(torch.relu(self.bn(self.conv(x))))
        return self.fc(torch.flatten(nn.functional.adaptive_avg_pool2d(x, 1), 1))


class InvertedResidual(nn.Module):
    def __init__(self):
        super().__init__()
        self.expand = nn.Conv2d(4, 8, 1)
        self.depthwise = nn.Conv2d(8, 8, 3, padding=1, groups=8)
        self.project = nn.Conv2d(8, 4, 1)

    def forward(self, x):
        y = nn.functional.relu6(self.expand(x))
        y = nn.functional.relu6(self.depthwise(y))
        return x + self.project(y)


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(16, 8)
        self.layer = nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, activation="gelu",
                                                batch_first=True, dropout=0.0)

    def forward(self, ids):
        return self.layer(self.embed(ids))


def export(model, example, path, opset, dynamic=None):
    model.eval()
    torch.onnx.export(model, example, path, opset_version=opset, dynamic_axes=dynamic,
                      input_names=["input"], output_names=["output"])
    print(f"{path}: {os.path.getsize(path)} bytes")


def main():
    out = sys.argv[1]
    torch.manual_seed(0)
    export(ConvNet(), torch.rand(1, 3, 8, 8), f"{out}/seed-convnet.onnx", 13)
    export(InvertedResidual(), torch.rand(1, 4, 6, 6), f"{out}/seed-inverted-residual.onnx", 11)
    export(Encoder(), torch.randint(0, 16, (1, 4)), f"{out}/seed-encoder.onnx", 14)
    export(Encoder(), torch.randint(0, 16, (1, 4)), f"{out}/seed-encoder-opset17.onnx", 17,
           dynamic={"input": {0: "batch"}})


if __name__ == "__main__":
    main()
