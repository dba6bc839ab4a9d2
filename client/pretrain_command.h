// `pruner pretrain`: trains a PaCM checkpoint from the records a database
// holds for one device (TenSet-style offline pretraining, ../shared/specs/pruner.md
// §6.1) and stores it there, so that `moa-pruner` jobs on another device
// can start from it (`--pretrained-device`).
#ifndef PRUNER_CLIENT_PRETRAIN_COMMAND_H_
#define PRUNER_CLIENT_PRETRAIN_COMMAND_H_

#include <string>

namespace pruner {

struct PretrainCommand {
  std::string db = "pruner.db";
  std::string device;      // device key whose records train the model
  int max_epochs = 0;      // 0: the training schedule's default
  bool analyzer_branch = false;  // PaCM with the analyzer branch (pacm_network.h)
  std::string out;         // also write the checkpoint to this file
};

int RunPretrain(const PretrainCommand& command);

}  // namespace pruner

#endif  // PRUNER_CLIENT_PRETRAIN_COMMAND_H_
