// `pruner dataset collect --target KEY`: the dataset collected over the
// farm instead of in process. Each network spec becomes one server job named
// "dataset <spec>" (strategy random, round-robin, per-task schedules of its
// tasks), sent as a model spec holding only the tasks that no earlier
// dataset job on the target lists, so shared workloads are collected once
// as in process (dataset_collection.h). A spec whose job the server already
// has is left to the server (it resumes its own jobs after a restart). The
// server's records database then holds the dataset: `pruner dataset stats
// --db` and `export` read it as they read a local one.
#ifndef PRUNER_CLIENT_DATASET_SUBMIT_H_
#define PRUNER_CLIENT_DATASET_SUBMIT_H_

#include <string>

#include "client/service_commands.h"
#include "client/service_connection.h"
#include "common/tune/dataset_collection.h"

namespace pruner {

// Returns the process exit code; errors go to io.err.
int RunDatasetSubmit(const ServiceFlags& service, const std::string& target,
                     const DatasetCollectOptions& options, CommandStreams io);

}  // namespace pruner

#endif  // PRUNER_CLIENT_DATASET_SUBMIT_H_
