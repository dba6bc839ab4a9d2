// How busy the host was with other work while a kernel ran: the contention
// signal each record keeps, so that a dataset collected on a shared machine
// can drop the records measured while something else competed for the
// cores (a build, another tenant).
//
// busy cores = (Δ busy CPU time of the whole host, from /proc/stat)
//              − (Δ CPU time of this process's reaped children)
//              ────────────────────────────────────────────────
//                              Δ wall time
// sampled around one sandboxed run: the measured kernel is the one child
// reaped in that window, so what remains is everything else (other
// processes, this process's own threads). 0 on a quiet host, about 1 when
// one other core was fully busy. Jiffies are 10 ms, so a short run reads
// coarse: treat values under ~0.2 as quiet.
#ifndef PRUNER_COMMON_MEASURE_HOST_LOAD_H_
#define PRUNER_COMMON_MEASURE_HOST_LOAD_H_

#include <optional>

namespace pruner {

struct HostCpuSample {
  double host_busy_s = 0;      // all CPUs, user + nice + system + irq + softirq + steal
  double children_cpu_s = 0;   // getrusage(RUSAGE_CHILDREN), user + system
  double wall_s = 0;           // CLOCK_MONOTONIC
};

// nullopt where /proc/stat cannot be read (not Linux, a restricted sandbox).
std::optional<HostCpuSample> SampleHostCpu();

// Cores kept busy by other work between the two samples; -1 when either is
// missing or the window is empty. Never below 0 (jiffy rounding).
double OtherBusyCores(const std::optional<HostCpuSample>& before,
                      const std::optional<HostCpuSample>& after);

}  // namespace pruner

#endif  // PRUNER_COMMON_MEASURE_HOST_LOAD_H_
