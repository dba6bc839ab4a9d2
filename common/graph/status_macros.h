// Early-return helpers for absl::Status / StatusOr, private to common/graph
// (prefixed so they cannot collide with macros of other layers).
#ifndef PRUNER_COMMON_GRAPH_STATUS_MACROS_H_
#define PRUNER_COMMON_GRAPH_STATUS_MACROS_H_

#include <utility>

#include "absl/status/status.h"

#define GRAPH_RETURN_IF_ERROR(expr)                                 \
  do {                                                              \
    if (absl::Status graph_status_ = (expr); !graph_status_.ok()) { \
      return graph_status_;                                         \
    }                                                               \
  } while (0)

#define GRAPH_CONCAT_INNER_(a, b) a##b
#define GRAPH_CONCAT_(a, b) GRAPH_CONCAT_INNER_(a, b)

// GRAPH_ASSIGN_OR_RETURN(auto x, MakeX()); declares x from an OK StatusOr
// or returns its status.
#define GRAPH_ASSIGN_OR_RETURN(lhs, rexpr) \
  GRAPH_ASSIGN_OR_RETURN_IMPL_(GRAPH_CONCAT_(graph_statusor_, __LINE__), lhs, rexpr)
#define GRAPH_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, rexpr) \
  auto tmp = (rexpr);                                 \
  if (!tmp.ok()) return tmp.status();                 \
  lhs = std::move(tmp).value()

#endif  // PRUNER_COMMON_GRAPH_STATUS_MACROS_H_
