#!/usr/bin/env bash
# Cross-builds pruner-worker for 64-bit Arm Linux (build-arm/worker/pruner-worker)
# with the packages scripts/setup.sh installs (g++-aarch64-linux-gnu and the
# worker's libraries for arm64). Copy it with its libraries to a Jetson or a
# Raspberry Pi (deploy/README.md, "Arm edge workers"), or run it here under
# qemu (tests/e2e/arm_worker_test.sh does).
#
#   scripts/build-arm-worker.sh [BUILD_DIR]       (default build-arm)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-arm}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_TOOLCHAIN_FILE="$PWD/cmake/aarch64-linux-gnu.cmake" -DPRUNER_WORKER_ONLY=ON >/dev/null
cmake --build "$build" --target pruner-worker -- -j"${JOBS:-$(nproc)}"
file "$build/worker/pruner-worker" 2>/dev/null || true
