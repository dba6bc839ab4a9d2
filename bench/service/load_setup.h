// What the load benchmark offers the server: the simulated workers' device
// and the jobs that keep them busy.
#ifndef PRUNER_BENCH_SERVICE_LOAD_SETUP_H_
#define PRUNER_BENCH_SERVICE_LOAD_SETUP_H_

#include <cstdint>
#include <string>
#include <vector>

#include "pruner/v1/tuning_service.pb.h"
#include "pruner/v1/types.pb.h"

namespace pruner::bench {

// This machine's CPU profile under the name "sim-cpu". A name of its own so
// that the synthetic records can never be mistaken for (or mixed with)
// records of the real CPU, whose stable key names what it is.
v1::Device SimulatedDevice();

struct LoadJobSettings {
  int jobs = 0;  // 0: JobsToKeepBusy()
  int per_round = 64;
  // Large enough that no job ends during the benchmark (the server's limit
  // is 1,000,000); the jobs are cancelled at the end.
  int64_t budget = 1000000;
};

// A job measures round by round: it proposes per_round candidates, waits
// for all of their results, records them, and only then proposes more. So
// at most jobs * per_round candidates are ever queued or leased, and W
// workers taking max_candidates each stay busy only while that is well
// above W * max_candidates. This returns enough jobs for twice that (half
// of them may be between rounds), and at least 16.
int JobsToKeepBusy(int max_workers, int max_candidates, int per_round);

// `settings.jobs` single-operator jobs with the random strategy (the
// cheapest search, so the server's own costs dominate), each on a different
// small matmul or dense (cycling through the list for more than 16 jobs),
// for `target`.
std::vector<v1::JobSpec> LoadJobSpecs(const LoadJobSettings& settings, const std::string& target);

}  // namespace pruner::bench

#endif  // PRUNER_BENCH_SERVICE_LOAD_SETUP_H_
