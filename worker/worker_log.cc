#include "worker/worker_log.h"

#include <time.h>

#include <chrono>
#include <cstdio>
#include <mutex>

namespace pruner {

void WorkerLog(const std::string& line) {
  static std::mutex* mu = new std::mutex;  // never destroyed: usable at exit
  const auto now = std::chrono::system_clock::now();
  const time_t seconds = std::chrono::system_clock::to_time_t(now);
  const int millis = static_cast<int>(
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000);
  struct tm local;
  localtime_r(&seconds, &local);
  char stamp[32];
  strftime(stamp, sizeof(stamp), "%H:%M:%S", &local);
  std::lock_guard<std::mutex> lock(*mu);
  std::fprintf(stderr, "[%s.%03d] %s\n", stamp, millis, line.c_str());
  std::fflush(stderr);
}

}  // namespace pruner
