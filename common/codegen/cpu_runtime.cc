// Self-contained (the standard library and its own header only): exports
// ship this file (cpu_runtime_source.h) to link with the kernels' objects.
#include "common/codegen/cpu_runtime.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif
#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace pruner {
namespace {

int HardwareThreads() { return static_cast<int>(std::max(1u, std::thread::hardware_concurrency())); }

// How long an idle worker spins before it sleeps: long enough that the next
// call of a kernel being timed finds it awake, short enough that an idle
// pool gives the cores back at once.
constexpr auto kSpinBeforeSleep = std::chrono::microseconds(500);

// How often a spinning thread (a worker waiting for the next loop, the
// caller waiting for the workers) offers its core to another thread. A
// scheduler may put the caller and a worker on one core (this project's
// virtual machines pack threads onto few vCPUs): without yielding, a worker
// spinning for its next loop kept the caller, runnable on the same core,
// waiting for the whole kSpinBeforeSleep, and a 10 us kernel took 550 us a
// call.
constexpr int kSpinsBeforeYield = 64;

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
      if (spins < kSpinsBeforeYield) {
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
    // Named so that `top -H` and /proc/PID/task tell the pool's threads from
    // those of other runtimes in the process (PyTorch's, in bench/model).
    pthread_setname_np(pthread_self(), ("pruner-cpu-" + std::to_string(index + 1)).c_str());
    uint64_t seen = 0;
    for (;;) {
      const auto spin_start = std::chrono::steady_clock::now();
      int spins = 0;
      while (generation_.load(std::memory_order_acquire) == seen) {
        CpuRelax();
        if (++spins % kSpinsBeforeYield != 0) continue;
        if (std::chrono::steady_clock::now() - spin_start > kSpinBeforeSleep) {
          std::unique_lock<std::mutex> lock(wake_mu_);
          wake_cv_.wait(lock, [&] { return generation_.load(std::memory_order_acquire) != seen; });
        } else {
          std::this_thread::yield();
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

// A block of pruner_cpu_alloc starts with this header (its capacity in
// bytes), then the slack, the data and the slack again.
constexpr size_t kBlockHeaderBytes = 64;

// Freed blocks kept by the thread that freed them, for its next allocation.
// A kernel allocates its local buffers (cache stages, an inverted-residual
// task's expanded band) inside its parallel loop, once per iteration and
// call. Handing them back to malloc makes each one fresh memory for every
// iteration: above malloc's mmap threshold, every page faults again, which
// on a virtual machine can cost more than the kernel itself (a 0.36 ms
// kernel took 17 ms on its first call in a fresh process). Kept here, a
// thread faults its buffers in once.
class BlockCache {
 public:
  ~BlockCache() {
    for (int i = 0; i < count_; ++i) std::free(blocks_[i]);
  }

  // A kept block of at least `bytes`, the smallest such; nullptr if none.
  char* Take(size_t bytes) {
    int best = -1;
    for (int i = 0; i < count_; ++i) {
      if (Capacity(blocks_[i]) >= bytes &&
          (best < 0 || Capacity(blocks_[i]) < Capacity(blocks_[best]))) {
        best = i;
      }
    }
    if (best < 0) return nullptr;
    char* block = blocks_[best];
    blocks_[best] = blocks_[--count_];
    return block;
  }

  // Keeps `block` unless it is large (a kernel's argument, say) or the
  // cache is full; false when the caller should free it.
  bool Keep(char* block) {
    if (count_ == kMaxBlocks || Capacity(block) > kMaxBlockBytes) return false;
    blocks_[count_++] = block;
    return true;
  }

 private:
  static constexpr int kMaxBlocks = 8;
  static constexpr size_t kMaxBlockBytes = size_t{4} << 20;

  static size_t Capacity(const char* block) { return *reinterpret_cast<const size_t*>(block); }

  char* blocks_[kMaxBlocks] = {};
  int count_ = 0;
};

thread_local BlockCache t_blocks;

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
  const size_t bytes =
      (static_cast<size_t>(std::max<int64_t>(elements, 1)) * sizeof(float) + 63) / 64 * 64;
  char* block = pruner::t_blocks.Take(bytes);
  if (block == nullptr) {
    block = static_cast<char*>(std::aligned_alloc(64, pruner::kBlockHeaderBytes + bytes +
                                                          2 * pruner::kCpuRuntimeSlackBytes));
    if (block == nullptr) return nullptr;
    *reinterpret_cast<size_t*>(block) = bytes;
  }
  return reinterpret_cast<float*>(block + pruner::kBlockHeaderBytes +
                                  pruner::kCpuRuntimeSlackBytes);
}

void pruner_cpu_free(float* data) {
  if (data == nullptr) return;
  char* block = reinterpret_cast<char*>(data) - pruner::kCpuRuntimeSlackBytes -
                pruner::kBlockHeaderBytes;
  if (!pruner::t_blocks.Keep(block)) std::free(block);
}

}  // extern "C"
