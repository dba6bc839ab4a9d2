# Sourced by checks.sh, records.sh and tuning.sh on the GPU machine, with
# `carry` (the folder pack.sh made) and `out` (where logs go) set: unpacks
# the carry once and sets b (its build tree), LD_LIBRARY_PATH and device
# (the worker profile: $DEVICE, else h200 or h100 as nvidia-smi names the
# GPU). start_farm LOG_PREFIX starts a real server and one worker of that
# device on 127.0.0.1 (extra worker flags after the prefix), exports
# PRUNER_SERVER and PRUNER_TOKEN_FILE, and sets server, worker and farm.
mkdir -p "$out"
[[ -d $carry/lib ]] || python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' \
  "$carry/carry.tar.xz" "$carry" || exit 1
export LD_LIBRARY_PATH=$PWD/$carry/lib
b=$carry/build
device=${DEVICE:-$(nvidia-smi -L | grep -q H200 && echo h200 || echo h100)}
# The key jobs target: the profile's name ("h200-sxm").
target=$("$b/worker/pruner-worker" --device "$device" --show-device |
  python3 -c 'import json,sys; print(json.load(sys.stdin)["key"])') || exit 1

start_farm() {
  local prefix=$1
  shift
  farm=$(mktemp -d)
  head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$farm/token"
  "$b/server/pruner-server" --listen 127.0.0.1:0 --db "$farm/pruner.db" --port-file "$farm/port" \
    --token-file "$farm/token" >"$out/${prefix}server.log" 2>&1 &
  server=$!
  for _ in $(seq 100); do [[ -s $farm/port ]] && break; sleep 0.1; done
  export PRUNER_SERVER=127.0.0.1:$(<"$farm/port") PRUNER_TOKEN_FILE=$farm/token
  # One slot: runs of two leases at once would share the GPU and time each other.
  "$b/worker/pruner-worker" --device "$device" --slots 1 --max-candidates 64 "$@" \
    >"$out/${prefix}worker.log" 2>&1 &
  worker=$!
  sleep 2
}
