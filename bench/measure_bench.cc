// What the tuned code is worth on this machine, next to the libraries it
// competes with, and how fast and how steady the measurement pipeline is.
//
// For dense 1024^3 (out = A * W^T, W stored [N,K]) and conv2d
// (1,64,56,56)x(64,64,3,3) fp32, on the local CPU, prints GFLOP/s of:
//   naive     the initial state (no steps): the DAG's own loop nest;
//   random    the best of --random N schedules from the CPU sketches
//             (Ansor's SampleInitPopulation);
//   hand      one hand-chosen schedule written as a step sentence;
//   library   OpenBLAS sgemm (NT, the dense layout) / oneDNN convolution,
// plus the fp32 FMA peak measured with a register-only microkernel on all
// cores. Every generated kernel's output is checked against RunReference
// before its time counts. Times are in-process: warm-up, then the minimum
// of repeated calls of the loaded kernel on 64-byte aligned buffers.
//
// Pipeline: the random phase reports candidates lowered, built (BuildPool
// of 2 compilers), checked and timed per second of wall time; the hand dense
// schedule measured 10 times (each measurement the mean of 3 calls) gives
// the run-to-run coefficient of variation.
//
// Usage: bench_measure [--random N] [--repeats R] [--no-random]
//                      [--dense-steps S] [--conv-steps S] [--keep DIR] [--print]
//                      [--batch N] [--backend llvm|gcc]
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "bench/inprocess_kernel.h"
#include "bench/measure_baselines.h"
#include "common/device/device_profile.h"
#include "common/sketch/annotate.h"
#include "common/sketch/random.h"
#include "common/sketch/sketch.h"
#include "common/schedule/state.h"
#include "common/schedule/step.h"
#ifdef PRUNER_BENCH_HAVE_MEASURE
#include "common/measure/local_measurer.h"
#include "common/measure/measure_types.h"
#endif

namespace pruner::bench {
namespace {

// ---- The hand-chosen schedules ---------------------------------------------
//
// dense (stages: 0 A[M,K], 1 W[N,K], 2 dense[i,j] reduce k). Both operands
// are contiguous only along k (W is stored [N,K]), so the vector axis must be
// k, and a vectorized reduction is not something `omp simd` may assert. So:
// split k = ko x 16 and rfactor the 16 lanes into a spatial axis of a new
// stage 2, dense.rf[i,j,kv] = sum_ko A[i,ko*16+kv] * W[j,ko*16+kv], whose
// innermost loop kv stores 16 distinct elements (one zmm FMA, A and W rows
// loaded as contiguous vectors); stage 3 (dense) sums the 16 lanes.
//   dense  loops j.0(16, parallel) i.0(256) j.1(16) | i.1(4) j.2(4) kv(16)
//          j.0 blocks W into 64-row panels (256 KiB, L2), i.0 takes 4 rows
//          of A (16 KiB, L1) that every j.1 tile reuses;
//   dense.rf computed at j.1: a 4x4x16 register tile (16 zmm accumulators)
//          over the whole of K: ko(64) i(4, unrolled) j(4, unrolled)
//          kv(16, vectorized); the lane sums unrolled (GCC turns them into
//          shuffles and vector adds).
const char* const kDenseHandSteps =
    "SP 2 2 1024 [16]; RF 2 3 2; "
    "SP 3 0 1024 [4]; SP 3 2 1024 [16,4]; RE 3 [2,0,3,1,4,5]; "
    "RE 2 [3,0,1,2]; CA 2 3 2; AN 2 1 unroll; AN 2 2 unroll; AN 2 3 vectorize; "
    "AN 3 0 parallel; AN 3 3 unroll; AN 3 4 unroll; AN 3 5 unroll";

// conv2d (stages: 0 X, 1 W, 2 pad, 3 conv2d.local after CHW, 4 conv2d).
// Vector axis: xx (output and padded input contiguous, W broadcast). 56 is
// not a multiple of 16, so 8-lane (ymm) vectors: xx = 7 x 8. Register tile
// 4 output channels x 7 vectors = 28 ymm accumulators, computed at the fused
// (n, ff.0, yy) loop (896 iterations, parallel); inside, rc ry rx then the
// unrolled 4 x 7 tile with xx.2 vectorized. pad stays a root stage
// (parallel over channels).
const char* const kConvHandSteps =
    "CHW 3 local; SP 3 3 56 [7,8]; RE 3 [0,2,3,6,7,8,1,4,5]; "
    "SP 4 1 64 [4]; RE 4 [0,1,3,2,4]; FU 4 [0,1,2]; CA 3 4 0; "
    "AN 3 6 unroll; AN 3 7 unroll; AN 3 8 vectorize; AN 4 0 parallel; "
    "FU 2 [0,1]; AN 2 0 parallel";

struct Options {
  int random = 100;
  int repeats = 10;
  bool run_random = true;
  std::string dense_steps = kDenseHandSteps;
  std::string conv_steps = kConvHandSteps;
  std::string keep_dir;
  bool print = false;  // print the hand schedules' loop-nest programs
  CpuBackend backend = CpuBackend::kLlvm;
  int batch = 10;      // per workload through MeasureBatch; 0 skips
};

struct Row {
  std::string what;
  Measured m;
  std::string note;
};

struct WorkloadReport {
  std::vector<Row> rows;
  double naive = 0, random_best = 0, hand = 0, library = 0;
  double hand_other = 0;  // the hand schedule through the other backend
  int random_sampled = 0, random_ok = 0;
  double pipeline_seconds = 0;  // random phase wall time
  double build_seconds_sum = 0;
  std::string hand_error;
  // The hand schedule's kernel, kept for the spread measurement.
  std::unique_ptr<BuiltModule> hand_module;
  std::unique_ptr<Program> hand_program;
};

WorkloadReport RunWorkload(const Workload& w, const std::string& hand_steps,
                           const DeviceProfile& device, const Options& opt,
                           const std::string& dir) {
  WorkloadReport rep;
  CpuBuildOptions build;
  build.backend = opt.backend;
  if (!opt.keep_dir.empty()) build.keep_source = true;
  const std::string build_dir = opt.keep_dir.empty() ? dir : opt.keep_dir;

  // naive
  {
    Candidate c = Prepare(State::Initial(w.dag), device, "naive");
    if (opt.print && c.program.ok()) std::printf("%s\n", c.program->ToString().c_str());
    Measured m = BuildAndMeasure(w, c, build, build_dir, 0, 2, 2.0, 0, nullptr);
    rep.naive = m.ok ? m.gflops : 0;
    rep.rows.push_back({"naive (initial state, no steps)", m, ""});
  }

  // best of N random schedules: the measurement pipeline at work.
  if (opt.run_random) {
    auto t0 = Clock::now();
    absl::StatusOr<std::vector<Sketch>> sketches = GenerateSketches(w.dag, device);
    std::vector<Candidate> cands;
    if (sketches.ok()) {
      Rng rng(2024);
      std::vector<State> states = SampleInitPopulation(*sketches, device, opt.random, rng);
      rep.random_sampled = static_cast<int>(states.size());
      for (size_t i = 0; i < states.size(); ++i) {
        cands.push_back(Prepare(states[i], device, absl::StrCat("random ", i)));
      }
    }
    std::vector<const Program*> programs;
    std::vector<int> index;
    for (size_t i = 0; i < cands.size(); ++i) {
      if (cands[i].program.ok() && cands[i].source.ok()) {
        programs.push_back(&*cands[i].program);
        index.push_back(static_cast<int>(i));
      }
    }
    std::vector<absl::StatusOr<BuiltModule>> mods = BuildCpuPrograms(programs, build, 2, build_dir);
    Measured best;
    std::string best_sentence;
    int wrong = 0, failed = 0;
    std::string first_error;
    for (size_t i = 0; i < mods.size(); ++i) {
      if (!mods[i].ok()) {
        ++failed;
        if (first_error.empty()) first_error = std::string(mods[i].status().message()).substr(0, 200);
        continue;
      }
      rep.build_seconds_sum += mods[i]->build_seconds;
      const Candidate& c = cands[index[i]];
      Measured m = LoadCheckTime(*mods[i], *c.program, w, 1, 3, 0.3);
      std::error_code ec;
      if (!mods[i]->path.empty()) std::filesystem::remove(mods[i]->path, ec);
      if (!m.ok) {
        if (m.error.rfind("WRONG", 0) == 0) ++wrong; else ++failed;
        if (first_error.empty()) first_error = m.error.substr(0, 200);
        continue;
      }
      ++rep.random_ok;
      if (m.gflops > best.gflops) {
        best = m;
        best_sentence = c.sentence;
      }
    }
    rep.pipeline_seconds = Since(t0);
    failed += static_cast<int>(cands.size() - programs.size());
    rep.random_best = best.gflops;
    std::string note = absl::StrCat(rep.random_ok, "/", rep.random_sampled, " sampled ran and matched");
    if (wrong > 0) absl::StrAppend(&note, "; ", wrong, " WRONG OUTPUTS");
    if (failed > 0) absl::StrAppend(&note, "; ", failed, " failed (first: ", first_error, ")");
    rep.rows.push_back({absl::StrCat("best of ", rep.random_sampled, " random schedules"), best,
                        note});
    std::printf("  best random sentence: %s\n", best_sentence.c_str());
  }

  // hand-chosen
  if (!hand_steps.empty()) {
    absl::StatusOr<std::vector<Step>> steps = ParseSteps(hand_steps);
    Measured m;
    Measured other;
    if (!steps.ok()) {
      m.error = absl::StrCat("parse: ", steps.status().message());
    } else {
      absl::StatusOr<State> state = State::Replay(w.dag, *steps);
      if (!state.ok()) {
        m.error = absl::StrCat("replay: ", state.status().message());
      } else {
        Candidate c = Prepare(*state, device, "hand");
        if (opt.print) {
          std::printf("%s\n", c.program.ok() ? c.program->ToString().c_str()
                                            : std::string(c.program.status().message()).c_str());
        }
        // The other backend's build of the same program, timed in turns
        // with this one so that both see the same machine.
        CpuBuildOptions other_build = build;
        other_build.backend =
            build.backend == CpuBackend::kLlvm ? CpuBackend::kGcc : CpuBackend::kLlvm;
        std::unique_ptr<BuiltModule> other_module;
        other = BuildAndMeasure(w, c, other_build, build_dir, 1, 1, 10.0, 0, &other_module);
        m = BuildAndMeasure(w, c, build, build_dir, 3, opt.repeats, 10.0, 1.0,
                            &rep.hand_module);
        if (m.ok && c.program.ok()) rep.hand_program = std::make_unique<Program>(*c.program);
        if (m.ok && other.ok) {
          absl::StatusOr<ReadyKernel> mine = ReadyKernel::Load(*rep.hand_module, *c.program, w);
          absl::StatusOr<ReadyKernel> theirs = ReadyKernel::Load(*other_module, *c.program, w);
          for (int round = 0; round < 5 && mine.ok() && theirs.ok(); ++round) {
            const Measured a = TimeKernel(*mine, w.flops, 1, opt.repeats, 1.0, 0.2);
            const Measured b = TimeKernel(*theirs, w.flops, 1, opt.repeats, 1.0, 0.2);
            if (a.seconds < m.seconds) m = a;
            if (b.seconds < other.seconds) other = b;
          }
        }
        if (other_module != nullptr && !other_module->path.empty()) {
          std::error_code ec;
          std::filesystem::remove(other_module->path, ec);
        }
      }
    }
    if (!m.ok) rep.hand_error = m.error;
    rep.hand = m.ok ? m.gflops : 0;
    rep.hand_other = other.ok ? other.gflops : 0;
    rep.rows.push_back({absl::StrCat("hand-chosen schedule (", CpuBackendName(build.backend), ")"), m, ""});
    rep.rows.push_back({absl::StrCat("  same program, ", CpuBackendName(build.backend == CpuBackend::kLlvm ? CpuBackend::kGcc : CpuBackend::kLlvm), " backend"), other, ""});
  }
  return rep;
}

void PrintRow(const std::string& what, const Measured& m, double peak, double library,
              const std::string& note) {
  if (!m.ok) {
    std::printf("  %-44s %10s   %s\n", what.c_str(), "FAILED", m.error.substr(0, 400).c_str());
    return;
  }
  std::printf("  %-44s %8.3f ms %9.1f GFLOP/s %6.1f%% peak", what.c_str(), m.seconds * 1e3,
              m.gflops, 100 * m.gflops / peak);
  if (library > 0) std::printf(" %6.1f%% lib", 100 * m.gflops / library);
  if (!note.empty()) std::printf("  [%s]", note.c_str());
  std::printf("\n");
}

struct BatchReport {
  bool available = false;
  std::string note;
  int candidates = 0, ok = 0;
  double seconds = 0;
  double throughput = 0;
  double cv = -1;  // hand dense schedule, 10 repeats
  std::string spread_line;
};

double CoefficientOfVariation(const std::vector<double>& xs) {
  if (xs.size() < 2) return -1;
  double mean = 0, var = 0;
  for (double x : xs) mean += x;
  mean /= xs.size();
  for (double x : xs) var += (x - mean) * (x - mean);
  var /= xs.size() - 1;
  return mean > 0 ? std::sqrt(var) / mean : -1;
}

// The sandboxed pipeline (common/measure MeasureBatch, default options:
// number 3, repeat 3, min_repeat_ms 100, 2 parallel builds). It forks, so it
// runs before this process starts any OpenMP kernel.
BatchReport RunMeasureBatchPhase(const std::vector<const Workload*>& workloads,
                                 const DeviceProfile& device, int per_workload,
                                 const std::string& dense_hand_steps) {
  BatchReport r;
#ifdef PRUNER_BENCH_HAVE_MEASURE
  r.available = true;
  std::vector<MeasureInput> inputs;
  for (const Workload* w : workloads) {
    absl::StatusOr<std::vector<Sketch>> sketches = GenerateSketches(w->dag, device);
    if (!sketches.ok()) continue;
    Rng rng(99);
    for (const State& s : SampleInitPopulation(*sketches, device, per_workload, rng)) {
      inputs.push_back({w->dag, s.steps(), device});
    }
  }
  MeasureOptions options;
  auto t0 = Clock::now();
  std::vector<MeasureResult> results = MeasureBatch(inputs, options);
  r.seconds = Since(t0);
  r.candidates = static_cast<int>(inputs.size());
  std::map<std::string, int> errors;
  for (const MeasureResult& m : results) {
    if (m.ok()) ++r.ok; else ++errors[std::string(MeasureErrorName(m.error))];
  }
  r.throughput = r.seconds > 0 ? r.candidates / r.seconds : 0;
  r.note = absl::StrCat(r.ok, "/", r.candidates, " ok");
  for (const auto& [name, n] : errors) absl::StrAppend(&r.note, ", ", n, " ", name);

  absl::StatusOr<std::vector<Step>> steps = ParseSteps(dense_hand_steps);
  if (steps.ok() && !workloads.empty()) {
    MeasureOptions spread = options;
    spread.repeat = 10;
    std::vector<MeasureResult> one = MeasureBatch({{workloads[0]->dag, *steps, device}}, spread);
    if (one.size() == 1 && one[0].ok()) {
      r.cv = CoefficientOfVariation(one[0].repeat_costs_s);
      r.spread_line = "  MeasureBatch spread, hand dense schedule, repeat 10 (ms):";
      for (double x : one[0].repeat_costs_s) absl::StrAppend(&r.spread_line, absl::StrFormat(" %.2f", x * 1e3));
      absl::StrAppend(&r.spread_line, absl::StrFormat(" -> CV %.2f%%", 100 * r.cv));
    } else if (one.size() == 1) {
      r.spread_line = "  MeasureBatch spread: hand dense schedule failed: " + one[0].Describe();
    }
  }
#else
  (void)workloads; (void)device; (void)per_workload; (void)dense_hand_steps;
  r.note = "common/measure not built into this benchmark";
#endif
  return r;
}

int Main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // progress shows when piped to a file
  Options opt;
  for (int i = 1; i < argc; ++i) {
    auto next = [&](const char* flag) -> const char* {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", flag);
        std::exit(2);
      }
      return argv[++i];
    };
    if (!std::strcmp(argv[i], "--random")) opt.random = std::atoi(next("--random"));
    else if (!std::strcmp(argv[i], "--repeats")) opt.repeats = std::max(1, std::atoi(next("--repeats")));
    else if (!std::strcmp(argv[i], "--no-random")) opt.run_random = false;
    else if (!std::strcmp(argv[i], "--dense-steps")) opt.dense_steps = next("--dense-steps");
    else if (!std::strcmp(argv[i], "--conv-steps")) opt.conv_steps = next("--conv-steps");
    else if (!std::strcmp(argv[i], "--keep")) opt.keep_dir = next("--keep");
    else if (!std::strcmp(argv[i], "--print")) opt.print = true;
    else if (!std::strcmp(argv[i], "--batch")) opt.batch = std::atoi(next("--batch"));
    else if (!std::strcmp(argv[i], "--backend")) {
      std::optional<CpuBackend> b = ParseCpuBackend(next("--backend"));
      if (!b) {
        std::fprintf(stderr, "--backend takes llvm or gcc\n");
        return 2;
      }
      opt.backend = *b;
    }
    else {
      std::fprintf(stderr, "usage: %s [--random N] [--repeats R] [--no-random] "
                   "[--dense-steps S] [--conv-steps S] [--keep DIR] [--print] [--batch N] [--backend llvm|gcc]\n", argv[0]);
      return 2;
    }
  }
  if (opt.random <= 0) opt.run_random = false;
  if (!opt.keep_dir.empty()) std::filesystem::create_directories(opt.keep_dir);

  absl::StatusOr<DeviceProfile> device = GetDeviceProfile("cpu");
  if (!device.ok()) {
    std::fprintf(stderr, "device: %s\n", std::string(device.status().message()).c_str());
    return 1;
  }
  const int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const double load_start = LoadAverage();
  std::printf("bench_measure: %s, %d hardware threads, load average %.2f at start%s\n",
              device->description.c_str(), threads, load_start,
              load_start > 0.5 ? " (NOISY: other work is running; numbers may be low)" : "");

  Workload dense = MakeWorkload("dense", "dense:M=1024,K=1024,N=1024");
  Workload conv = MakeWorkload("conv2d", "conv2d:N=1,C=64,H=56,W=56,K=64,R=3,S=3,stride=1,pad=1");
  BatchReport batch;
  if (opt.batch > 0) batch = RunMeasureBatchPhase({&dense, &conv}, *device, opt.batch, opt.dense_steps);

  const FmaPeak peak = MeasureFmaPeak(threads, 0.1);
  std::printf("fp32 FMA peak (12 independent accumulators, %d threads): %.1f GFLOP/s "
              "(zmm %.1f, ymm %.1f); profile estimate %.1f GFLOP/s\n\n",
              peak.threads, peak.gflops, peak.gflops_zmm, peak.gflops_ymm, device->peak_gflops);

  const std::string dir = MakeWorkDir("pruner_bench_measure");

  // ---- dense ----
  std::printf("dense 1024^3  out[i,j] = sum_k A[i,k] * W[j,k]   (%.2f GFLOP)\n", dense.flops / 1e9);
  BaselineResult blas = RunOpenBlasSgemm(dense.inputs[0], dense.inputs[1], /*trans_b=*/true,
                                         opt.repeats);
  const Measured blas_m = CheckBaseline(blas, dense);
  const double blas_gf = blas_m.ok ? blas_m.gflops : 0;
  WorkloadReport dr = RunWorkload(dense, opt.dense_steps, *device, opt, dir);
  for (const Row& r : dr.rows) PrintRow(r.what, r.m, peak.gflops, blas_gf, r.note);
  PrintRow(blas.available ? blas.name : "OpenBLAS sgemm", blas_m, peak.gflops, blas_gf, "");

  // ---- conv2d ----
  std::printf("\nconv2d (1,64,56,56) x (64,64,3,3) stride 1 pad 1   (%.3f GFLOP)\n",
              conv.flops / 1e9);
  BaselineResult dnn = RunOneDnnConv2d(conv.inputs[0], conv.inputs[1], 1, 1, opt.repeats * 5);
  const Measured dnn_m = CheckBaseline(dnn, conv);
  const double dnn_gf = dnn_m.ok ? dnn_m.gflops : 0;
  WorkloadReport cr = RunWorkload(conv, opt.conv_steps, *device, opt, dir);
  for (const Row& r : cr.rows) PrintRow(r.what, r.m, peak.gflops, dnn_gf, r.note);
  PrintRow(dnn.available ? dnn.name : "oneDNN conv", dnn_m, peak.gflops, dnn_gf, "");

  // ---- pipeline throughput and spread ----
  const int candidates = dr.random_sampled + cr.random_sampled;
  const double pipeline_s = dr.pipeline_seconds + cr.pipeline_seconds;
  const double throughput = pipeline_s > 0 ? candidates / pipeline_s : 0;
  std::printf("\nmeasurement pipeline (in-process, lower + %s build (2 at once) + check + time):\n",
              CpuBackendName(opt.backend));
  std::printf("  %d candidates in %.1f s = %.2f candidates/s (sum of compiler times %.1f s)\n",
              candidates, pipeline_s, throughput, dr.build_seconds_sum + cr.build_seconds_sum);
  if (batch.available) {
    std::printf("  sandboxed MeasureBatch (fork per run, number 3 x repeat 3, min_repeat_ms 100): "
                "%d random candidates (both workloads) in %.1f s = %.2f candidates/s [%s]\n",
                batch.candidates, batch.seconds, batch.throughput, batch.note.c_str());
    if (!batch.spread_line.empty()) std::printf("%s\n", batch.spread_line.c_str());
  } else if (opt.batch > 0) {
    std::printf("  sandboxed MeasureBatch: %s\n", batch.note.c_str());
  }
  double cv = -1;
  if (dr.hand_module != nullptr && dr.hand_program != nullptr) {
    absl::StatusOr<ReadyKernel> kernel = ReadyKernel::Load(*dr.hand_module, *dr.hand_program, dense);
    if (kernel.ok()) {
      for (int i = 0; i < 3; ++i) kernel->Call();
      std::vector<double> ms;
      for (int rep = 0; rep < 10; ++rep) {
        double sum = 0;
        for (int i = 0; i < 3; ++i) sum += kernel->TimeOneCall();
        ms.push_back(sum / 3 * 1e3);
      }
      double mean = 0;
      for (double x : ms) mean += x;
      mean /= ms.size();
      cv = CoefficientOfVariation(ms);
      std::printf("  spread: hand dense schedule measured 10 times (mean of 3 calls each): ");
      for (double x : ms) std::printf("%.2f ", x);
      std::printf("ms -> mean %.3f ms, CV %.2f%%\n", mean, 100 * cv);
    }
  }
  std::error_code ec;
  if (dr.hand_module && !dr.hand_module->path.empty()) std::filesystem::remove(dr.hand_module->path, ec);
  if (cr.hand_module && !cr.hand_module->path.empty()) std::filesystem::remove(cr.hand_module->path, ec);
  std::filesystem::remove_all(dir, ec);

  const double load_end = LoadAverage();
  std::printf("load average at end %.2f%s\n", load_end,
              load_end > 0.5 ? " (NOISY: other work was running)" : "");

  auto ratio = [](double a, double b) { return b > 0 ? a / b : 0.0; };
  std::printf(
      "RESULT measure peak_gflops=%.1f dense_naive_gflops=%.2f dense_random_gflops=%.1f "
      "dense_hand_gflops=%.1f openblas_gflops=%.1f dense_hand_vs_openblas=%.3f "
      "dense_random_vs_openblas=%.3f openblas_vs_peak=%.3f conv_naive_gflops=%.2f "
      "conv_random_gflops=%.1f conv_hand_gflops=%.1f onednn_gflops=%.1f "
      "conv_hand_vs_onednn=%.3f conv_random_vs_onednn=%.3f pipeline_candidates_per_s=%.2f "
      "spread_cv=%.4f measurebatch_candidates_per_s=%.2f measurebatch_spread_cv=%.4f load=%.2f "
      "backend=%s dense_hand_vs_peak=%.3f conv_hand_vs_peak=%.3f dense_hand_other_backend_gflops=%.1f "
      "conv_hand_other_backend_gflops=%.1f dense_hand_vs_other_backend=%.3f "
      "conv_hand_vs_other_backend=%.3f\n",
      peak.gflops, dr.naive, dr.random_best, dr.hand, blas_gf, ratio(dr.hand, blas_gf),
      ratio(dr.random_best, blas_gf), ratio(blas_gf, peak.gflops), cr.naive, cr.random_best,
      cr.hand, dnn_gf, ratio(cr.hand, dnn_gf), ratio(cr.random_best, dnn_gf), throughput, cv,
      batch.throughput, batch.cv, std::max(load_start, load_end), CpuBackendName(opt.backend),
      ratio(dr.hand, peak.gflops), ratio(cr.hand, peak.gflops), dr.hand_other, cr.hand_other,
      ratio(dr.hand, dr.hand_other), ratio(cr.hand, cr.hand_other));
  return 0;
}

}  // namespace
}  // namespace pruner::bench

int main(int argc, char** argv) { return pruner::bench::Main(argc, argv); }
