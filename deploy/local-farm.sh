#!/usr/bin/env bash
# A local farm on 127.0.0.1: one pruner-server and N pruner-workers.
#
#   deploy/local-farm.sh start  [--workers N] [--dir DIR] [--port P] [--build BUILD_DIR]
#                               [--db PATH] [--device D]
#   deploy/local-farm.sh status [--dir DIR]
#   deploy/local-farm.sh stop   [--dir DIR]
#
#   --workers N   workers to start, one lease slot each (default 1)
#   --dir DIR     pids, logs, token and farm.env go here (default .farm)
#   --port P      server port (default 0: any free port, read from the port file)
#   --build DIR   where pruner-server and pruner-worker were built (default
#                 build/ at the repository root)
#   --db PATH     records database (default DIR/pruner.db)
#   --device D    the workers' --device (default cpu)
#
# Even the local farm uses a token: a random one is made in DIR/token on
# first start, and DIR/farm.env says where the server is and where the token
# is, for clients:  set -a; . .farm/farm.env; set +a; build/client/pruner workers
# `start` waits until the server answers and every worker has registered,
# and stops whatever it started if anything fails. `stop` sends SIGTERM
# (workers first, so their last results reach the server), then SIGKILL to
# whatever is still running after 5 s.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

usage() {
  sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'
  exit "${1:-2}"
}

die() {
  echo "local-farm: $*" >&2
  exit 1
}

log() { echo "local-farm: $*"; }

# ---- Processes ---------------------------------------------------------------

# The pid in FILE, if that process is alive and is this script's own child
# or still runs BINARY_NAME (a recycled pid must never be signalled; a child
# between fork and exec does not show the binary yet).
live_pid() {
  local file=$1 name=$2 pid stat ppid
  [[ -f $file ]] || return 1
  pid=$(<"$file")
  [[ $pid =~ ^[0-9]+$ ]] || return 1
  kill -0 "$pid" 2>/dev/null || return 1
  stat=$(<"/proc/$pid/stat") 2>/dev/null || return 1
  stat=${stat##*) }  # after "pid (comm) ": state ppid ...
  read -r _ ppid _ <<<"$stat"
  if [[ $ppid != "$$" ]]; then
    tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q -- "$name" || return 1
  fi
  echo "$pid"
}

# Sends TERM to the process of each pid file, waits up to 5 s, then KILLs
# what is left; removes the pid files.
stop_pids() {
  local name=$1
  shift
  local file pid pids=()
  for file in "$@"; do
    if pid=$(live_pid "$file" "$name"); then
      kill -TERM "$pid" 2>/dev/null || true
      pids+=("$pid")
    fi
  done
  local waited=0
  while ((${#pids[@]} > 0 && waited < 50)); do
    local alive=()
    for pid in "${pids[@]}"; do
      if kill -0 "$pid" 2>/dev/null; then alive+=("$pid"); fi
    done
    pids=("${alive[@]+"${alive[@]}"}")
    ((${#pids[@]} == 0)) || sleep 0.1
    waited=$((waited + 1))
  done
  for pid in "${pids[@]+"${pids[@]}"}"; do
    log "pid $pid ($name) ignored SIGTERM for 5 s: SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
  done
  rm -f "$@"
}

worker_pid_files() {
  local files=()
  shopt -s nullglob
  files=("$dir"/worker-*.pid)
  shopt -u nullglob
  printf '%s\n' "${files[@]+"${files[@]}"}"
}

stop_farm() {
  local files=()
  mapfile -t files < <(worker_pid_files)
  if ((${#files[@]} > 0)); then stop_pids pruner-worker "${files[@]}"; fi
  stop_pids pruner-server "$dir/server.pid"
}

# ---- Commands ----------------------------------------------------------------

cmd_start() {
  local server_bin="$build/server/pruner-server"
  local worker_bin="$build/worker/pruner-worker"
  [[ -x $server_bin ]] || die "no $server_bin: build first (cmake --build $build)"
  [[ -x $worker_bin ]] || die "no $worker_bin: build first (cmake --build $build)"
  if live_pid "$dir/server.pid" pruner-server >/dev/null; then
    die "a farm already runs from $dir (deploy/local-farm.sh stop --dir $dir)"
  fi
  # Leftovers of a farm whose server died (workers, stale pid files).
  stop_farm
  [[ $workers =~ ^[0-9]+$ ]] || die "--workers $workers: not a number"
  [[ $port =~ ^[0-9]+$ ]] || die "--port $port: not a number"
  # gRPC binds with SO_REUSEPORT: a second server on a busy port would start
  # and share the traffic with whatever listens there.
  if ((port != 0)) && (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
    die "127.0.0.1:$port is in use"
  fi

  # From here on, a failure stops everything this run started.
  trap 'if (($? != 0)); then log "start failed: stopping what was started"; stop_farm; fi' EXIT
  trap 'exit 130' INT TERM

  if [[ ! -s $dir/token ]]; then
    (umask 077 && od -An -N32 -tx1 /dev/urandom | tr -d ' \n' >"$dir/token")
  fi
  chmod 600 "$dir/token"
  rm -f "$dir/server.port"

  "$server_bin" --listen "127.0.0.1:$port" --db "$db" --port-file "$dir/server.port" \
    --token-file "$dir/token" >"$dir/server.log" 2>&1 </dev/null &
  local server_pid=$!
  echo "$server_pid" >"$dir/server.pid"

  # The port file appears once the server listens; then it must answer.
  local i
  for ((i = 0; i < 300; i++)); do
    [[ -s $dir/server.port ]] && break
    # Our own child: kill -0 is enough (its command line may not show the
    # binary yet, between fork and exec).
    kill -0 "$server_pid" 2>/dev/null ||
      die "the server exited; see $dir/server.log:$(echo; tail -n 5 "$dir/server.log")"
    sleep 0.1
  done
  [[ -s $dir/server.port ]] || die "the server wrote no port file in 30 s; see $dir/server.log"
  local actual_port
  actual_port=$(<"$dir/server.port")
  for ((i = 0; i < 100; i++)); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$actual_port") 2>/dev/null; then break; fi
    sleep 0.1
  done
  ((i < 100)) || die "the server does not answer on 127.0.0.1:$actual_port"
  local address="127.0.0.1:$actual_port"

  cat >"$dir/farm.env" <<EOF
PRUNER_SERVER=$address
PRUNER_TOKEN_FILE=$dir/token
EOF

  local worker_pids=()
  for ((i = 1; i <= workers; i++)); do
    "$worker_bin" --server "$address" --token-file "$dir/token" --slots 1 \
      --device "$device" --name "local-farm/worker-$i" \
      >"$dir/worker-$i.log" 2>&1 </dev/null &
    worker_pids[i]=$!
    echo "${worker_pids[i]}" >"$dir/worker-$i.pid"
  done
  for ((i = 1; i <= workers; i++)); do
    local n
    for ((n = 0; n < 300; n++)); do
      grep -qs "registered with" "$dir/worker-$i.log" && break
      kill -0 "${worker_pids[i]}" 2>/dev/null ||
        die "worker $i exited; see $dir/worker-$i.log:$(echo; tail -n 5 "$dir/worker-$i.log")"
      sleep 0.1
    done
    ((n < 300)) || die "worker $i did not register in 30 s; see $dir/worker-$i.log"
  done

  trap - EXIT INT TERM
  log "server $address (pid $(<"$dir/server.pid"), db $db), $workers worker(s) registered"
  log "logs and pids in $dir; for clients: set -a; . $dir/farm.env; set +a"
}

cmd_status() {
  local up=0 down=0 file pid name
  if pid=$(live_pid "$dir/server.pid" pruner-server); then
    log "server: running (pid $pid, $(grep -s PRUNER_SERVER "$dir/farm.env" || echo '?'))"
    up=$((up + 1))
  else
    log "server: not running"
    down=$((down + 1))
  fi
  while IFS= read -r file; do
    [[ -n $file ]] || continue
    name=$(basename "$file" .pid)
    if pid=$(live_pid "$file" pruner-worker); then
      log "$name: running (pid $pid)"
      up=$((up + 1))
    else
      log "$name: not running"
      down=$((down + 1))
    fi
  done < <(worker_pid_files)
  # 0: everything runs; 1: something is down; 3: nothing runs.
  if ((up == 0)); then return 3; fi
  if ((down > 0)); then return 1; fi
  return 0
}

cmd_stop() {
  stop_farm
  log "stopped (logs stay in $dir)"
}

# ---- Arguments ---------------------------------------------------------------

[[ $# -ge 1 ]] || usage
command=$1
shift
workers=1
dir=.farm
port=0
build="$repo/build"
db=""
device=cpu
while [[ $# -gt 0 ]]; do
  case "$1" in
    --workers) workers=${2:?--workers needs a value}; shift 2 ;;
    --dir) dir=${2:?--dir needs a value}; shift 2 ;;
    --port) port=${2:?--port needs a value}; shift 2 ;;
    --build) build=${2:?--build needs a value}; shift 2 ;;
    --db) db=${2:?--db needs a value}; shift 2 ;;
    --device) device=${2:?--device needs a value}; shift 2 ;;
    -h | --help) usage 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done

mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
build=$(cd "$build" 2>/dev/null && pwd || echo "$build")
db=${db:-$dir/pruner.db}

case "$command" in
  start) cmd_start ;;
  status) cmd_status ;;
  stop) cmd_stop ;;
  -h | --help | help) usage 0 ;;
  *) die "unknown command '$command': start, status or stop" ;;
esac
