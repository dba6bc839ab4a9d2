// Debian's Abseil 20220623 keeps its own absl::string_view instead of
// aliasing std::string_view, so std::string_view values (DTypeName(), spec
// text) must be converted before they meet absl::StrCat and friends.
#ifndef PRUNER_COMMON_BASE_ABSL_COMPAT_H_
#define PRUNER_COMMON_BASE_ABSL_COMPAT_H_

#include <string_view>

#include "absl/strings/string_view.h"

namespace pruner {

inline absl::string_view ToAbsl(std::string_view s) { return absl::string_view(s.data(), s.size()); }
inline std::string_view FromAbsl(absl::string_view s) { return std::string_view(s.data(), s.size()); }

}  // namespace pruner

#endif  // PRUNER_COMMON_BASE_ABSL_COMPAT_H_
