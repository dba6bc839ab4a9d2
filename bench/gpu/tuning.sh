#!/usr/bin/env bash
# On a lent GPU machine (device tool), over the folder bench/gpu/pack.sh
# made: a real server and one GPU worker on 127.0.0.1, then
#  1. search efficiency on the GPU: the same workloads tuned with random,
#     ansor-xgb and lse-xgb side by side (same budget, per-round, seed);
#     this build has no LibTorch, so PaCM (pruner, moa-pruner) cannot run
#     here;
#  2. a records dataset: random schedules of BERT-tiny's tasks, round-robin.
# The records database comes back in $OUT/gpu-records.db (checkpointed).
#
#   bench/gpu/tuning.sh [CARRY_DIR]     env: TRIALS (per workload and
#   strategy, default 192), PER_ROUND (32), DATASET_TRIALS (640), SEED (1),
#   WORKLOADS (";"-separated specs; default dense 1024^3 and the ResNet conv2d)
set -uo pipefail
carry=${1:-.gpu-carry}
out=${OUT:-/tmp/gpu-out}
trials=${TRIALS:-192}
per_round=${PER_ROUND:-32}
dataset_trials=${DATASET_TRIALS:-640}
seed=${SEED:-1}
source "$(dirname "$0")/common.sh"
start_farm "" --build-jobs 12
pruner=$b/client/pruner
"$pruner" workers
jobs=()
IFS=";" read -r -a workloads <<<"${WORKLOADS:-dense:M=1024,K=1024,N=1024;conv2d:N=1,C=64,H=56,W=56,K=64,R=3,S=3,stride=1,pad=1}"
for op in "${workloads[@]}"; do
  for strategy in random ansor-xgb lse-xgb; do
    id=$("$pruner" submit --op "$op" --target "$target" --strategy "$strategy" --trials "$trials" \
      --per-round "$per_round" --seed "$seed" --name "gpu-$strategy-${op%%:*}" --json |
      python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
    echo "job $id: $strategy $op"
    jobs+=("$id")
  done
  # Four jobs run at once on the server: wait for this workload's three.
  for id in "${jobs[@]: -3}"; do "$pruner" watch "$id" >"$out/watch-$id.log" 2>&1; done
done
id=$("$pruner" submit --network bert-tiny --target "$target" --strategy random \
  --scheduler round-robin --trials "$dataset_trials" --per-round "$per_round" --seed "$seed" \
  --name gpu-dataset-bert-tiny --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
echo "job $id: dataset"
"$pruner" watch "$id" >"$out/watch-$id.log" 2>&1
"$pruner" jobs
for id in "${jobs[@]}"; do "$pruner" best "$id"; done
kill -TERM "$worker"; wait "$worker"
kill -TERM "$server"; wait "$server"
python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute('PRAGMA wal_checkpoint(TRUNCATE)'); c.close()" "$farm/pruner.db"
cp "$farm/pruner.db" "$out/gpu-records.db"
ls -la "$out"
