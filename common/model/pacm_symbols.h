// The analyzer's vector PaCM networks with an analyzer branch read
// (kProgramSymbolWidth, pacm_features.h): what the Symbol Analyzer knows of
// a program and PaCM's Ansor rows do not say outright.
//
// Why: on this project's CPU dataset PaCM's costliest misses are heavy
// matrix products whose fastest schedule keeps an 8 x 32 accumulator tile
// in registers with a stride-1 inner loop the LLVM backend vectorizes
// unannotated, while PaCM picks an annotated 8-wide vector loop with a
// 1-row tile at twice the time (bench/README.md, session 50). Ansor's rows
// describe annotations and per-buffer traffic; the analyzer's issue symbols
// describe the register tile, the lanes and loads the backend issues, and
// the FMA chains, which is what separates those schedules.
//
// The vector (every value log2(1 + x), seconds in nanoseconds first):
//   0-10  the main row's issue symbols: lanes, float ops per statement,
//         statements, loads, gathered lanes, stores, loop iterations,
//         chain steps, L1 lines, L2 lines, DRAM elements
//   11-19 its S1 registers, reuse (flops per element), S3 L1 bytes,
//         S4 vector extent, register-tile outputs, S5, S6, S7, S8
//   20-21 its estimated compute and memory seconds
//   22-24 the program's: summed compute seconds, summed memory seconds,
//         estimate
//   25    the number of rows
//   26-35 sums over every row: statements, loads, gathered lanes, stores,
//         loop iterations, L1 lines, L2 lines, DRAM elements, S5, S8 (what
//         a fused epilogue or a padding copy adds, which the main row's
//         values leave out)
// The main row is the compute row with the most float work (S8), or the
// row with the most traffic (S5) when none computes.
#ifndef PRUNER_COMMON_MODEL_PACM_SYMBOLS_H_
#define PRUNER_COMMON_MODEL_PACM_SYMBOLS_H_

#include <optional>

#include "absl/status/statusor.h"
#include "common/analysis/symbol_analyzer.h"
#include "common/features/pacm_features.h"

namespace pruner {

// The analyzer whose vectors PaCM reads for `device`: the default
// (calibrated) constants, never a device's stored fit, so that a vector
// means the same on every host that trains or scores a network. Absent
// when the profile lacks what the analyzer needs (the vectors stay zeros).
std::optional<SymbolAnalyzer> PaCMSymbolAnalyzer(const DeviceProfile& device);

// The vector of an analysis.
ProgramSymbolVector ProgramSymbolsOf(const LatencyEstimate& estimate);

// Analyzes `program` and returns its vector; the analyzer's error when it
// cannot (e.g. a program that does no work it can see).
absl::StatusOr<ProgramSymbolVector> ProgramSymbolsOf(const Program& program,
                                                     const SymbolAnalyzer& analyzer);

}  // namespace pruner

#endif  // PRUNER_COMMON_MODEL_PACM_SYMBOLS_H_
