#!/usr/bin/env bash
# The README's main job: set up, build, bring up a local farm (one
# pruner-server and one pruner-worker on 127.0.0.1, with a token), and tune a
# real network on this machine's CPU through it: BERT-tiny (sequence 128,
# batch 1) split into its fused subgraphs, Ansor's evolutionary search guided
# by XGBoost on the server, every candidate built, run in the worker's
# sandbox, checked against the reference and timed. Records land in
# pruner.db; the best kernels are exported to tuned-kernels/.
#
# Extra arguments go to `pruner submit` (e.g. --trials 1000, --network
# resnet-50 instead of bert-tiny is `--network resnet-50`). Ctrl-C stops
# watching and takes the farm down; the job stays in pruner.db and resumes
# when a server is started on it again.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
BUILD_DIR=${BUILD_DIR:-build}
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo > /dev/null
cmake --build "$BUILD_DIR" -j "$(nproc)" --target pruner pruner-server pruner-worker
PRUNER="$BUILD_DIR/client/pruner"

FARM_DIR=.farm
deploy/local-farm.sh start --workers 1 --dir "$FARM_DIR" --db pruner.db --build "$BUILD_DIR"
trap 'deploy/local-farm.sh stop --dir "$FARM_DIR"' EXIT
set -a
# shellcheck disable=SC1091
. "$FARM_DIR/farm.env"
set +a
"$PRUNER" workers

# Defaults for what the caller did not give.
given=" $* "
defaults=()
if [[ $given != *" --network "* && $given != *" --op "* && $given != *" --spec "* ]]; then
  defaults+=(--network bert-tiny)
fi
[[ $given == *" --target "* ]] || defaults+=(--target cpu)
[[ $given == *" --trials "* ]] || defaults+=(--trials 200)
[[ $given == *" --per-round "* ]] || defaults+=(--per-round 16)
[[ $given == *" --name "* ]] || defaults+=(--name "readme main job")
submitted=$("$PRUNER" submit "${defaults[@]}" "$@")
echo "$submitted"
JOB=$(sed -n 's/^submitted job \([0-9]*\).*/\1/p' <<<"$submitted")
"$PRUNER" watch "$JOB"
echo
"$PRUNER" best "$JOB"
"$PRUNER" export "$JOB" --out tuned-kernels
