// Early returns for absl::Status and absl::StatusOr, the one error model of
// the whole code base.
//
//   PRUNER_RETURN_IF_ERROR(store->PutDevice(device));
//   PRUNER_ASSIGN_OR_RETURN(Program program, Lower(state, device));
//
// The failing status is returned unchanged; add context at the call site
// with an explicit `if` where the message needs it.
#ifndef PRUNER_COMMON_BASE_STATUS_MACROS_H_
#define PRUNER_COMMON_BASE_STATUS_MACROS_H_

#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define PRUNER_RETURN_IF_ERROR(expr)                                      \
  do {                                                                    \
    if (::absl::Status pruner_status_ = (expr); !pruner_status_.ok()) {   \
      return pruner_status_;                                              \
    }                                                                     \
  } while (0)

// Declares (or assigns) `lhs` from the value of an OK StatusOr, or returns
// its status. `lhs` may be a declaration (`auto x`, `Program p`) or an
// existing variable.
#define PRUNER_ASSIGN_OR_RETURN(lhs, rexpr) \
  PRUNER_ASSIGN_OR_RETURN_IMPL_(PRUNER_STATUS_CONCAT_(pruner_statusor_, __LINE__), lhs, rexpr)

#define PRUNER_STATUS_CONCAT_INNER_(a, b) a##b
#define PRUNER_STATUS_CONCAT_(a, b) PRUNER_STATUS_CONCAT_INNER_(a, b)
#define PRUNER_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, rexpr) \
  auto tmp = (rexpr);                                  \
  if (!tmp.ok()) return std::move(tmp).status();       \
  lhs = std::move(tmp).value()

#endif  // PRUNER_COMMON_BASE_STATUS_MACROS_H_
