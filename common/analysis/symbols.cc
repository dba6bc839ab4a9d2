#include "common/analysis/symbols.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/analysis/store_symbols.h"

namespace pruner {

const char* RowKindName(RowKind kind) {
  switch (kind) {
    case RowKind::kCompute: return "compute";
    case RowKind::kSharedLoad: return "shared_load";
    case RowKind::kMemory: return "memory";
  }
  return "?";
}

ProgramSymbols ExtractSymbols(const Program& program, const MachineParams& machine,
                              const AnalyzerOptions& options) {
  // The analyzer scores candidates from several threads; each keeps its
  // own scratch.
  thread_local StoreAccesses accesses;
  thread_local SymbolScratch scratch;
  thread_local std::vector<int> row_of_buffer;

  ProgramSymbols out;
  out.target = program.target;
  out.kernels.resize(program.kernels.size());
  for (size_t k = 0; k < program.kernels.size(); ++k) {
    const Kernel& kernel = program.kernels[k];
    out.kernels[k].threads_per_block = kernel.threads_per_block();
    out.kernels[k].blocks = kernel.num_blocks();
    out.kernels[k].shared_bytes = kernel.shared_bytes;
  }
  scratch.ranges.assign(program.num_vars(), Interval{});
  row_of_buffer.assign(program.buffers.size(), -1);
  const bool gpu = program.target == DeviceKind::kGpu;

  ForEachStore(program, [&](const StoreSite& site) {
    accesses.Collect(*site.store, program);
    OpCounts ops;
    CountOps(*site.store->value, &ops);
    const double float_ops = FloatOpsPerEvaluation(ops, options);
    BufferSymbols row = gpu ? GpuStoreSymbols(site, accesses, float_ops, machine, options, &scratch)
                            : CpuStoreSymbols(site, accesses, float_ops, machine, options, &scratch);
    // One row per written buffer; the last store (the update after its
    // init) wins, as in Pruner's code.
    int& index = row_of_buffer[site.store->buffer];
    if (index < 0) {
      index = static_cast<int>(out.rows.size());
      out.rows.push_back(row);
    } else {
      out.rows[index] = row;
    }
  });

  for (const BufferSymbols& row : out.rows) {
    if (row.kind != RowKind::kCompute) continue;
    KernelSymbols& k = out.kernels[row.kernel];
    k.max_registers = std::max(k.max_registers, row.s1_registers);
  }
  return out;
}

std::string ProgramSymbols::ToString(const Program& program) const {
  std::string out;
  for (size_t k = 0; k < kernels.size(); ++k) {
    const KernelSymbols& ks = kernels[k];
    absl::StrAppendFormat(&out, "kernel %d %s: blocks=%d threads=%d shared=%dB max_S1=%g\n", k,
                          k < program.kernels.size() ? program.kernels[k].name : "?", ks.blocks,
                          ks.threads_per_block, ks.shared_bytes, ks.max_registers);
  }
  for (const BufferSymbols& r : rows) {
    const std::string name =
        r.buffer >= 0 && r.buffer < static_cast<int>(program.buffers.size())
            ? program.buffer(r.buffer).name
            : absl::StrCat("#", r.buffer);
    absl::StrAppendFormat(
        &out,
        "%s [%s, kernel %d]: S1=%g S2=%g S3=%g S4=%g S5=%g S6=%g S7=%g S8=%g "
        "reuse=%g/%g fetch=%g tile_out=%g vthreads=%g\n",
        name, RowKindName(r.kind), r.kernel, r.s1_registers, r.s2_thread_flops, r.s3_l1_bytes,
        r.s4_l1_parallel, r.s5_global_elements, r.s6_l2_parallel, r.s7_transfer_bytes,
        r.s8_total_flops, r.reuse_flops, r.reuse_elements, r.shared_fetch_elements,
        r.register_tile_outputs, r.vthreads);
    // The issue model's inputs: what a CPU estimate is made of.
    if (target == DeviceKind::kCpu) {
      absl::StrAppendFormat(
          &out,
          "  issue: lanes=%g ops=%g statements=%g loads=%g gathered=%g stores=%g loops=%g "
          "chain_steps=%g l1_lines=%g l2_lines=%g dram=%g\n",
          r.issue_lanes, r.issue_float_ops, r.issue_statements, r.issue_loads,
          r.issue_gathered_lanes, r.issue_stores, r.issue_loop_iterations, r.issue_chain_steps,
          r.issue_l1_lines, r.issue_l2_lines, r.issue_dram_elements);
    }
  }
  return out;
}

}  // namespace pruner
