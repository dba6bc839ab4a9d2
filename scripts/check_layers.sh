#!/usr/bin/env bash
# Fails when a file includes a header of a layer that comes after its own in
# LAYERS (an include that goes up the layer order), listing every such
# include. Reads the tracked sources; needs only bash, git, grep and awk.
set -euo pipefail
cd "$(dirname "$0")/.."

git ls-files -- '*.cc' '*.h' '*.cpp' '*.cu' \
  | xargs grep -Hn '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' \
  | awk -v layers_file=LAYERS '
    BEGIN {
      n = 0
      while ((getline line < layers_file) > 0) {
        sub(/#.*/, "", line)
        if (split(line, words, /[[:space:]]+/) == 0) continue
        first = 1
        for (i = 1; i <= length(words); ++i) {
          if (words[i] == "") continue
          p = words[i]; sub(/\/$/, "", p)
          prefix[++n] = p; rank[n] = layer_count + 1
          if (first) { name[layer_count + 1] = p; first = 0 }
        }
        if (!first) ++layer_count
      }
      if (layer_count == 0) { print "check_layers: no layers in " layers_file; exit 2 }
    }
    # The layer of a path: its longest listed prefix (0 when none).
    function layer_of(path,    i, best, best_len) {
      best = 0; best_len = 0
      for (i = 1; i <= n; ++i) {
        if ((path == prefix[i] || index(path, prefix[i] "/") == 1) && length(prefix[i]) > best_len) {
          best = rank[i]; best_len = length(prefix[i])
        }
      }
      return best
    }
    {
      file = $0; sub(/:.*/, "", file)
      rest = $0; sub(/^[^:]*:/, "", rest); lineno = rest; sub(/:.*/, "", lineno)
      header = $0; sub(/^[^"]*"/, "", header); sub(/".*/, "", header)
      from = layer_of(file); to = layer_of(header)
      if (from > 0 && to > from) {
        printf "%s:%s: includes %s (layer %s comes after %s in LAYERS)\n", file, lineno, header, name[to], name[from]
        ++bad
      }
    }
    END {
      if (bad > 0) { printf "check_layers: %d include(s) go up the layer order\n", bad; exit 1 }
      printf "check_layers: %d layers, every include goes down the order\n", layer_count
    }'
