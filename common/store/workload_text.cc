#include "common/store/workload_text.h"

#include "absl/strings/str_cat.h"

namespace pruner::store_internal {

std::string ReplayableDisplayText(const ComputeDag& dag, const std::string& key) {
  std::string text = dag.ToString();
  absl::StatusOr<ComputeDag> parsed = ComputeDag::ParseCanonical(text);
  if (!parsed.ok() || parsed->WorkloadKey() != key) return "";
  return text;
}

absl::StatusOr<ComputeDag> DagFromStoredText(const std::string& key,
                                             const std::string& canonical_text,
                                             const std::string& display_text) {
  const bool display = !display_text.empty();
  const char* which = display ? "display" : "canonical";
  absl::StatusOr<ComputeDag> dag = ComputeDag::ParseCanonical(display ? display_text
                                                                      : canonical_text);
  if (!dag.ok()) {
    return absl::DataLossError(absl::StrCat("workload '", key, "': stored ", which,
                                            " text does not parse: ", dag.status().message()));
  }
  if (dag->WorkloadKey() != key) {
    return absl::DataLossError(absl::StrCat("workload '", key, "': stored ", which,
                                            " text hashes to '", dag->WorkloadKey(), "'"));
  }
  return dag;
}

}  // namespace pruner::store_internal
