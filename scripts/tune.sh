#!/usr/bin/env bash
# The README's main job: set up, build, export a real model with PyTorch,
# tune it on this machine's CPU through a local farm (one pruner-server and
# one pruner-worker on 127.0.0.1, with a token), compile it into one shared
# library and run it next to PyTorch.
#
#   1. scripts/export_models.py writes models/$MODEL.onnx (torch.onnx.export),
#      a fixed-seed input, PyTorch's output and a frozen TorchScript export;
#      MODEL is bert_s128 (BERT-mini from int64 token ids: embeddings, 4
#      layers, hidden 256, sequence 128, batch 1, pooler), encoder_s128 (its
#      encoder alone), resnet18 or mobilenet_v2.
#   2. `pruner submit --model` imports the ONNX file and sends its fused
#      tasks (not its weights) to the server; the server's search (Ansor's
#      evolutionary search guided by XGBoost) proposes, the worker builds,
#      runs in its sandbox, checks against the reference and times. Records
#      land in pruner.db.
#   3. `pruner compile` builds models/$MODEL.so from the best records: the
#      tuned kernels, the weights, a static memory plan and a C API.
#   4. `pruner run` checks its output against PyTorch's and times both,
#      interleaved, with the same threads.
#
# Extra arguments go to `pruner submit` (e.g. --trials 1000). Ctrl-C stops
# watching and takes the farm down; the job stays in pruner.db and resumes
# when a server is started on it again.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
BUILD_DIR=${BUILD_DIR:-build}
MODEL=${MODEL:-bert_s128}
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo > /dev/null
cmake --build "$BUILD_DIR" -j "$(nproc)" --target pruner pruner-server pruner-worker
PRUNER="$BUILD_DIR/client/pruner"

if [[ ! -f models/$MODEL.torchscript.pt ]]; then
  /usr/bin/python3 scripts/export_models.py --set bench --only "$MODEL" --out models 2>/dev/null
fi
"$PRUNER" tasks --model "models/$MODEL.onnx"

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
[[ $given == *" --target "* ]] || defaults+=(--target cpu)
[[ $given == *" --trials "* ]] || defaults+=(--trials 200)
[[ $given == *" --per-round "* ]] || defaults+=(--per-round 16)
[[ $given == *" --name "* ]] || defaults+=(--name "readme main job: $MODEL")
submitted=$("$PRUNER" submit --model "models/$MODEL.onnx" "${defaults[@]}" "$@")
echo "$submitted"
JOB=$(sed -n 's/^submitted job \([0-9]*\).*/\1/p' <<<"$submitted")
"$PRUNER" watch "$JOB"
echo
"$PRUNER" compile --model "models/$MODEL.onnx" --db pruner.db --out "models/$MODEL.so"
echo
"$PRUNER" run "models/$MODEL.so" --input "models/$MODEL.input.npy" \
  --expect "models/$MODEL.output.npy" --torchscript "models/$MODEL.torchscript.pt"
