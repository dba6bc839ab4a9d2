#!/bin/bash
# What g++ made of kernels that bench_dataset_metrics --dump-sources wrote:
# for each source, g++ 12 -O3 -march=$MARCH -fopenmp assembly (the flags
# of the C++ backend, cpu_build.cc, with -march named so that any machine
# shows a Sapphire Rapids' code), its FMAs by register width, and in the
# straight-line stretch with the most FMAs (a loop body) the vector stores:
# 0 when the accumulators stay in registers across that loop.
#   bench/dataset/gcc_asm_facts.sh DIR/j4.cc DIR/j25.cc ...
set -euo pipefail
march=${MARCH:-sapphirerapids}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for f in "$@"; do
  s="$out/$(basename "${f%.cc}").s"
  g++ -O3 -march="$march" -fopenmp -std=c++17 -S -o "$s" "$f"
  awk -v name="$f" -v first="$(head -1 "$f")" '
    /^\.L[0-9]+:/ || /^\tj[a-z]+\t/ { if (fma > best_fma) { best_fma = fma; best_st = st } fma = 0; st = 0 }
    /vfmadd/ { if ($0 ~ /zmm/) z++; else if ($0 ~ /ymm/) y++; else if ($0 ~ /ss\t/) sc++; else x++; fma++ }
    /vmov[au]ps\t%[xyz]mm[0-9]+, / { st++ }
    END { if (fma > best_fma) { best_fma = fma; best_st = st }
          printf "%s (%s)\n  FMAs: zmm %d, ymm %d, xmm %d, scalar %d; busiest stretch: %d FMAs, %d vector stores\n",
                 name, substr(first, 4), z, y, x, sc, best_fma, best_st }' "$s"
done
