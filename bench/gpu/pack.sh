#!/usr/bin/env bash
# Packs what the GPU runs need into one folder that the device tool can
# carry to a lent GPU machine (whose image has CUDA but none of Debian's
# libraries): stripped binaries of a LibTorch-free build, laid out like a
# build tree so that deploy/local-farm.sh --build finds them, plus every
# shared library they load except the C runtime (the machine's newer glibc
# and libstdc++ run them). All of it travels as one carry.tar.xz (libLLVM
# alone is 117 MB, over the device tool's 64 MiB); checks.sh, records.sh
# and tuning.sh unpack it there.
#
#   bench/gpu/pack.sh [BUILD_DIR] [OUT_DIR]     (defaults build-gpu, .gpu-carry)
#
# Build first:
#   cmake -S . -B build-gpu -DPRUNER_WITH_TORCH=OFF
#   cmake --build build-gpu -j2 --target pruner pruner-server pruner-worker \
#     codegen_cuda_driver_test measure_cuda_fault_kernels_test measure_cuda_check \
#     measure_local_measurer_test worker_device_test
set -euo pipefail
build=${1:-build-gpu}
out=${2:-.gpu-carry}
binaries=(
  client/pruner server/pruner-server worker/pruner-worker
  tests/codegen/codegen_cuda_driver_test tests/measure/measure_cuda_fault_kernels_test
  tests/measure/measure_cuda_check tests/measure/measure_local_measurer_test
  tests/worker/worker_tests tests/measure/measure_cuda_compile_sandboxed_test
  tests/measure/measure_sandbox_test
)
rm -rf "$out"
mkdir -p "$out/build" "$out/lib"
for b in "${binaries[@]}"; do
  [[ -x $build/$b ]] || { echo "pack: no $build/$b (build it first)" >&2; exit 1; }
  mkdir -p "$out/build/$(dirname "$b")"
  strip -o "$out/build/$b" "$build/$b"
done
for b in "${binaries[@]}"; do ldd "$build/$b"; done | awk '$3 ~ /^\// {print $3}' | sort -u |
  grep -Ev '/(libc|libm|libstdc\+\+|libgcc_s|libpthread|libdl|librt|ld-linux[^/]*)\.so' |
  while read -r lib; do cp -L "$lib" "$out/lib/"; done
tar -C "$out" -cf - build lib | xz -T0 -6 >"$out/carry.tar.xz"
rm -rf "$out/build" "$out/lib"
du -sh "$out"
