#include "proto/daemon_log.h"

#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "common/base/absl_compat.h"
#include "spdlog/sinks/stdout_sinks.h"
#include "spdlog/spdlog.h"

namespace pruner {
namespace {

constexpr char kPattern[] = "%Y-%m-%d %H:%M:%S.%e [%l] %n: %v";

// The process's logger; until InitDaemonLog names it, "pruner" at info.
std::shared_ptr<spdlog::logger>& Logger() {
  static auto* logger = new std::shared_ptr<spdlog::logger>([] {
    auto made = std::make_shared<spdlog::logger>(
        "pruner", std::make_shared<spdlog::sinks::stderr_sink_mt>());
    made->set_pattern(kPattern);
    made->flush_on(spdlog::level::trace);  // a daemon's lines must reach the journal at once
    return made;
  }());
  return *logger;
}

}  // namespace

absl::Status InitDaemonLog(std::string_view program, std::string_view level) {
  spdlog::level::level_enum parsed;
  if (level == "debug") {
    parsed = spdlog::level::debug;
  } else if (level == "info") {
    parsed = spdlog::level::info;
  } else if (level == "warning") {
    parsed = spdlog::level::warn;
  } else if (level == "error") {
    parsed = spdlog::level::err;
  } else {
    return absl::InvalidArgumentError(absl::StrCat(
        "log level '", ToAbsl(level), "' is not one of debug, info, warning, error"));
  }
  auto logger = std::make_shared<spdlog::logger>(
      std::string(program), std::make_shared<spdlog::sinks::stderr_sink_mt>());
  logger->set_pattern(kPattern);
  logger->set_level(parsed);
  logger->flush_on(spdlog::level::trace);
  Logger() = std::move(logger);
  return absl::OkStatus();
}

void LogDebug(std::string_view line) { Logger()->debug("{}", line); }
void LogInfo(std::string_view line) { Logger()->info("{}", line); }
void LogWarning(std::string_view line) { Logger()->warn("{}", line); }
void LogError(std::string_view line) { Logger()->error("{}", line); }

}  // namespace pruner
