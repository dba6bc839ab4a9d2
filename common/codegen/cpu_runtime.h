// The runtime that kernels of the LLVM CPU backend call (cpu_llvm_codegen.h):
// a thread pool for parallel loops and the heap buffers of the codegen
// contract. The JIT binds these symbols to this process's functions, so a
// kernel run in a forked sandbox child uses the child's own pool.
//
// The pool is TVM's kind rather than OpenMP's: workers spin for a short
// while after each parallel loop (back-to-back kernel calls find them
// awake), then sleep on a condition variable. A parallel loop inside a
// parallel loop, or one started while another thread holds the pool, runs
// on the calling thread.
#ifndef PRUNER_COMMON_CODEGEN_CPU_RUNTIME_H_
#define PRUNER_COMMON_CODEGEN_CPU_RUNTIME_H_

#include <cstdint>

extern "C" {

// The body of a parallel loop: runs iterations [begin, end) with `closure`
// holding what the loop body reads from its enclosing scope.
typedef void (*PrunerCpuTaskFn)(void* closure, int64_t begin, int64_t end);

// Runs task over [0, extent) in contiguous chunks, one per thread (OpenMP's
// schedule(static)), and returns when every chunk is done.
void pruner_cpu_parallel_for(PrunerCpuTaskFn task, void* closure, int64_t extent);

// 64-byte aligned storage for `elements` floats with kCpuRuntimeSlackBytes
// of readable memory on both sides; nullptr when out of memory.
float* pruner_cpu_alloc(int64_t elements);
void pruner_cpu_free(float* data);
}

namespace pruner {

// Readable bytes pruner_cpu_alloc leaves on both sides of a buffer:
// cpu_codegen.h's kCpuReadSlackBytes (this header stands alone for exports).
inline constexpr int64_t kCpuRuntimeSlackBytes = 64;

// Threads of later parallel loops in this process, the caller included;
// 0 restores the default (every hardware thread).
void SetCpuRuntimeThreads(int threads);
int CpuRuntimeThreads();

}  // namespace pruner

#endif  // PRUNER_COMMON_CODEGEN_CPU_RUNTIME_H_
