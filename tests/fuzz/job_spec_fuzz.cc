// Fuzz target for the job-spec path a submission takes: JSON text (the
// `pruner submit --spec` file) -> v1::JobSpec -> the server's checks
// (operators parsed, shapes built, networks looked up, options validated).
// Whatever the bytes, this must return without crashing, hanging or
// allocating without bound.
//
// Two builds use it: tests/fuzz/fuzz_replay_test.cc (every CI run: the seed
// corpus plus deterministic mutations, with GCC) and a libFuzzer build with
// clang (see tests/fuzz/README.md) for open-ended fuzzing.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "client/job_spec_json.h"
#include "server/job_spec_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto spec = pruner::ParseJobSpecJson(text);
  if (!spec.ok()) return 0;
  // Small limits keep each input cheap: a fuzzer finds the same bugs in a
  // 64x64 matmul as in a 4096x4096 one.
  pruner::JobLimits limits;
  limits.max_trial_budget = 1000;
  auto checked = pruner::CheckJobSpec(*spec, limits);
  (void)checked;
  return 0;
}
