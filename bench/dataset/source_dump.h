// The C++ source (the g++ backend's translation unit, common/codegen/
// cpu_codegen.h) of every schedule of one workload, one file per schedule,
// with its measured latency in a comment and the Symbol Analyzer's rows
// (default constants) at its end: what a developer compiles with `g++ -S`
// to see the code a g++-built dataset timed, when the analyzer disagrees
// with it; and beside it the LLVM backend's assembly for the records' ISA
// level (what an LLVM-built dataset timed), to read its loads, spills and
// FMAs.
#ifndef PRUNER_BENCH_DATASET_SOURCE_DUMP_H_
#define PRUNER_BENCH_DATASET_SOURCE_DUMP_H_

#include <string>

#include "absl/status/status.h"
#include "bench/dataset/replayed_dataset.h"
#include "common/device/device_profile.h"

namespace pruner::dataset {

// Writes DIR/j<index>.cc and DIR/j<index>.s for each schedule of the
// workload whose key or name is `workload` (indices as in --dump-lse's `j`
// column). NotFound when no workload matches; Unavailable when a file
// cannot be written.
absl::Status DumpWorkloadSources(const ReplayedDataset& data, const DeviceProfile& device,
                                 const std::string& workload, const std::string& dir);

}  // namespace pruner::dataset

#endif  // PRUNER_BENCH_DATASET_SOURCE_DUMP_H_
