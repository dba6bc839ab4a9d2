#include "bench/measure_baselines.h"

#include <immintrin.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

#ifdef PRUNER_BENCH_HAVE_OPENBLAS
#include <cblas.h>
#endif
#ifdef PRUNER_BENCH_HAVE_ONEDNN
#include "oneapi/dnnl/dnnl.hpp"
#endif

namespace pruner::bench {
namespace {

// 12 independent accumulators: more than the FMA latency (4 cycles) times
// the FMA issue width (2), so the loop is throughput-bound. Returns a value
// derived from the accumulators so nothing is optimized away.
__attribute__((target("avx512f"), noinline)) float FmaLoopZmm(int64_t iters) {
  __m512 acc[12];
  for (int i = 0; i < 12; ++i) acc[i] = _mm512_set1_ps(0.001f * i);
  const __m512 a = _mm512_set1_ps(0.9999f);
  const __m512 b = _mm512_set1_ps(1e-6f);
  for (int64_t n = 0; n < iters; ++n) {
#pragma GCC unroll 12
    for (int i = 0; i < 12; ++i) acc[i] = _mm512_fmadd_ps(acc[i], a, b);
  }
  __m512 s = acc[0];
  for (int i = 1; i < 12; ++i) s = _mm512_add_ps(s, acc[i]);
  float lanes[16];
  _mm512_storeu_ps(lanes, s);
  float r = 0;
  for (float x : lanes) r += x;
  return r;
}

__attribute__((target("avx2,fma"), noinline)) float FmaLoopYmm(int64_t iters) {
  __m256 acc[12];
  for (int i = 0; i < 12; ++i) acc[i] = _mm256_set1_ps(0.001f * i);
  const __m256 a = _mm256_set1_ps(0.9999f);
  const __m256 b = _mm256_set1_ps(1e-6f);
  for (int64_t n = 0; n < iters; ++n) {
#pragma GCC unroll 12
    for (int i = 0; i < 12; ++i) acc[i] = _mm256_fmadd_ps(acc[i], a, b);
  }
  __m256 s = acc[0];
  for (int i = 1; i < 12; ++i) s = _mm256_add_ps(s, acc[i]);
  float lanes[8];
  _mm256_storeu_ps(lanes, s);
  float r = 0;
  for (float x : lanes) r += x;
  return r;
}

// GFLOP/s of `threads` threads each running fn(iters) at once; iters is
// calibrated so one call takes about `seconds`.
double RunFma(float (*fn)(int64_t), int lanes, int threads, double seconds) {
  int64_t iters = 1 << 16;
  for (;;) {  // calibrate on one thread
    auto t = Clock::now();
    volatile float sink = fn(iters);
    (void)sink;
    const double s = Since(t);
    if (s > 0.02) {
      iters = static_cast<int64_t>(iters * seconds / s) + 1;
      break;
    }
    iters *= 4;
  }
  double best = 0;
  // The best of several short rounds: on a shared machine one of them
  // usually finds both cores free.
  for (int rep = 0; rep < 10; ++rep) {
    std::atomic<int> ready{0};
    std::atomic<bool> go{false};
    std::vector<double> secs(threads);
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) {
      pool.emplace_back([&, t] {
        ready.fetch_add(1);
        while (!go.load()) {
        }
        auto start = Clock::now();
        volatile float sink = fn(iters);
        (void)sink;
        secs[t] = Since(start);
      });
    }
    while (ready.load() < threads) {
    }
    go.store(true);
    for (auto& th : pool) th.join();
    const double slowest = *std::max_element(secs.begin(), secs.end());
    const double flops = 2.0 * 12 * lanes * static_cast<double>(iters) * threads;
    best = std::max(best, flops / slowest / 1e9);
  }
  return best;
}

}  // namespace

double LoadAverage() {
  double l[1] = {0};
  return getloadavg(l, 1) == 1 ? l[0] : -1;
}

FmaPeak MeasureFmaPeak(int threads, double seconds) {
  FmaPeak p;
  p.threads = threads;
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) p.gflops_zmm = RunFma(FmaLoopZmm, 16, threads, seconds);
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    p.gflops_ymm = RunFma(FmaLoopYmm, 8, threads, seconds);
  }
  p.gflops = std::max(p.gflops_zmm, p.gflops_ymm);
  return p;
}

LibraryKernel PrepareOpenBlasSgemm(const Tensor& a, const Tensor& b, bool trans_b) {
  LibraryKernel k;
#ifdef PRUNER_BENCH_HAVE_OPENBLAS
  // The operands are copied so that the kernel does not depend on the
  // caller's tensors living on.
  struct Operands {
    Tensor a, b, c;
  };
  auto op = std::make_shared<Operands>(Operands{a, b, Tensor()});
  const int m = static_cast<int>(a.shape[0]);
  const int kk = static_cast<int>(a.shape[1]);
  const int n = static_cast<int>(trans_b ? b.shape[0] : b.shape[1]);
  op->c = Tensor::Zeros({m, n});
  k.available = true;
  k.name = std::string("OpenBLAS sgemm ") + (trans_b ? "NT" : "NN") + " (" +
           openblas_get_config() + ", " + std::to_string(openblas_get_num_threads()) +
           " threads)";
  k.call = [op, m, n, kk, trans_b] {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, trans_b ? CblasTrans : CblasNoTrans, m, n, kk, 1.0f,
                op->a.data.data(), kk, op->b.data.data(), trans_b ? kk : n, 0.0f,
                op->c.data.data(), n);
  };
  k.output = [op] { return op->c; };
#else
  (void)a; (void)b; (void)trans_b;
  k.error = "built without OpenBLAS (install libopenblas-dev and reconfigure)";
#endif
  return k;
}

LibraryKernel PrepareOneDnnConv2d(const Tensor& data, const Tensor& weight, int stride, int pad) {
  LibraryKernel k;
#ifdef PRUNER_BENCH_HAVE_ONEDNN
  using namespace dnnl;
  try {
    const memory::dim n = data.shape[0], c = data.shape[1], h = data.shape[2], w = data.shape[3];
    const memory::dim kc = weight.shape[0], rr = weight.shape[2], ss = weight.shape[3];
    const memory::dim p = (h + 2 * pad - rr) / stride + 1, q = (w + 2 * pad - ss) / stride + 1;
    // Everything the calls need, alive as long as the closures are.
    struct Primitive {
      engine eng{engine::kind::cpu, 0};
      stream strm{eng};
      memory src, wei, dst, user_dst;
      std::optional<convolution_forward> conv;
      Tensor output;
    };
    auto s = std::make_shared<Primitive>();
    const memory::dims src_dims = {n, c, h, w}, wei_dims = {kc, c, rr, ss}, dst_dims = {n, kc, p, q};
    auto any = [](const memory::dims& d) {
      return memory::desc(d, memory::data_type::f32, memory::format_tag::any);
    };
    convolution_forward::desc desc(prop_kind::forward_inference, algorithm::convolution_direct,
                                   any(src_dims), any(wei_dims), any(dst_dims), {stride, stride},
                                   {pad, pad}, {pad, pad});
    convolution_forward::primitive_desc pd(desc, s->eng);
    memory user_src({src_dims, memory::data_type::f32, memory::format_tag::nchw}, s->eng,
                    const_cast<float*>(data.data.data()));
    memory user_wei({wei_dims, memory::data_type::f32, memory::format_tag::oihw}, s->eng,
                    const_cast<float*>(weight.data.data()));
    s->output = Tensor::Zeros({n, kc, p, q});
    s->user_dst = memory({dst_dims, memory::data_type::f32, memory::format_tag::nchw}, s->eng,
                         s->output.data.data());
    s->src = memory(pd.src_desc(), s->eng);
    s->wei = memory(pd.weights_desc(), s->eng);
    s->dst = memory(pd.dst_desc(), s->eng);
    reorder(user_src, s->src).execute(s->strm, user_src, s->src);
    reorder(user_wei, s->wei).execute(s->strm, user_wei, s->wei);
    s->strm.wait();
    s->conv.emplace(pd);
    k.call = [s] {
      s->conv->execute(s->strm, {{DNNL_ARG_SRC, s->src}, {DNNL_ARG_WEIGHTS, s->wei},
                                 {DNNL_ARG_DST, s->dst}});
      s->strm.wait();
    };
    k.output = [s] {
      reorder(s->dst, s->user_dst).execute(s->strm, s->dst, s->user_dst);
      s->strm.wait();
      return s->output;
    };
    const dnnl_version_t* v = dnnl_version();
    k.name = "oneDNN " + std::to_string(v->major) + "." + std::to_string(v->minor) + "." +
             std::to_string(v->patch) + " conv fwd (" + pd.impl_info_str() +
             ", blocked layouts, reorders untimed)";
    k.available = true;
  } catch (const dnnl::error& e) {
    k.error = std::string("oneDNN error: ") + e.what();
  }
#else
  (void)data; (void)weight; (void)stride; (void)pad;
  k.error = "built without oneDNN (install libdnnl-dev and reconfigure)";
#endif
  return k;
}

BaselineResult TimeLibraryKernel(const LibraryKernel& kernel, int repeats) {
  BaselineResult r;
  r.available = kernel.available;
  r.name = kernel.name;
  r.error = kernel.error;
  if (!kernel.available) return r;
  kernel.call();  // warm-up (thread pool start, page faults)
  kernel.call();
  r.seconds = 1e30;
  auto start = Clock::now();
  for (int i = 0; i < 10000 && (i < repeats || Since(start) < 1.0); ++i) {
    auto t = Clock::now();
    kernel.call();
    r.seconds = std::min(r.seconds, Since(t));
  }
  r.output = kernel.output();
  return r;
}

BaselineResult RunOpenBlasSgemm(const Tensor& a, const Tensor& b, bool trans_b, int repeats) {
  return TimeLibraryKernel(PrepareOpenBlasSgemm(a, b, trans_b), repeats);
}

BaselineResult RunOneDnnConv2d(const Tensor& data, const Tensor& weight, int stride, int pad,
                               int repeats) {
  return TimeLibraryKernel(PrepareOneDnnConv2d(data, weight, stride, pad), repeats);
}

}  // namespace pruner::bench
