#!/usr/bin/env bash
# Packs the cross-built Arm worker (scripts/build-arm-worker.sh) with the
# arm64 libraries it loads into one tarball for a Jetson, a Raspberry Pi or
# any aarch64 Linux board, whatever that board's distribution ships:
#   bin/pruner-worker   (finds lib/ through its RUNPATH, $ORIGIN/../lib)
#   lib/*.so*           (gRPC, protobuf, Abseil, OpenSSL, spdlog, ...; also
#                        libstdc++ and libgcc_s, newer than older boards')
# The board's own glibc is used: it must be at least the version this
# prints ("needs glibc >= ..."). Unpack it in /opt/pruner (deploy/README.md,
# "Arm edge workers").
#
#   deploy/pack-arm-worker.sh [BUILD_DIR] [OUT]   (defaults build-arm, pruner-worker-aarch64.tar.gz)
set -euo pipefail
build=${1:-build-arm}
out=${2:-pruner-worker-aarch64.tar.gz}
worker=$build/worker/pruner-worker
[[ -x $worker ]] || { echo "pack-arm-worker: no $worker (run scripts/build-arm-worker.sh)" >&2; exit 1; }
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/pruner/bin" "$stage/pruner/lib"
aarch64-linux-gnu-strip -o "$stage/pruner/bin/pruner-worker" "$worker"
# The libraries it needs, transitively, as the arm64 loader would resolve
# them (ldd cannot run an arm64 binary here; the loader under qemu can).
libs=$(qemu-aarch64-static /lib/ld-linux-aarch64.so.1 --list "$worker" | awk '$3 ~ /^\// {print $3}')
for lib in $libs; do
  case $(basename "$lib") in
    libc.so*|libm.so*|libpthread.so*|libdl.so*|librt.so*|ld-linux*) continue ;;
  esac
  aarch64-linux-gnu-strip --strip-unneeded -o "$stage/pruner/lib/$(basename "$lib")" "$lib"
done
glibc=$(for f in "$stage"/pruner/bin/* "$stage"/pruner/lib/*; do
          aarch64-linux-gnu-objdump -T "$f" | grep -o 'GLIBC_[0-9.]*'
        done | sort -uV | tail -1)
tar -C "$stage" -czf "$out" pruner
echo "$out: $(du -h "$out" | cut -f1), $(ls "$stage/pruner/lib" | wc -l) libraries; needs glibc >= ${glibc#GLIBC_}"
