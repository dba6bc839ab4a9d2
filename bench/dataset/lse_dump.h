// The analyzer's view of every schedule of a dataset, one line per row of
// symbols (tab-separated, with a header), beside the measured latency: the
// raw material for calibrating the analyzer's device constants and for
// seeing which symbol a device's timings disagree with.
#ifndef PRUNER_BENCH_DATASET_LSE_DUMP_H_
#define PRUNER_BENCH_DATASET_LSE_DUMP_H_

#include <string>

#include "absl/status/status.h"
#include "bench/dataset/replayed_dataset.h"
#include "common/analysis/analyzer_options.h"
#include "common/device/device_profile.h"

namespace pruner::dataset {

absl::Status DumpLseRows(const ReplayedDataset& data, const DeviceProfile& device,
                         const AnalyzerOptions& options, const std::string& path, int threads);

}  // namespace pruner::dataset

#endif  // PRUNER_BENCH_DATASET_LSE_DUMP_H_
