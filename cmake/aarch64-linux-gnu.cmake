# Cross build for 64-bit Arm Linux (Jetson, Raspberry Pi 4/5, Graviton) with
# Debian's cross toolchain and the arm64 multiarch libraries that
# scripts/setup.sh installs. Only the worker builds this way
# (PRUNER_WORKER_ONLY): scripts/build-arm-worker.sh.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
# Multiarch: arm64 libraries and CMake package files live in
# /usr/lib/aarch64-linux-gnu, headers in /usr/include (shared with the
# host). The code generators (protoc, grpc_cpp_plugin) are the host's.
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
# pkg-config (gRPC's config asks it for RE2) must read the arm64 .pc files.
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig)
set(CMAKE_IGNORE_PATH /usr/lib/x86_64-linux-gnu /lib/x86_64-linux-gnu
    /usr/lib/x86_64-linux-gnu/cmake)
# Running what was built (try_run, tests): qemu with the arm64 loader.
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64-static -L /usr/aarch64-linux-gnu)
