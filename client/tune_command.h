// `pruner tune`: the tuning loop run in process against a records
// database, its rounds printed as `pruner watch` prints a server job's.
#ifndef PRUNER_CLIENT_TUNE_COMMAND_H_
#define PRUNER_CLIENT_TUNE_COMMAND_H_

#include <cstdint>
#include <string>
#include <vector>

#include "common/graph/onnx_import.h"

#include "common/tune/tuning_options.h"

namespace pruner {

struct TuneCommand {
  std::string db = "pruner.db";
  std::vector<std::string> ops;  // operator specs (see `pruner ops`)
  std::string network;           // or a built-in network
  std::string model;             // or an ONNX model file
  std::vector<std::string> shapes;  // --shape NAME=VALUE for the model's symbolic dims
  std::string layout = kDefaultModelLayout;  // --layout of the model's convolutions
  std::string device = "cpu";    // only the local CPU can be measured in process
  int64_t resume_job = 0;        // > 0: continue this job instead
  bool quiet = false;            // one line per round instead of tables
  TuningOptions options;
};

// Returns the process exit code and prints errors to stderr.
int RunTune(const TuneCommand& command);

// `pruner tasks`: the fused tasks of a built-in network or an ONNX model,
// with their weights, FLOPs and shapes.
int RunTasks(const std::string& network, const std::string& model,
             const std::vector<std::string>& shapes, const std::string& layout);

}  // namespace pruner

#endif  // PRUNER_CLIENT_TUNE_COMMAND_H_
