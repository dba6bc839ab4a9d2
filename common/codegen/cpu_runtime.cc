// Self-contained (the standard library and its own header only): exports
// ship this file (cpu_runtime_source.h) to link with the kernels' objects.
#include "common/codegen/cpu_runtime.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <vector>

namespace pruner {
namespace {

int HardwareThreads() { return static_cast<int>(std::max(1u, std::thread::hardware_concurrency())); }

// How long an idle worker spins before it sleeps: long enough that the next
// call of a kernel being timed finds it awake, short enough that an idle
// pool gives the cores back at once.
constexpr auto kSpinBeforeSleep = std::chrono::microseconds(500);

thread_local bool t_in_parallel_loop = false;
std::atomic<int> g_requested_threads{0};

#if defined(__x86_64__) || defined(__i386__)
inline void CpuRelax() { _mm_pause(); }
#elif defined(__aarch64__)
inline void CpuRelax() { __asm__ __volatile__("yield"); }
#else
inline void CpuRelax() {}
#endif

// One pool per process. Threads do not survive fork, so a pool remembers the
// process that made it, and a forked child (the measurement sandbox) makes
// its own on first use; the parent's copy is abandoned there, never touched.
class Pool {
 public:
  explicit Pool(int workers) : pid_(getpid()) {
    threads_.reserve(workers);
    for (int i = 0; i < workers; ++i) threads_.emplace_back([this, i] { WorkerLoop(i); });
    for (std::thread& t : threads_) t.detach();  // lives as long as the process
  }

  pid_t pid() const { return pid_; }
  int workers() const { return static_cast<int>(threads_.size()); }

  // False when another thread is running a loop on the pool.
  bool TryRun(PrunerCpuTaskFn task, void* closure, int64_t extent, int threads) {
    std::unique_lock<std::mutex> busy(busy_, std::try_to_lock);
    if (!busy.owns_lock()) return false;
    task_ = task;
    closure_ = closure;
    extent_ = extent;
    threads_in_loop_ = threads;
    remaining_.store(workers(), std::memory_order_relaxed);
    {
      std::lock_guard<std::mutex> lock(wake_mu_);
      generation_.fetch_add(1, std::memory_order_release);
    }
    wake_cv_.notify_all();
    RunChunk(0);
    for (int spins = 0; remaining_.load(std::memory_order_acquire) != 0; ++spins) {
      if (spins < 4096) {
        CpuRelax();
      } else {
        std::this_thread::yield();
      }
    }
    return true;
  }

 private:
  void RunChunk(int index) {
    if (index >= threads_in_loop_) return;
    const int64_t chunk = (extent_ + threads_in_loop_ - 1) / threads_in_loop_;
    const int64_t begin = std::min(extent_, chunk * index);
    const int64_t end = std::min(extent_, begin + chunk);
    if (begin < end) task_(closure_, begin, end);
  }

  void WorkerLoop(int index) {
    t_in_parallel_loop = true;
    uint64_t seen = 0;
    for (;;) {
      const auto spin_start = std::chrono::steady_clock::now();
      int spins = 0;
      while (generation_.load(std::memory_order_acquire) == seen) {
        CpuRelax();
        if (++spins % 64 == 0 &&
            std::chrono::steady_clock::now() - spin_start > kSpinBeforeSleep) {
          std::unique_lock<std::mutex> lock(wake_mu_);
          wake_cv_.wait(lock, [&] { return generation_.load(std::memory_order_acquire) != seen; });
        }
      }
      seen = generation_.load(std::memory_order_acquire);
      RunChunk(index + 1);
      remaining_.fetch_sub(1, std::memory_order_acq_rel);
    }
  }

  const pid_t pid_;
  std::vector<std::thread> threads_;
  std::mutex busy_;
  std::mutex wake_mu_;
  std::condition_variable wake_cv_;
  std::atomic<uint64_t> generation_{0};
  std::atomic<int> remaining_{0};
  // The current loop; written before generation_ is bumped, read after.
  PrunerCpuTaskFn task_ = nullptr;
  void* closure_ = nullptr;
  int64_t extent_ = 0;
  int threads_in_loop_ = 1;
};

std::atomic<Pool*> g_pool{nullptr};

Pool* ThisProcessPool() {
  Pool* pool = g_pool.load(std::memory_order_acquire);
  if (pool != nullptr && pool->pid() == getpid()) return pool;
  static std::mutex* create_mu = new std::mutex;  // never destroyed: safe at exit
  std::lock_guard<std::mutex> lock(*create_mu);
  pool = g_pool.load(std::memory_order_acquire);
  if (pool == nullptr || pool->pid() != getpid()) {
    pool = new Pool(HardwareThreads() - 1);  // the caller is the last thread
    g_pool.store(pool, std::memory_order_release);
  }
  return pool;
}

}  // namespace

void SetCpuRuntimeThreads(int threads) { g_requested_threads.store(std::max(0, threads)); }

int CpuRuntimeThreads() {
  const int requested = g_requested_threads.load();
  return requested > 0 ? std::min(requested, HardwareThreads()) : HardwareThreads();
}

}  // namespace pruner

extern "C" {

void pruner_cpu_parallel_for(PrunerCpuTaskFn task, void* closure, int64_t extent) {
  if (extent <= 0) return;
  const int threads = static_cast<int>(std::min<int64_t>(pruner::CpuRuntimeThreads(), extent));
  if (threads > 1 && !pruner::t_in_parallel_loop) {
    pruner::t_in_parallel_loop = true;
    const bool ran = pruner::ThisProcessPool()->TryRun(task, closure, extent, threads);
    pruner::t_in_parallel_loop = false;
    if (ran) return;
  }
  task(closure, 0, extent);
}

float* pruner_cpu_alloc(int64_t elements) {
  const size_t slack = static_cast<size_t>(pruner::kCpuRuntimeSlackBytes);
  const size_t bytes =
      (static_cast<size_t>(std::max<int64_t>(elements, 1)) * sizeof(float) + 63) / 64 * 64;
  char* base = static_cast<char*>(std::aligned_alloc(64, bytes + 2 * slack));
  return base == nullptr ? nullptr : reinterpret_cast<float*>(base + slack);
}

void pruner_cpu_free(float* data) {
  if (data != nullptr) std::free(reinterpret_cast<char*>(data) - pruner::kCpuRuntimeSlackBytes);
}

}  // extern "C"
