// TLP's features (../shared/specs/tlp.md §2): a schedule read as its
// sentence alone, with no lowering. Every transform step becomes one row: an
// 11-wide one-hot of its kind (the platform's table, §2.2), then its integer
// parameters in sentence order (§2.3; lists flattened in place, strings as
// small ids). Rows are zero-padded or cropped to `columns`, and the list of
// rows to `rows` (CPU 25 x 22, GPU 40 x 20 as in TLP's code; steps past the
// last row are dropped). No normalisation, as in TLP's code (§2.5): the
// first Linear layer absorbs the scale.
//
// Where our engine departs: an unroll pragma whose value is not in the
// platform's token table (CPU $16 $0 $512 $64, GPU $0 $16 $64 $1024 $512)
// gets id 0, and so does a cache scope TLP never saw.
#ifndef PRUNER_COMMON_FEATURES_TLP_FEATURES_H_
#define PRUNER_COMMON_FEATURES_TLP_FEATURES_H_

#include <vector>

#include "common/device/device_profile.h"
#include "common/schedule/step.h"

namespace pruner {

inline constexpr int kTlpStepKinds = 11;  // one-hot width

struct TlpFeatureShape {
  int rows = 25;
  int columns = 22;
};

// TLP's crop for the device's platform: CPU 25 x 22, GPU 40 x 20.
TlpFeatureShape TlpShapeFor(const DeviceProfile& device);

// One step's row before padding or cropping (the one-hot and the payload).
std::vector<float> TlpStepRow(const Step& step, bool gpu);

// The whole matrix, row-major, shape.rows * shape.columns values.
std::vector<float> TlpFeatures(const std::vector<Step>& steps, bool gpu,
                               const TlpFeatureShape& shape);

// The spec's flagged experiment (tlp.md §2.5 [REC]), not TLP's code: every
// value after a row's one-hot becomes sign(x) log2(1 + |x|), so extents of
// 4096 and step ids of 3 enter the first layer on one scale. In place, on
// a TlpFeatures matrix of `shape`.
void TlpLogPayload(const TlpFeatureShape& shape, std::vector<float>& matrix);

}  // namespace pruner

#endif  // PRUNER_COMMON_FEATURES_TLP_FEATURES_H_
