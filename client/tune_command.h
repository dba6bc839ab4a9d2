// `pruner tune`, `pruner best`, `pruner records`, `pruner jobs`: the tuning
// loop run in process against a records database.
#ifndef PRUNER_CLIENT_TUNE_COMMAND_H_
#define PRUNER_CLIENT_TUNE_COMMAND_H_

#include <cstdint>
#include <string>
#include <vector>

#include "common/tune/tuning_options.h"

namespace pruner {

struct TuneCommand {
  std::string db = "pruner.db";
  std::vector<std::string> ops;  // operator specs (see `pruner ops`)
  std::string network;           // or a built-in network
  std::string device = "cpu";    // only the local CPU can be measured in process
  int64_t resume_job = 0;        // > 0: continue this job instead
  bool quiet = false;            // one line per round instead of tables
  TuningOptions options;
};

// Each returns the process exit code and prints errors to stderr.
int RunTune(const TuneCommand& command);
int RunBest(const std::string& db, const std::string& workload_or_job, const std::string& device,
            bool show_program);
int RunRecords(const std::string& db, const std::string& workload_key, int64_t limit);
int RunJobs(const std::string& db);
int RunExport(const std::string& db, const std::string& path, const std::string& workload_key);
int RunImport(const std::string& db, const std::string& path);

}  // namespace pruner

#endif  // PRUNER_CLIENT_TUNE_COMMAND_H_
