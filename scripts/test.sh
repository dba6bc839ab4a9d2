#!/usr/bin/env bash
# Installs dependencies, builds everything and runs the whole test suite.
# This is the README's test command and what .ci/run calls.
set -euo pipefail
cd "$(dirname "$0")/.."

./scripts/setup.sh
# Includes go down the layer order written in LAYERS.
./scripts/check_layers.sh
BUILD_DIR=${BUILD_DIR:-build}
JOBS=${JOBS:-$(nproc)}
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build "$BUILD_DIR" -j "$JOBS"
# NVRTC finds its builtins library only through the loader path.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
ctest --test-dir "$BUILD_DIR" --output-on-failure -j "$JOBS" --timeout 900
