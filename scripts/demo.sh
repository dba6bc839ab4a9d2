#!/usr/bin/env bash
# The README's main job: set up, build the `pruner` tool, and run the engine
# tour (random schedules of real operators for this CPU and an A100 profile,
# lowered and checked against the reference).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
BUILD_DIR=${BUILD_DIR:-build}
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo > /dev/null
cmake --build "$BUILD_DIR" -j "$(nproc)" --target pruner
exec "$BUILD_DIR/client/pruner" demo "$@"
