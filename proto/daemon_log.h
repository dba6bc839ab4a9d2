// The daemons' log (pruner-server, pruner-worker): one levelled,
// timestamped line per event on stderr, written whole even when threads log
// at once (spdlog). The daemons log state changes (registered, connection
// lost and restored, a lease taken, a job resumed or failed), never one line
// per retry: a farm's journal must stay readable through an outage.
#ifndef PRUNER_PROTO_DAEMON_LOG_H_
#define PRUNER_PROTO_DAEMON_LOG_H_

#include <string_view>

#include "absl/status/status.h"

namespace pruner {

// Names the process in every line and sets the least level shown: "debug",
// "info" (the default), "warning" or "error"; InvalidArgument for anything
// else. Lines read "2026-11-27 01:08:00.123 [info] pruner-worker: text".
absl::Status InitDaemonLog(std::string_view program, std::string_view level = "info");

void LogDebug(std::string_view line);
void LogInfo(std::string_view line);
void LogWarning(std::string_view line);
void LogError(std::string_view line);

}  // namespace pruner

#endif  // PRUNER_PROTO_DAEMON_LOG_H_
