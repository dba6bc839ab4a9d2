#include "bench/dataset/lse_dump.h"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/analysis/store_walk.h"
#include "common/analysis/symbol_analyzer.h"
#include "common/base/parallel_for.h"
#include "common/base/status_macros.h"
#include "common/lower/lower.h"

namespace pruner::dataset {
namespace {

// Loop-nest facts the symbols summarize away, of the last store to each
// buffer (the store a row describes).
struct StoreLoops {
  int loops = 0;
  int innermost_kind = 0;  // ForKind
  int64_t innermost_extent = 1;
  double unrolled = 1;     // product of the extents the backend unrolls
  double vectorized = 1;   // product of vectorized extents
  int parallel_loops = 0;
  double executions = 1;  // product of all loop extents: how often the store runs
};

std::vector<std::optional<StoreLoops>> LoopsByBuffer(const Program& program) {
  std::vector<std::optional<StoreLoops>> out(program.buffers.size());
  ForEachStore(program, [&](const StoreSite& site) {
    StoreLoops s;
    s.loops = static_cast<int>(site.loops.size());
    if (!site.loops.empty()) {
      s.innermost_kind = static_cast<int>(site.loops.back().kind);
      s.innermost_extent = site.loops.back().extent;
    }
    for (const LoopInfo& l : site.loops) {
      if (l.unrolled) s.unrolled *= static_cast<double>(l.extent);
      if (l.kind == ForKind::kVectorized) s.vectorized *= static_cast<double>(l.extent);
      if (l.kind == ForKind::kParallel) ++s.parallel_loops;
      s.executions *= static_cast<double>(l.extent);
    }
    out[site.store->buffer] = s;
  });
  return out;
}

std::string DumpSchedule(int w, int j, double measured, const std::string& sentence,
                         const Program& program, const SymbolAnalyzer& analyzer) {
  auto estimate = analyzer.Analyze(program);
  if (!estimate.ok()) return "";
  const auto loops = LoopsByBuffer(program);
  std::string out;
  for (size_t i = 0; i < estimate->rows.size(); ++i) {
    const BufferSymbols& s = estimate->symbols.rows[i];
    const RowLatency& r = estimate->rows[i];
    const RowPenalties& p = r.penalties;
    const StoreLoops l = loops[s.buffer].value_or(StoreLoops{});
    absl::StrAppendFormat(
        &out,
        "%d\t%d\t%.6g\t%.6g\t%zu\t%s\t%d\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g"
        "\t%.6g\t%.4g\t%.4g\t%.4g\t%.4g\t%.4g\t%.4g\t%.4g\t%.6g\t%.6g\t%d\t%d\t%d\t%.6g\t%.6g"
        "\t%d\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g"
        "\t%s\n",
        w, j, measured, estimate->latency_s, i, RowKindName(s.kind),
        program.buffer(s.buffer).scope == MemScope::kGlobal ? 0 : 1, s.s1_registers,
        s.s2_thread_flops, s.s3_l1_bytes, s.s4_l1_parallel, s.s5_global_elements, s.s6_l2_parallel,
        s.s7_transfer_bytes, s.s8_total_flops, s.register_tile_outputs, s.reuse_flops,
        s.reuse_elements, p.l0_compute, p.l1_compute, p.l1_waste, p.l2_compute, p.l0_memory,
        p.l1_memory, p.l2_memory, r.compute_s, r.memory_s, l.loops, l.innermost_kind,
        static_cast<int>(l.innermost_extent), l.unrolled, l.vectorized, l.parallel_loops, l.executions, s.issue_lanes, s.issue_statements, s.issue_loads,
        s.issue_stores, s.issue_loop_iterations, s.issue_l1_lines, s.issue_l2_lines,
        s.issue_dram_elements, s.issue_gathered_lanes, s.issue_float_ops, s.issue_chain_steps,
        std::max(1.0, analyzer.machine().l2_units * p.l2_compute), sentence);
  }
  return out;
}

}  // namespace

absl::Status DumpLseRows(const ReplayedDataset& data, const DeviceProfile& device,
                         const AnalyzerOptions& options, const std::string& path, int threads) {
  PRUNER_ASSIGN_OR_RETURN(SymbolAnalyzer analyzer, SymbolAnalyzer::Create(device, options));
  std::vector<std::pair<int, int>> items;
  for (size_t w = 0; w < data.workloads.size(); ++w) {
    for (size_t j = 0; j < data.workloads[w].states.size(); ++j) {
      items.emplace_back(static_cast<int>(w), static_cast<int>(j));
    }
  }
  std::vector<std::string> lines(items.size());
  ParallelFor(static_cast<int>(items.size()), threads, [&](int i) {
    const auto [w, j] = items[i];
    auto program = Lower(data.workloads[w].states[j], device);
    if (program.ok()) lines[i] = DumpSchedule(w, j, data.workloads[w].latency_s[j],
                                             data.workloads[w].states[j].ToSentence(), *program,
                                             analyzer);
  });
  std::unique_ptr<FILE, int (*)(FILE*)> file(std::fopen(path.c_str(), "w"), &std::fclose);
  if (file == nullptr) return absl::UnavailableError(absl::StrCat("cannot write ", path));
  std::fputs("# workloads: index\tname\tgroup\tweight\n", file.get());
  for (size_t w = 0; w < data.workloads.size(); ++w) {
    std::fprintf(file.get(), "#w\t%zu\t%s\t%s\t%g\n", w, data.workloads[w].name.c_str(),
                 data.workloads[w].group.c_str(), data.workloads[w].weight);
  }
  std::fputs(
      "w\tj\tmeasured_s\testimate_s\trow\tkind\tlocal\ts1\ts2\ts3\ts4\ts5\ts6\ts7\ts8\ttile_out"
      "\treuse_flops\treuse_elems\tp_l0c\tp_l1c\talpha\tp_l2c\tp_l0m\tp_l1m\tp_l2m\tcompute_s"
      "\tmemory_s\tloops\tinner_kind\tinner_extent\tunrolled\tvectorized\tparallel_loops"
      "\texecutions\ti_lanes\ti_stmts\ti_loads\ti_stores\ti_iters\ti_l1_lines\ti_l2_lines\ti_dram\ti_gather"
      "\ti_float_ops\ti_chain_steps\tcores\tsentence\n",
      file.get());
  for (const std::string& line : lines) std::fputs(line.c_str(), file.get());
  return absl::OkStatus();
}

}  // namespace pruner::dataset
