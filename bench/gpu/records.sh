#!/usr/bin/env bash
# On a lent GPU machine (device tool), over the folder bench/gpu/pack.sh
# made: GPU records for the dataset (issue 17). A real server and one GPU
# worker on 127.0.0.1 measure random schedules of the built-in networks'
# tasks (round-robin, one job per network, all at once) for a fixed time;
# then the jobs are cancelled and every record is exported as compressed
# JSON lines to $OUT/<device>-records.jsonl.xz (`xz -dk`, then
# `pruner records import --db F`). Every record passed the reference check
# or carries its error class, as in any job.
#
#   bench/gpu/records.sh [CARRY_DIR] [SECONDS]     (defaults .gpu-carry, 180)
#   env: DEVICE (worker profile; default from nvidia-smi: h200 or h100),
#        NETWORKS (space-separated; default all four built-in networks),
#        SEED (of the random schedules; another seed, other schedules)
set -uo pipefail
carry=${1:-.gpu-carry}
seconds=${2:-180}
out=${OUT:-/tmp/gpu-out}
source "$(dirname "$0")/common.sh"
pruner=$b/client/pruner
start_farm records- --build-jobs 14
"$pruner" workers
jobs=()
for network in ${NETWORKS:-resnet-50 mobilenet-v2 bert-base bert-tiny}; do
  id=$("$pruner" submit --network "$network" --target "$target" --strategy random \
    --scheduler round-robin --trials 100000 --per-round 32 --seed "${SEED:-1}" \
    --name "gpu-records-$network" --json |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])') || exit 1
  echo "job $id: random schedules of $network on $target"
  jobs+=("$id")
done
start=$SECONDS
while ((SECONDS - start < seconds)); do
  sleep 30
  echo "--- $((SECONDS - start)) s"
  "$pruner" jobs
done
for id in "${jobs[@]}"; do "$pruner" cancel "$id"; done
sleep 2
"$pruner" jobs
kill -TERM "$worker"; wait "$worker"
kill -TERM "$server"; wait "$server"
"$pruner" records export --db "$farm/pruner.db" "$farm/records.jsonl"
python3 - "$farm/records.jsonl" <<'PY'
# What was collected: records, ok records and workloads per operator family.
import collections, json, re, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
ok = [r for r in rows if r.get("error", "none") in ("none", "", None)]
print(f"records={len(rows)} ok={len(ok)} workloads={len({r['workload_key'] for r in rows})}")
by_op = collections.Counter(re.split(r"_[A-Za-z]+\d", r["workload_description"])[0] for r in ok)
for op, n in by_op.most_common(): print(f"  {op:24s} {n}")
PY
xz -T0 -9 -c "$farm/records.jsonl" >"$out/$target-records-seed${SEED:-1}.jsonl.xz"
ls -la "$out"
