// Conversions between the wire messages (pruner.v1) and the engine's types.
// Every conversion from the wire validates what it reads: a worker or a
// client is another process, possibly another version, so a message that
// does not describe something the engine can use is an InvalidArgument
// naming the field, never a crash.
#ifndef PRUNER_PROTO_WIRE_CONVERT_H_
#define PRUNER_PROTO_WIRE_CONVERT_H_

#include <string>

#include "absl/status/statusor.h"
#include "common/device/device_profile.h"
#include "common/ir/compute_dag.h"
#include "common/measure/measure_types.h"
#include "pruner/v1/types.pb.h"

namespace pruner {

// The DAG with its display text when that replays to the same key (so the
// worker builds the program with the operator's own names), else the
// canonical text.
v1::Workload WorkloadToWire(const ComputeDag& dag, const std::string& name = "");
// Parses dag_text and checks that it hashes to key (DataLoss otherwise: the
// candidate would be measured on another workload).
absl::StatusOr<ComputeDag> WorkloadFromWire(const v1::Workload& workload);

v1::Device DeviceToWire(const DeviceProfile& profile);
// From profile_json; `key` must equal the profile's name.
absl::StatusOr<DeviceProfile> DeviceFromWire(const v1::Device& device);

v1::MeasureResult MeasureResultToWire(const MeasureResult& result);
absl::StatusOr<MeasureResult> MeasureResultFromWire(const v1::MeasureResult& result);

// Zero fields of `wire` keep `defaults`' values. Out-of-range values
// (negative counts, non-finite or negative timeouts) are InvalidArgument.
absl::StatusOr<MeasureOptions> MeasureOptionsFromWire(const v1::MeasureOptions& wire,
                                                      const MeasureOptions& defaults);
v1::MeasureOptions MeasureOptionsToWire(const MeasureOptions& options);
// MeasureOptions::hopeless_factor as the wire says it: 0 there means "the
// receiver's default", so "off" (0 here) goes as -1.
double HopelessFactorToWire(double factor);

}  // namespace pruner

#endif  // PRUNER_PROTO_WIRE_CONVERT_H_
