// The worker's log: one line per event on stderr, prefixed with the local
// time. Lines are written whole under a lock so that the lines of concurrent
// slots never interleave. The daemon logs state changes (registered,
// connection lost/restored, a lease taken, results reported), never one line
// per retry: a farm's journal must stay readable through a server outage.
#ifndef PRUNER_WORKER_WORKER_LOG_H_
#define PRUNER_WORKER_WORKER_LOG_H_

#include <string>

namespace pruner {

void WorkerLog(const std::string& line);

}  // namespace pruner

#endif  // PRUNER_WORKER_WORKER_LOG_H_
