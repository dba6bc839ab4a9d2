// What this process costs the machine: resident and virtual memory and
// threads (/proc/self/status), CPU time and context switches (getrusage),
// the machine's busy time and the load average. The benchmark runs server and simulated workers in
// one process on a shared 2-core machine, so it has to show both what it
// uses and how busy the machine was.
#ifndef PRUNER_BENCH_SERVICE_PROCESS_STATS_H_
#define PRUNER_BENCH_SERVICE_PROCESS_STATS_H_

#include <cstdint>

namespace pruner::bench {

struct MemorySample {
  double rss_mib = 0;  // VmRSS
  double hwm_mib = 0;  // VmHWM: the peak RSS so far
  double vm_mib = 0;   // VmSize: mostly thread stacks reserved, not used
  int threads = 0;
};
MemorySample SampleMemory();

// The whole process so far, every thread (ended ones included).
struct ProcessCpu {
  double user_s = 0;
  double system_s = 0;
  // Voluntary and involuntary: with a thousand threads waking each other,
  // this is where the time goes, so it is worth a column.
  int64_t context_switches = 0;
};
ProcessCpu SampleProcessCpu();
// CPU seconds the whole machine spent busy so far (/proc/stat: every state
// but idle and iowait), over all cores. Minus this process's CPU time over
// the same window, it is what the machine's other tenants took.
double MachineBusySeconds();
// The 1-minute load average (0 if unreadable). It counts runnable threads,
// this process's own included, so it is read before the benchmark starts.
double LoadAverage1();

}  // namespace pruner::bench

#endif  // PRUNER_BENCH_SERVICE_PROCESS_STATS_H_
