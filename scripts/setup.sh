#!/usr/bin/env bash
# Installs every build and test dependency of Pruner from Debian packages.
# Safe to run twice: apt-get skips what is already installed.
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build pkg-config git
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler
  libabsl-dev libsqlite3-dev sqlite3 liblzma-dev xz-utils libssl-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libtorch-dev
  nlohmann-json3-dev libcli11-dev libspdlog-dev
  libopenblas-dev libdnnl-dev ocl-icd-opencl-dev
  libxgboost-dev
  llvm-15-dev
  libonnx-dev python3-torch python3-torchvision python3-numpy
  # The Arm worker (scripts/build-arm-worker.sh): a cross compiler, the
  # worker's libraries for arm64 (multiarch) and qemu to run it here.
  g++-aarch64-linux-gnu qemu-user-static
  libgrpc++-dev:arm64 libprotobuf-dev:arm64 libabsl-dev:arm64 libssl-dev:arm64
  libspdlog-dev:arm64 libfmt-dev:arm64 zlib1g-dev:arm64 libgomp1:arm64
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#PACKAGES[@]} packages already installed"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
  $SUDO dpkg --add-architecture arm64
fi
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
echo "setup: done"
