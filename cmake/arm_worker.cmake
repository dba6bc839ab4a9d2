# The Arm worker, cross-built beside the host build so that its end-to-end
# test (tests/e2e/arm_worker_test.cc) runs it under qemu: an external project
# over this same source tree with cmake/aarch64-linux-gnu.cmake and
# PRUNER_WORKER_ONLY. Skipped, with a message, where scripts/setup.sh's
# cross packages are missing.
option(PRUNER_ARM_WORKER "Cross-build pruner-worker for aarch64 and test it under qemu" ON)
find_program(PRUNER_AARCH64_CXX aarch64-linux-gnu-g++)
find_program(PRUNER_QEMU_AARCH64 qemu-aarch64-static)
if(PRUNER_ARM_WORKER AND PRUNER_AARCH64_CXX AND PRUNER_QEMU_AARCH64 AND
   EXISTS /usr/lib/aarch64-linux-gnu/cmake/grpc AND NOT CMAKE_CROSSCOMPILING)
  include(ExternalProject)
  ExternalProject_Add(arm_worker
    SOURCE_DIR ${CMAKE_SOURCE_DIR}
    BINARY_DIR ${CMAKE_BINARY_DIR}/arm-worker
    CMAKE_ARGS -DCMAKE_TOOLCHAIN_FILE=${CMAKE_SOURCE_DIR}/cmake/aarch64-linux-gnu.cmake
               -DPRUNER_WORKER_ONLY=ON -DCMAKE_BUILD_TYPE=Release
    # Two jobs, as the host build runs beside it on a 2-core machine.
    BUILD_COMMAND ${CMAKE_COMMAND} --build <BINARY_DIR> --target pruner-worker -- -j2
    INSTALL_COMMAND ""
    # Its sources are this tree's: its own build decides what changed.
    BUILD_ALWAYS ON)
  set(PRUNER_ARM_WORKER_BIN ${CMAKE_BINARY_DIR}/arm-worker/worker/pruner-worker)
  message(STATUS "Arm worker: cross-built in ${CMAKE_BINARY_DIR}/arm-worker, tested under qemu")
else()
  message(STATUS "Arm worker: not built (needs aarch64-linux-gnu-g++, qemu-user-static and "
                 "the arm64 libraries scripts/setup.sh installs)")
endif()
