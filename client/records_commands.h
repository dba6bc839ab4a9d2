// `pruner records ...`: the records database itself, read and written in
// process: a workload's records and its best, and the JSON-lines exchange
// format (export/import) that moves records between databases.
#ifndef PRUNER_CLIENT_RECORDS_COMMANDS_H_
#define PRUNER_CLIENT_RECORDS_COMMANDS_H_

#include <cstdint>
#include <string>

namespace pruner {

// Each returns the process exit code and prints errors to stderr.
int RunRecordsShow(const std::string& db, const std::string& workload_key, int64_t limit);
// The best valid record of a workload on a device; with `show_program`, the
// lowered program of its schedule too. Exit 1 when there is none.
int RunRecordsBest(const std::string& db, const std::string& workload_key,
                   const std::string& device_key, bool show_program);
int RunRecordsExport(const std::string& db, const std::string& path,
                     const std::string& workload_key);
int RunRecordsImport(const std::string& db, const std::string& path);
// Removes every record measured by `worker_name` (dry_run: only counts).
int RunRecordsPurge(const std::string& db, const std::string& worker_name, bool dry_run);

}  // namespace pruner

#endif  // PRUNER_CLIENT_RECORDS_COMMANDS_H_
