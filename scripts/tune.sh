#!/usr/bin/env bash
# The README's main job: set up, build the `pruner` tool, and tune a real
# network on this machine's CPU, in process: BERT-tiny (sequence 128, batch 1)
# split into its fused subgraphs, Ansor's evolutionary search guided by
# XGBoost, every candidate built, run in a sandbox, checked against the
# reference and timed; everything lands in pruner.db. Extra arguments go to
# `pruner tune` (e.g. --trials 1000, --network resnet-50, --op SPEC).
# Ctrl-C stops cleanly; `pruner tune --resume JOB` continues.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
BUILD_DIR=${BUILD_DIR:-build}
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo > /dev/null
cmake --build "$BUILD_DIR" -j "$(nproc)" --target pruner
"$BUILD_DIR/client/pruner" tune --db pruner.db --network bert-tiny --trials 200 --per-round 16 \
  --name "readme main job" "$@"
echo
echo "best schedules of the last job:"
JOB=$("$BUILD_DIR/client/pruner" jobs --db pruner.db | tail -1 | awk '{print $1}')
exec "$BUILD_DIR/client/pruner" best "$JOB" --db pruner.db
