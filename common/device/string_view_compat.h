// Debian's Abseil 20220623 keeps its own absl::string_view instead of
// aliasing std::string_view, so Abseil string functions do not accept
// std::string_view. This converts at the boundary.
#ifndef PRUNER_COMMON_DEVICE_STRING_VIEW_COMPAT_H_
#define PRUNER_COMMON_DEVICE_STRING_VIEW_COMPAT_H_

#include <string_view>

#include "absl/strings/string_view.h"

namespace pruner::device_internal {

inline absl::string_view AsAbsl(std::string_view s) {
  return absl::string_view(s.data(), s.size());
}

}  // namespace pruner::device_internal

#endif  // PRUNER_COMMON_DEVICE_STRING_VIEW_COMPAT_H_
