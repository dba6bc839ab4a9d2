// The two texts a workload is stored as. The canonical text (positional
// names T0, i0, r0, ...) defines the workload and its key. The display text,
// ComputeDag::ToString() with the operator's own names (A, B, matmul, i, j,
// k), is kept beside it so that a record replays to exactly the program that
// was measured, names included, rather than to a renamed twin; generated
// code and logs stay readable too.
#ifndef PRUNER_COMMON_STORE_WORKLOAD_TEXT_H_
#define PRUNER_COMMON_STORE_WORKLOAD_TEXT_H_

#include <string>

#include "absl/status/statusor.h"
#include "common/ir/compute_dag.h"

namespace pruner::store_internal {

// dag.ToString() when it parses back to a DAG with workload key `key`; ""
// when it does not (a name that is not an identifier, say), in which case
// readers use the canonical text.
std::string ReplayableDisplayText(const ComputeDag& dag, const std::string& key);

// The stored workload `key`: parsed from `display_text` when that is
// non-empty, else from `canonical_text`. DataLoss when the text does not
// parse or hashes to another key (records would replay on the wrong DAG).
absl::StatusOr<ComputeDag> DagFromStoredText(const std::string& key,
                                             const std::string& canonical_text,
                                             const std::string& display_text);

}  // namespace pruner::store_internal

#endif  // PRUNER_COMMON_STORE_WORKLOAD_TEXT_H_
