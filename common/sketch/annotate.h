// Random annotation (ansor.md §2.4-2.5): turning a sketch into a complete,
// concrete schedule by sampling every open decision — tile sizes, compute
// locations, parallel/vectorize/unroll annotations on CPU, thread bindings
// and cooperative fetching on GPU — and the initial population of the
// evolutionary search.
#ifndef PRUNER_COMMON_SKETCH_ANNOTATE_H_
#define PRUNER_COMMON_SKETCH_ANNOTATE_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "common/device/device_profile.h"
#include "common/sketch/random.h"
#include "common/sketch/sketch.h"
#include "common/schedule/state.h"

namespace pruner {

// Knobs of the annotation rules; the defaults are Ansor's.
struct AnnotationOptions {
  // Innermost split length bound (max_innermost_split_factor).
  int64_t max_innermost_split_factor = 64;
  // Vectorized loops cover at most this many elements (max_vectorize_size),
  // and never more bytes than the device's vector_unit_bytes.
  int64_t max_vectorize_elements = 16;
  std::vector<int64_t> cpu_auto_unroll = {0, 16, 64, 512};
  std::vector<int64_t> gpu_auto_unroll = {0, 16, 64, 512, 1024};
  // disable_change_compute_location = 0.
  bool change_compute_location = true;
};

// One random schedule from `sketch`. The result is concrete, bound-inferred
// (InferBound(Replay(dag, result.steps())) prints the same ToStr) and within
// the device's limits. An error means this draw was invalid (a limit
// violated, a rule that could not apply); callers simply draw again.
absl::StatusOr<State> SampleSchedule(const Sketch& sketch, const DeviceProfile& device, Rng& rng,
                                     const AnnotationOptions& options = {});

// Up to `n` distinct (by State::ToStr) valid schedules, each from a
// uniformly chosen sketch. Draws in rounds of max(n, 128) attempts; after 5
// rounds in a row that find nothing new the target is halved, so a small
// space ends the loop instead of spinning (Ansor's SampleInitPopulation).
std::vector<State> SampleInitPopulation(const std::vector<Sketch>& sketches,
                                        const DeviceProfile& device, int n, Rng& rng,
                                        const AnnotationOptions& options = {});

// The largest number of elements of `dtype` one vectorized loop may cover
// on `device`: options.max_vectorize_elements, further bounded by the
// device's vector_unit_bytes when it is known.
int64_t MaxVectorElements(const DeviceProfile& device, DType dtype,
                          const AnnotationOptions& options = {});

}  // namespace pruner

#endif  // PRUNER_COMMON_SKETCH_ANNOTATE_H_
