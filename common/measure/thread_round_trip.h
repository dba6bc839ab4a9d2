// How far apart the cores this process runs on are, as the time a cache
// line takes to go from one thread to another and back.
//
// On a VM the hypervisor places the vCPUs, and it may move them. On this
// project's 2-vCPU AMD EPYC VM the two vCPUs sometimes share an L3 (a round
// trip takes ~55 ns) and sometimes sit on different L3s (~400 ns), for
// seconds at a time. Multi-threaded kernels that hand data from one thread
// to the other (a stage written by one split of the work and read by
// another) slow down while the vCPUs are apart: ResNet-18 took 14 ms or
// 19 ms depending on it (bench/README.md, session 25). The benchmarks
// probe it per round so that their logs say which moments were which.
#ifndef PRUNER_COMMON_MEASURE_THREAD_ROUND_TRIP_H_
#define PRUNER_COMMON_MEASURE_THREAD_ROUND_TRIP_H_

namespace pruner {

// Round trips above this many nanoseconds mean the two threads do not
// share a last-level cache (between ~55 and ~400 ns on the VM above).
inline constexpr double kSeparateCachesRoundTripNs = 250;

// Nanoseconds per round trip of a cache line between this thread and a
// new one, ping-ponged `round_trips` times; the least of `tries` runs, so
// that a moment when the other thread waited for a core does not count.
double ThreadRoundTripNs(int round_trips = 4000, int tries = 3);

}  // namespace pruner

#endif  // PRUNER_COMMON_MEASURE_THREAD_ROUND_TRIP_H_
