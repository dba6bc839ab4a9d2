// `pruner compile` and `pruner run`: an ONNX model into one shared library
// (common/compile/model_compiler.h), and that library run on .npy inputs,
// checked against expected outputs and timed.
#ifndef PRUNER_CLIENT_MODEL_COMMANDS_H_
#define PRUNER_CLIENT_MODEL_COMMANDS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "common/graph/onnx_import.h"

namespace pruner {

struct CompileCommand {
  std::string model;                // .onnx
  std::vector<std::string> shapes;  // --shape NAME=VALUE
  std::string layout = kDefaultModelLayout;  // --layout: as the model was tuned
  std::string db = "pruner.db";     // tuned records; a missing file means none
  std::string target;               // device key of the records; "" = this CPU
  std::string out;                  // the .so
  bool defaults_only = false;       // ignore the records
  int64_t job = 0;                  // > 0: the best records of this job, from the server
  std::string cpu;                  // LLVM CPU of the kernels; "" = the device's ISA level
};

struct RunCommand {
  std::string library;
  std::vector<std::string> inputs;   // NAME=file.npy, or file.npy for a one-input model
  std::vector<std::string> expect;   // NAME=file.npy, or file.npy for a one-output model
  std::vector<std::string> save;     // NAME=file.npy, or file.npy
  double rtol = 1e-3, atol = 1e-4;   // for --expect
  int bench = 0;                     // timed runs after one warm-up
  int threads = 0;                   // 0: all hardware threads
  std::string torchscript;           // PyTorch's export of the same model: the baseline
  int rounds = 20;                   // interleaved timing rounds with --torchscript
  int profile = 0;                   // > 0: per-step times over this many runs
};

// Return process exit codes; errors go to stderr.
int RunCompile(const CompileCommand& command);
int RunModel(const RunCommand& command);

}  // namespace pruner

#endif  // PRUNER_CLIENT_MODEL_COMMANDS_H_
