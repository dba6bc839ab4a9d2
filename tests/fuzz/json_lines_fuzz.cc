// Fuzz target for JSON-lines import (`pruner records import`, the dataset's
// shards, records from other teams' databases): each input is a file of
// records; every line is parsed, checked (workload text, schedule sentence,
// device profile, numbers) and stored. Whatever the bytes, import must
// return an error or the count it stored, never crash or hang.
//
// One in-memory store serves every input (opening one per input would
// dominate the run); what earlier inputs stored is what later ones meet as
// duplicates. Built like job_spec_fuzz.cc (tests/fuzz/README.md).
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

#include "common/store/records_store.h"

namespace {

pruner::RecordsStore& Store() {
  static pruner::RecordsStore* const store = [] {
    auto opened = pruner::RecordsStore::Open(":memory:");
    if (!opened.ok()) __builtin_trap();
    return opened->release();
  }();
  return *store;
}

// ImportJsonLines reads a file: the input goes to one per process, removed
// when the process ends.
struct InputFile {
  std::string path = "/tmp/pruner_json_lines_fuzz_" + std::to_string(getpid()) + ".jsonl";
  ~InputFile() { std::remove(path.c_str()); }
};

const std::string& InputPath() {
  static const InputFile file;
  return file.path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > (1 << 16)) return 0;
  FILE* f = std::fopen(InputPath().c_str(), "wb");
  if (f == nullptr) return 0;
  std::fwrite(data, 1, size, f);
  std::fclose(f);
  auto imported = Store().ImportJsonLines(InputPath());
  if (imported.ok() && *imported < 0) __builtin_trap();
  return 0;
}
