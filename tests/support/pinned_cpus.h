// CPU profiles fixed in the source, for tests whose expectations depend on
// the profile (the analyzer's estimates, the sketches a CPU gets, rankings
// of synthetic data) but that run no kernels: with a pinned profile such a
// test asserts the same thing on every machine. Tests that build and run
// kernels use DetectLocalCpu(), because the kernels run here.
#ifndef PRUNER_TESTS_SUPPORT_PINNED_CPUS_H_
#define PRUNER_TESTS_SUPPORT_PINNED_CPUS_H_

#include "common/device/device_profile.h"

namespace pruner::testing {

// A 2-thread AMD EPYC VM with AVX-512 (2 cores, 32 KiB L1d, 1 MiB L2,
// 32 MiB L3, 2.6 GHz) as DetectLocalCpu() reads it: the machine the suite's
// thresholds were set on.
DeviceProfile PinnedEpycCpu();

// A 2-core Intel Xeon (Sapphire Rapids) VM with AVX-512 (48 KiB L1d, 2 MiB
// L2, 105 MiB L3, 2.0 GHz), as DetectLocalCpu() would read it.
DeviceProfile PinnedXeonCpu();

// A CPU with round numbers, so that expected symbols and penalties can be
// worked out by hand: 8 cores, AVX2 (32-byte vectors: 8 fp32 lanes, 16
// registers), 2 FMA pipes, 32 KiB L1d, 1 MiB L2, 64-byte lines,
// 8 x 3 GHz x 8 lanes x 2 flops x 2 pipes = 768 GFLOP/s, 50 GB/s.
DeviceProfile HandCpu();

}  // namespace pruner::testing

#endif  // PRUNER_TESTS_SUPPORT_PINNED_CPUS_H_
