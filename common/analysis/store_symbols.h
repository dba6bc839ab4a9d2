// The symbols of one store, by target. ExtractSymbols (symbols.cc) walks
// the program, collects each store's accesses and calls one of these; the
// rules themselves are documented in gpu_symbols.cc and cpu_symbols.cc.
#ifndef PRUNER_COMMON_ANALYSIS_STORE_SYMBOLS_H_
#define PRUNER_COMMON_ANALYSIS_STORE_SYMBOLS_H_

#include <vector>

#include "common/analysis/analyzer_options.h"
#include "common/analysis/cache_traffic.h"
#include "common/analysis/machine_params.h"
#include "common/analysis/set_conflicts.h"
#include "common/analysis/store_walk.h"
#include "common/analysis/symbols.h"
#include "common/features/op_counts.h"
#include "common/features/store_accesses.h"
#include "common/features/touch_regions.h"

namespace pruner {

// Float operations of one evaluation of the stored value: add/sub, mul and
// div/mod (the code's count), plus comparisons, min/max and math calls when
// options.count_all_float_ops.
double FloatOpsPerEvaluation(const OpCounts& ops, const AnalyzerOptions& options);

// Scratch a walk reuses from store to store.
struct SymbolScratch {
  std::vector<Interval> ranges;  // one zero interval per program variable
  std::vector<bool> resident;
  std::vector<double> runs;  // per access group: contiguous bytes at a reuse level
  SetScratch sets;
  RegionFootprints footprints;
};

BufferSymbols GpuStoreSymbols(const StoreSite& site, const StoreAccesses& accesses,
                              double float_ops, const MachineParams& machine,
                              const AnalyzerOptions& options, SymbolScratch* scratch);

BufferSymbols CpuStoreSymbols(const StoreSite& site, const StoreAccesses& accesses,
                              double float_ops, const MachineParams& machine,
                              const AnalyzerOptions& options, SymbolScratch* scratch);

}  // namespace pruner

#endif  // PRUNER_COMMON_ANALYSIS_STORE_SYMBOLS_H_
