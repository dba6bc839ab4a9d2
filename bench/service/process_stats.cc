#include "bench/service/process_stats.h"

#include <sys/resource.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

namespace pruner::bench {
namespace {

// "VmRSS:	  12345 kB" -> MiB.
double KibLineToMib(const std::string& line) {
  const size_t colon = line.find(':');
  return std::strtod(line.c_str() + colon + 1, nullptr) / 1024.0;
}

}  // namespace

MemorySample SampleMemory() {
  MemorySample s;
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmRSS:", 0) == 0) s.rss_mib = KibLineToMib(line);
    if (line.rfind("VmHWM:", 0) == 0) s.hwm_mib = KibLineToMib(line);
    if (line.rfind("VmSize:", 0) == 0) s.vm_mib = KibLineToMib(line);
    if (line.rfind("Threads:", 0) == 0) s.threads = std::atoi(line.c_str() + 8);
  }
  return s;
}

ProcessCpu SampleProcessCpu() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& t) { return t.tv_sec + t.tv_usec / 1e6; };
  ProcessCpu c;
  c.user_s = seconds(usage.ru_utime);
  c.system_s = seconds(usage.ru_stime);
  c.context_switches = usage.ru_nvcsw + usage.ru_nivcsw;
  return c;
}

double MachineBusySeconds() {
  std::ifstream in("/proc/stat");
  std::string cpu;
  double user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
  if (!(in >> cpu >> user >> nice >> system >> idle >> iowait >> irq >> softirq >> steal)) return 0;
  return (user + nice + system + irq + softirq + steal) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

double LoadAverage1() {
  double load[1] = {0};
  return getloadavg(load, 1) == 1 ? load[0] : 0;
}

}  // namespace pruner::bench
