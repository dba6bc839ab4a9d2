#!/usr/bin/python3
"""Per-step times of compiled models, sorted by where the vCPUs were.

Loads each compiled model library (`pruner compile --out LIB.so`) through
its C API with ctypes, then for ROUNDS rounds: probes the cores' distance
(build/bench/bench_thread_round_trip), runs each library back to back for
VISIT seconds with pruner_model_run_profiled (the order alternating by
round), and probes again. A round counts as "shared-l3" when both probes
said so, "separate-l3" when both did, and is dropped otherwise. Prints,
per class and library, the median of each step's time and of the whole
call. Used for bench/README.md's session 25 (ResNet-18's Winograd layers
with the two vCPUs on one L3 and apart).

  /usr/bin/python3 bench/model/profile_by_placement.py \\
      --input /tmp/models/resnet18.input.npy A=/tmp/a.so B=/tmp/b.so [--rounds 30]
"""
import argparse
import ctypes
import subprocess
import time

import numpy as np


class Tensor(ctypes.Structure):  # pruner_tensor (pruner_model.h)
    _fields_ = [("dtype", ctypes.c_int32), ("rank", ctypes.c_int32),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("data", ctypes.c_void_p)]


def tensor(array, keep):
    shape = (ctypes.c_int64 * array.ndim)(*array.shape)
    keep += [array, shape]  # ctypes holds raw pointers: keep both alive
    return Tensor(1, array.ndim, shape, array.ctypes.data)


class Model:
    def __init__(self, path, threads, keep):
        self.lib = ctypes.CDLL(path, mode=ctypes.RTLD_LOCAL)
        self.handle = ctypes.c_void_p()
        if self.lib.pruner_model_load(threads, ctypes.byref(self.handle)) != 0:
            raise SystemExit(f"{path}: pruner_model_load failed")
        self.lib.pruner_model_output_shape.restype = ctypes.POINTER(ctypes.c_int64)
        self.lib.pruner_model_step_name.restype = ctypes.c_char_p
        rank = self.lib.pruner_model_output_rank(self.handle, 0)
        shape = [self.lib.pruner_model_output_shape(self.handle, 0)[i] for i in range(rank)]
        self.output = tensor(np.zeros(shape, np.float32), keep)
        n = self.lib.pruner_model_num_steps(self.handle)
        self.names = [self.lib.pruner_model_step_name(self.handle, i).decode() for i in range(n)]
        self.seconds = (ctypes.c_double * n)()
        self.steps = {"shared-l3": [], "separate-l3": []}
        self.calls = {"shared-l3": [], "separate-l3": []}

    def visit(self, inp, seconds):
        steps, calls = [], []
        start = time.perf_counter()
        while time.perf_counter() - start < seconds:
            t = time.perf_counter()
            rc = self.lib.pruner_model_run_profiled(self.handle, 1, ctypes.byref(inp), 1,
                                                    ctypes.byref(self.output), self.seconds)
            if rc != 0:
                raise SystemExit("pruner_model_run_profiled failed")
            calls.append(time.perf_counter() - t)
            steps.append(list(self.seconds))
        return steps, calls


def probe(binary):
    return subprocess.run([binary], capture_output=True, text=True, check=True).stdout.split()[1]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--input", required=True, help=".npy input of the models")
    ap.add_argument("--rounds", type=int, default=30)
    ap.add_argument("--visit", type=float, default=0.25, help="seconds per library per round")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--probe", default="build/bench/bench_thread_round_trip")
    ap.add_argument("models", nargs="+", help="LABEL=LIB.so")
    args = ap.parse_args()
    keep = []
    inp = tensor(np.load(args.input).astype(np.float32), keep)
    models = {}
    for spec in args.models:
        label, path = spec.split("=", 1)
        models[label] = Model(path, args.threads, keep)
    labels = list(models)
    placed = {"shared-l3": 0, "separate-l3": 0}  # rounds both probes agreed on
    for r in range(args.rounds):
        before = probe(args.probe)
        got = {k: models[k].visit(inp, args.visit) for k in (labels if r % 2 == 0 else labels[::-1])}
        after = probe(args.probe)
        where = before if before == after else None
        print(f"round {r}: {before}/{after} " +
              " ".join(f"{k} {np.median(got[k][1]) * 1e3:.2f} ms" for k in labels), flush=True)
        if where:
            placed[where] += 1
            for k in labels:
                models[k].steps[where] += got[k][0]
                models[k].calls[where] += got[k][1]
    for where in ("shared-l3", "separate-l3"):
        if not models[labels[0]].calls[where]:
            print(f"==== {where}: no round")
            continue
        med = {k: np.median(np.array(models[k].steps[where]), axis=0) * 1e3 for k in labels}
        print(f"==== {where}: median call " +
              "  ".join(f"{k} {np.median(models[k].calls[where]) * 1e3:.2f} ms" for k in labels))
        print("  " + "  ".join(f"{k:>8}" for k in labels) + "   step (ms)")
        for i, name in enumerate(models[labels[0]].names):
            if max(med[k][i] for k in labels) > 0.05:
                print("  " + "  ".join(f"{med[k][i]:8.3f}" for k in labels) + "   " + name[:80])
    # Whole-call medians per placement (0: no round with it).
    keys = [f"rounds={args.rounds}"]
    for where, tag in (("shared-l3", "shared"), ("separate-l3", "separate")):
        keys.append(f"{tag}_rounds={placed[where]}")
        for k in labels:
            c = models[k].calls[where]
            keys.append(f"{k}_{tag}_ms={np.median(c) * 1e3 if c else 0:.3f}")
    print("RESULT profile_by_placement " + " ".join(keys))


if __name__ == "__main__":
    main()
