#!/usr/bin/env bash
# On a lent GPU machine (device tool), over the folder bench/gpu/pack.sh
# made: the CUDA tests, the GPU fault kernels, and measure_cuda_check (random
# schedules of every operator run on the GPU and checked), then the
# cuBLAS/cuDNN fp32 figures for the same two workloads through the PyTorch of
# the machine's image, for scale. Logs go to $OUT (or /tmp/gpu-out).
#
#   bench/gpu/checks.sh [CARRY_DIR] [N]        (defaults .gpu-carry, 100)
set -uo pipefail
carry=${1:-.gpu-carry}
n=${2:-100}
out=${OUT:-/tmp/gpu-out}
source "$(dirname "$0")/common.sh"
status=0
run() {
  echo "=== $*"
  "$@" 2>&1 | tee -a "$out/checks.log" | tail -40
  local rc=${PIPESTATUS[0]}
  echo "=== exit $rc"
  ((rc == 0)) || status=1
}
nvidia-smi -L
run "$b/tests/codegen/codegen_cuda_driver_test"
run "$b/tests/measure/measure_cuda_compile_sandboxed_test"
run "$b/tests/measure/measure_cuda_fault_kernels_test"
run "$b/tests/measure/measure_local_measurer_test" --gtest_filter='*Gpu*'
run "$b/tests/worker/worker_tests" --gtest_filter='*Gpu*:*Device*'
run "$b/worker/pruner-worker" --device "$device" --show-device
run "$b/tests/measure/measure_cuda_check" --n "$n" --device "$device"
python3 - <<'PY' 2>&1 | tee -a "$out/checks.log"
# Library figures for scale: fp32 without TF32 (our kernels use plain FMA).
import torch
torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
dev = "cuda"
def bench(f, flops):
    for _ in range(10): f()
    torch.cuda.synchronize()
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = []
    for _ in range(50):
        s.record(); f(); e.record(); torch.cuda.synchronize(); times.append(s.elapsed_time(e))
    times.sort()
    ms = times[len(times) // 2]
    return ms, flops / (ms * 1e-3) * 1e-9
a = torch.rand(1024, 1024, device=dev); w = torch.rand(1024, 1024, device=dev)
ms, g = bench(lambda: a @ w.t(), 2 * 1024**3)
print(f"cuBLAS fp32 dense 1024^3 (torch {torch.__version__}): {ms*1e3:.1f} us, {g:.0f} GFLOP/s")
x = torch.rand(1, 64, 56, 56, device=dev); k = torch.rand(64, 64, 3, 3, device=dev)
conv = lambda: torch.nn.functional.conv2d(x, k, padding=1)
ms, g = bench(conv, 2 * 64 * 56 * 56 * 64 * 9)
print(f"cuDNN fp32 conv2d (1,64,56,56)x(64,64,3,3): {ms*1e3:.1f} us, {g:.0f} GFLOP/s")
PY
exit $status
