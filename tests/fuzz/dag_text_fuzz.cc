// Fuzz target for a workload's canonical text, the form in which the
// records database and every lease carry a ComputeDag: text -> DAG
// (ComputeDag::ParseCanonical) -> its canonical text, key and FLOPs. A
// parsed DAG must print back to text that parses to the same DAG. Whatever
// the bytes, this must return without crashing, hanging or allocating
// without bound.
//
// Built like job_spec_fuzz.cc (tests/fuzz/README.md).
#include <cstddef>
#include <cstdint>
#include <string>

#include "common/ir/compute_dag.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 16384) return 0;
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto dag = pruner::ComputeDag::ParseCanonical(text);
  if (!dag.ok()) return 0;
  const std::string canonical = dag->CanonicalText();
  auto again = pruner::ComputeDag::ParseCanonical(canonical);
  if (!again.ok() || again->CanonicalText() != canonical) __builtin_trap();
  (void)dag->WorkloadKey();
  (void)dag->FlopCount();
  return 0;
}
