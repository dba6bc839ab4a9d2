// MoA's source platform on a single machine: the same CPU taken as a build
// target without AVX-512 (g++ -march=x86-64-v3: AVX2 + FMA, 32-byte
// vectors), with a device profile of its own that says so. Records measured
// for it pretrain PaCM ("pacm" checkpoint of the source key), which
// moa-pruner then loads and adapts on the native AVX-512 target.
//
// This is a stand-in for the paper's cross-platform setting (another GPU):
// the kernels differ in vector ISA and width, the silicon does not.
#ifndef PRUNER_BENCH_SEARCH_EFFICIENCY_MOA_SOURCE_H_
#define PRUNER_BENCH_SEARCH_EFFICIENCY_MOA_SOURCE_H_

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "bench/search_efficiency/tuning_run.h"
#include "common/device/device_profile.h"
#include "common/measure/measure_types.h"
#include "common/search/search_policy.h"

namespace pruner::bench {

inline constexpr char kSourceMarch[] = "x86-64-v3";

// `native` with vector_isa "avx2", 32-byte vectors, half the peak, and its
// own stable key ("cpu-...-2t-avx2").
DeviceProfile MakeSourceDevice(const DeviceProfile& native);

// The measure options of the source runs: `base` built with -march=x86-64-v3.
MeasureOptions SourceMeasureOptions(MeasureOptions base);

struct PretrainedSource {
  bool ok = false;
  std::string error;
  std::string device_key;
  std::string checkpoint;  // the "pacm" blob
  int64_t records = 0;     // source records measured (failures included)
  int64_t train_programs = 0;
  double holdout_pairwise_accuracy = 0;
  double collect_s = 0;
  double pretrain_s = 0;
};

// Measures `trials` schedules of `tasks` for the source device (strategy
// `strategy`, "random" or "ansor-xgb") with `measurer` (which must build
// with SourceMeasureOptions), then pretrains PaCM on every ok and failed
// record of it. Needs a LibTorch build; otherwise ok = false with why.
PretrainedSource CollectAndPretrain(Measurer* measurer, const std::vector<SearchTask>& tasks,
                                    const DeviceProfile& source, const RunSettings& settings,
                                    const std::string& strategy, int64_t trials,
                                    const std::string& db_path, const std::atomic<bool>* stop);

// MoA's source from another device: the latest "pacm" checkpoint of
// `device_key` in the records database `db_path` (`pruner pretrain --db
// FILE --device KEY` writes it) and that device's profile. The paper's
// cross-platform setting: records measured on other silicon, e.g. the Xeon
// records of ../shared/datasets/. ok = false with why when either is
// missing.
PretrainedSource LoadPretrainedSource(const std::string& db_path, const std::string& device_key,
                                      DeviceProfile* profile);

}  // namespace pruner::bench

#endif  // PRUNER_BENCH_SEARCH_EFFICIENCY_MOA_SOURCE_H_
