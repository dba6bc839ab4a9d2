#include "common/measure/host_load.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <ctime>
#include <fstream>
#include <sstream>
#include <string>

namespace pruner {
namespace {

double Seconds(const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec * 1e-6; }

}  // namespace

std::optional<HostCpuSample> SampleHostCpu() {
  std::ifstream stat("/proc/stat");
  std::string line;
  if (!stat || !std::getline(stat, line) || line.rfind("cpu ", 0) != 0) return std::nullopt;
  // cpu  user nice system idle iowait irq softirq steal guest guest_nice
  std::istringstream fields(line.substr(4));
  long long user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
  if (!(fields >> user >> nice >> system >> idle >> iowait >> irq >> softirq)) return std::nullopt;
  fields >> steal;  // absent on old kernels
  const long ticks = sysconf(_SC_CLK_TCK);
  if (ticks <= 0) return std::nullopt;
  HostCpuSample s;
  // Steal counts as busy: on a VM it is another tenant holding our core.
  s.host_busy_s = static_cast<double>(user + nice + system + irq + softirq + steal) /
                  static_cast<double>(ticks);
  rusage children{};
  getrusage(RUSAGE_CHILDREN, &children);
  s.children_cpu_s = Seconds(children.ru_utime) + Seconds(children.ru_stime);
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  s.wall_s = static_cast<double>(now.tv_sec) + now.tv_nsec * 1e-9;
  return s;
}

double OtherBusyCores(const std::optional<HostCpuSample>& before,
                      const std::optional<HostCpuSample>& after) {
  if (!before || !after) return -1;
  const double wall = after->wall_s - before->wall_s;
  if (wall <= 0) return -1;
  const double others = (after->host_busy_s - before->host_busy_s) -
                        (after->children_cpu_s - before->children_cpu_s);
  return std::max(0.0, others / wall);
}

}  // namespace pruner
