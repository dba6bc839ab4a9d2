// Fuzz target for the ONNX importer: a user's .onnx file, the first thing
// `pruner tasks/tune/submit/compile --model` reads. Bytes -> ModelProto
// (libonnx's protobuf classes) -> the importer's checks, constant folding
// and operator mapping -> the fused tasks and their DAGs. Whatever the
// bytes, this must return an error or a graph, never crash, hang or
// allocate without bound: an importer that aborts on a malformed model
// takes the server down with it (`pruner submit --model` sends the graph).
//
// Built like job_spec_fuzz.cc (tests/fuzz/README.md); seeds are small
// models exported by PyTorch (corpus/onnx_import/, scripts/export_models.py
// and tests/fuzz/make_onnx_seeds.py).
#include <cstddef>
#include <cstdint>
#include <string>

#include "common/graph/onnx_import.h"
#include "common/graph/tasks.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > (1 << 20)) return 0;
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  pruner::OnnxImportOptions options;
  options.dims["batch"] = 1;  // a symbolic batch dimension, as --shape batch=1 binds it
  auto model = pruner::ImportOnnxBytes(bytes, "fuzz", options);
  if (!model.ok()) return 0;
  auto tasks = pruner::ExtractTasks(model->graph);
  if (tasks.ok()) (void)pruner::WeightedFlops(*tasks);
  return 0;
}
