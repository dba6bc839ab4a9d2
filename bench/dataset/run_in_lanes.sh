#!/bin/bash
# Usage: bench/dataset/run_in_lanes.sh QUEUE OUT_DIR LANES [COMMON ARGS ...]
# Runs bench_dataset_metrics once per line of QUEUE ("name|args"), LANES at
# a time (one per core: each run trains its models on one thread), each
# with the COMMON ARGS, its own args, `--dump-scores OUT_DIR/name.tsv`, and
# its output in OUT_DIR/name.log (first line: its start and arguments; last:
# "rc N" and the end time). Lanes take the next line when they finish, so
# long runs (TLP's 100% folds, ~50 min of a core each) and short ones share
# the cores without waiting for each other. Lines may be added to or
# removed from OUT_DIR/queue.txt while it runs (a copy of QUEUE).
# Afterwards: bench/dataset/analysis/table11_from_dumps.py OUT_DIR/*.tsv --logs OUT_DIR/*.log
set -u
[ $# -ge 3 ] || { sed -n 2,12p "$0"; exit 2; }
queue=$1 out=$2 lanes=$3
shift 3
here=$(cd "$(dirname "$0")/../.." && pwd)
bench=${BENCH_DATASET_METRICS:-$here/build/bench/dataset/bench_dataset_metrics}
[ -x "$bench" ] || { echo "no $bench: build first" >&2; exit 1; }
mkdir -p "$out"
grep -v '^\s*\(#\|$\)' "$queue" > "$out/queue.txt"

next_line() {  # pops the queue's first line under a lock
  flock "$out/queue.lock" bash -c 'l=$(head -1 "$1"); [ -n "$l" ] && sed -i 1d "$1"; echo "$l"' _ "$out/queue.txt"
}
lane() {
  while true; do
    line=$(next_line)
    [ -z "$line" ] && return 0
    name=${line%%|*}
    read -r -a args <<< "${line#*|}"
    echo "$(date -u +%FT%TZ) start $name: $* ${args[*]}" > "$out/$name.log"
    "$bench" "$@" "${args[@]}" --dump-scores "$out/$name.tsv" >> "$out/$name.log" 2>&1
    echo "rc $? $(date -u +%FT%TZ)" >> "$out/$name.log"
  done
}
for ((i = 0; i < lanes; ++i)); do lane "$@" & done
wait
