#include "server/job_export.h"

#include <cctype>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/codegen/cpu_build.h"
#include "common/codegen/cpu_codegen.h"
#include "common/codegen/cpu_llvm_codegen.h"
#include "common/codegen/cpu_runtime_source.h"
#include "common/codegen/cuda_codegen.h"
#include "common/lower/lower.h"
#include "common/schedule/state.h"
#include "common/schedule/step.h"
#include "nlohmann/json.hpp"
#include "server/job_info.h"

namespace pruner {
namespace {

std::string Slug(const std::string& name) {
  std::string slug;
  for (char c : name) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      slug += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (!slug.empty() && slug.back() != '_') {
      slug += '_';
    }
    if (slug.size() >= 48) break;
  }
  while (!slug.empty() && slug.back() == '_') slug.pop_back();
  return slug.empty() ? "task" : slug;
}

}  // namespace

absl::StatusOr<v1::ExportJobReply> ExportJob(const RecordsStore& store, int64_t job_id) {
  PRUNER_ASSIGN_OR_RETURN(auto best, BestRecordsOfJob(store, job_id));
  if (best.records_size() == 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("job ", job_id, " has no valid measurement yet: nothing to export"));
  }
  PRUNER_ASSIGN_OR_RETURN(auto device, store.GetDevice(best.target()));

  v1::ExportJobReply reply;
  nlohmann::json manifest;
  manifest["job_id"] = job_id;
  manifest["target"] = best.target();
  manifest["estimated_latency_s"] = best.estimated_latency_s();
  manifest["kernels"] = nlohmann::json::array();
  const std::optional<std::string> object_cpu =
      device.IsGpu() ? std::nullopt : LlvmCpuForIsa(device.vector_isa);
  for (const v1::BestRecord& record : best.records()) {
    PRUNER_ASSIGN_OR_RETURN(auto dag, store.GetWorkload(record.workload().key()));
    PRUNER_ASSIGN_OR_RETURN(auto steps, ParseSteps(record.sentence()));
    PRUNER_ASSIGN_OR_RETURN(auto state,
                            State::Replay(std::make_shared<const ComputeDag>(std::move(dag)), steps));
    PRUNER_ASSIGN_OR_RETURN(auto program, Lower(state, device));

    char prefix[16];
    std::snprintf(prefix, sizeof(prefix), "task%02d_", record.task_index());
    const std::string stem = prefix + Slug(record.task_name());
    nlohmann::json entry;
    entry["task_index"] = record.task_index();
    entry["task_name"] = record.task_name();
    entry["workload_key"] = record.workload().key();
    entry["weight"] = record.weight();
    entry["sentence"] = record.sentence();
    entry["mean_s"] = record.result().mean_s();
    entry["gflops"] = record.gflops();
    entry["measured_by"] = record.result().measured_by();
    v1::ExportedFile* file = reply.add_files();
    if (device.IsGpu()) {
      PRUNER_ASSIGN_OR_RETURN(auto source, GenerateCudaSource(program, device));
      file->set_path(stem + ".cu");
      file->set_content(source.source);
      nlohmann::json kernels = nlohmann::json::array();
      for (const CudaKernelSource& k : source.kernels) {
        kernels.push_back({{"name", k.name},
                           {"grid", {k.grid[0], k.grid[1], k.grid[2]}},
                           {"block", {k.block[0], k.block[1], k.block[2]}},
                           {"shared_bytes", k.shared_bytes}});
      }
      entry["cuda_kernels"] = kernels;
    } else {
      PRUNER_ASSIGN_OR_RETURN(auto source, GenerateCpuSource(program, device));
      file->set_path(stem + ".cc");
      file->set_content(source.code);
      entry["symbol"] = source.symbol;
      entry["num_inputs"] = source.num_inputs;
      entry["num_outputs"] = source.num_outputs;
      // The LLVM backend's machine code for every CPU of the profile's ISA
      // level: what measurement ran (built there for the worker's own CPU).
      if (object_cpu.has_value()) {
        LlvmCpuTarget target;
        target.cpu = *object_cpu;
        PRUNER_ASSIGN_OR_RETURN(LlvmCpuObject object, CompileCpuProgramLlvm(program, target));
        v1::ExportedFile* obj = reply.add_files();
        obj->set_path(stem + ".o");
        obj->set_content(object.object);
        entry["object"] = obj->path();
      }
    }
    // The kernel's arguments in call order. A layout-free input (weights)
    // may be stored transposed: "tensor_dims" says which tensor dimension
    // each stored dimension is; the caller transposes once, before calls.
    nlohmann::json arguments = nlohmann::json::array();
    for (const std::vector<int>* ids : {&program.inputs, &program.outputs}) {
      for (int id : *ids) {
        const Buffer& b = program.buffer(id);
        nlohmann::json arg = {{"name", b.name},
                              {"role", BufferRoleName(b.role)},
                              {"shape", b.shape}};
        if (!b.dim_order.empty()) {
          arg["tensor_dims"] = b.dim_order;
          arg["tensor_shape"] = b.tensor_shape();
        }
        arguments.push_back(std::move(arg));
      }
    }
    entry["arguments"] = std::move(arguments);
    entry["file"] = file->path();
    manifest["kernels"].push_back(entry);
  }
  if (object_cpu.has_value()) {
    // One shared library of every kernel: the objects and the runtime their
    // parallel loops and heap buffers call.
    v1::ExportedFile* header = reply.add_files();
    header->set_path(kExportedRuntimeHeaderName);
    header->set_content(CpuRuntimeHeaderText());
    v1::ExportedFile* runtime = reply.add_files();
    runtime->set_path(kExportedRuntimeSourceName);
    runtime->set_content(CpuRuntimeSourceText());
    manifest["object_cpu"] = *object_cpu;
    manifest["library"] = "libpruner_kernels.so";
    manifest["build"] = ExportedLibraryLinkCommand("libpruner_kernels.so");
  }
  reply.set_manifest_json(manifest.dump(2));
  return reply;
}

}  // namespace pruner
