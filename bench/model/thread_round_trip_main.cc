// bench_thread_round_trip: prints how far apart this machine's cores are
// right now, as common/measure/thread_round_trip.h measures it (ns per
// round trip of a cache line between two threads), and whether that means
// separate last-level caches. bench/model/profile_by_placement.py runs it
// between visits to sort them by where the hypervisor had put the vCPUs.
#include <cstdio>

#include "common/measure/thread_round_trip.h"

int main() {
  const double ns = pruner::ThreadRoundTripNs();
  std::printf("%.0f %s\n", ns,
              ns >= pruner::kSeparateCachesRoundTripNs ? "separate-l3" : "shared-l3");
  return 0;
}
