#include "common/compile/model_compiler.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "common/base/status_macros.h"
#include "common/codegen/child_process.h"
#include "common/codegen/cpu_build.h"
#include "common/codegen/cpu_llvm_codegen.h"
#include "common/codegen/cpu_loop_rules.h"
#include "common/codegen/cpu_runtime_source.h"
#include "common/codegen/model_object.h"
#include "common/codegen/pruner_model.h"
#include "common/graph/fusion.h"
#include "common/graph/tasks.h"
#include "common/lower/lower.h"
#include "common/schedule/step.h"

namespace pruner {
namespace {

constexpr int64_t kAlign = 64;

int64_t RoundUp(int64_t v) { return (v + kAlign - 1) / kAlign * kAlign; }

struct Ref {
  int64_t pool = PRUNER_POOL_ARENA;
  int64_t offset = 0;
};

// A kernel argument before the memory plan: a tensor (its storage root)
// or a weight in a kernel's layout (index into weight_blocks).
struct Arg {
  TensorId tensor = -1;
  int weight_block = -1;
};

struct PlanStep {
  int kind = PRUNER_STEP_KERNEL;
  int kernel = -1;
  std::vector<Arg> args;  // transpose: {src, dst}
  std::vector<int64_t> dims, perm;
};

struct PlannedKernel {
  Program program;
  std::string symbol;
  CompiledKernel info;
};

// First-fit allocation of 64-byte-aligned blocks in one arena.
class Arena {
 public:
  int64_t Allocate(int64_t bytes) {
    bytes = std::max<int64_t>(RoundUp(bytes), kAlign);
    for (auto it = free_.begin(); it != free_.end(); ++it) {
      if (it->second >= bytes) {
        const int64_t offset = it->first;
        const int64_t rest = it->second - bytes;
        free_.erase(it);
        if (rest > 0) free_[offset + bytes] = rest;
        return offset;
      }
    }
    const int64_t offset = end_;
    end_ += bytes;
    return offset;
  }
  void Free(int64_t offset, int64_t bytes) {
    bytes = std::max<int64_t>(RoundUp(bytes), kAlign);
    auto [it, inserted] = free_.emplace(offset, bytes);
    // Merge with the neighbours.
    auto next = std::next(it);
    if (next != free_.end() && it->first + it->second == next->first) {
      it->second += next->second;
      free_.erase(next);
    }
    if (it != free_.begin()) {
      auto prev = std::prev(it);
      if (prev->first + prev->second == it->first) {
        prev->second += it->second;
        free_.erase(it);
      }
    }
  }
  int64_t size() const { return end_; }

 private:
  std::map<int64_t, int64_t> free_;  // offset -> bytes
  int64_t end_ = 0;
};

absl::Status WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) return absl::InternalError(absl::StrCat("cannot write '", path, "'"));
  return absl::OkStatus();
}

}  // namespace

TunedSchedules TunedSchedulesFrom(const RecordsStore& store, std::string device_key) {
  return [&store, device_key](const std::string& key) -> absl::StatusOr<TunedSchedule> {
    PRUNER_ASSIGN_OR_RETURN(StoredRecord r, store.BestRecord(key, device_key));
    return TunedSchedule{r.steps, r.result.mean_s};
  };
}

TunedSchedules NoTunedSchedules() {
  return [](const std::string& key) -> absl::StatusOr<TunedSchedule> {
    return absl::NotFoundError(key);
  };
}

absl::StatusOr<CompileReport> CompileModel(const OnnxModel& model, const TunedSchedules& tuned,
                                           const CompileModelOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  auto progress = [&](const std::string& line) {
    if (options.progress) options.progress(line);
  };
  const Graph& g = model.graph;
  const int num_tensors = static_cast<int>(g.tensors().size());
  std::string llvm_cpu = options.llvm_cpu;
  if (llvm_cpu.empty()) {
    std::optional<std::string> level = LlvmCpuForIsa(options.device.vector_isa);
    if (!level.has_value()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "device ", options.device.name, " (", options.device.vector_isa,
          "): compiled models need an x86-64 CPU (the LLVM backend)"));
    }
    llvm_cpu = *level;
  }

  // ---- Kernels and steps, in group order.
  std::vector<TensorId> root(num_tensors);
  for (TensorId t = 0; t < num_tensors; ++t) root[t] = t;
  std::vector<PlannedKernel> kernels;
  std::map<std::string, int> kernel_of_key;
  std::vector<PlanStep> steps;
  // Weights as kernels read them: (tensor, layout) -> block.
  std::map<std::pair<TensorId, std::vector<int>>, int> block_of;
  std::vector<std::vector<float>> block_data;
  CompileReport report;

  const std::vector<FusedGroup> groups = FuseGraph(g);
  for (const FusedGroup& group : groups) {
    const GraphNode& first = g.node(group.nodes[0]);
    if (group.kind == GroupKind::kView) {
      if (first.kind == NodeKind::kReshape) {
        root[group.output] = root[first.inputs[0]];
        continue;
      }
      PlanStep step;
      step.kind = PRUNER_STEP_TRANSPOSE;
      step.args = {Arg{first.inputs[0], -1}, Arg{group.output, -1}};
      step.dims = g.tensor(first.inputs[0]).shape;
      for (int p : first.attrs.perm) step.perm.push_back(p);
      steps.push_back(std::move(step));
      continue;
    }
    PRUNER_ASSIGN_OR_RETURN(ComputeDag dag_value, GroupToDag(g, group));
    auto dag = std::make_shared<const ComputeDag>(std::move(dag_value));
    const std::string key = dag->WorkloadKey();
    auto found = kernel_of_key.find(key);
    int kernel_index;
    if (found != kernel_of_key.end()) {
      kernel_index = found->second;
    } else {
      PlannedKernel k;
      k.info.name = GroupName(g, group);
      k.info.workload_key = key;
      k.info.flops = dag->FlopCount();
      absl::StatusOr<TunedSchedule> record = tuned(key);
      absl::StatusOr<State> state = absl::NotFoundError("");
      if (record.ok()) {
        PRUNER_ASSIGN_OR_RETURN(std::vector<Step> parsed, ParseSteps(record->steps));
        state = State::Replay(dag, parsed);
        if (!state.ok()) {
          return absl::InternalError(absl::StrCat("the tuned schedule of ", k.info.name,
                                                  " does not replay: ", state.status().message()));
        }
        k.info.tuned = true;
        k.info.tuned_mean_s = record->mean_s;
      } else if (absl::IsNotFound(record.status())) {
        state = DefaultSchedule(dag, options.device, options.defaults);
      } else {
        return record.status();
      }
      if (!state.ok()) {
        return absl::Status(state.status().code(), absl::StrCat(k.info.name, ": ",
                                                                state.status().message()));
      }
      PRUNER_ASSIGN_OR_RETURN(k.program, Lower(*state, options.device));
      if (k.program.inputs.size() != group.inputs.size() || k.program.outputs.size() != 1) {
        return absl::InternalError(absl::StrCat(k.info.name, ": the program has ",
                                                k.program.inputs.size(), " inputs and ",
                                                k.program.outputs.size(), " outputs; the group ",
                                                group.inputs.size(), " and 1"));
      }
      k.symbol = CpuKernelSymbol(k.program);
      kernel_index = static_cast<int>(kernels.size());
      kernel_of_key[key] = kernel_index;
      kernels.push_back(std::move(k));
    }
    PlannedKernel& k = kernels[kernel_index];
    ++k.info.occurrences;
    PlanStep step;
    step.kernel = kernel_index;
    for (size_t i = 0; i < group.inputs.size(); ++i) {
      const TensorId in = group.inputs[i];
      const Buffer& buffer = k.program.buffer(k.program.inputs[i]);
      if (buffer.tensor_shape() != g.tensor(in).shape) {
        return absl::InternalError(absl::StrCat(k.info.name, ": argument ", i, " has shape ",
                                                ShapeToString(buffer.tensor_shape()),
                                                ", the tensor ", ShapeToString(g.tensor(in).shape)));
      }
      const GraphTensor& source = g.tensor(root[in]);
      if (source.kind != TensorKind::kWeight) {
        step.args.push_back(Arg{in, -1});
        continue;
      }
      if (source.data == nullptr) {
        return absl::InvalidArgumentError(
            absl::StrCat("weight '", source.name, "' has no values: a model needs its weights"));
      }
      const auto block_key = std::make_pair(in, buffer.dim_order);
      auto b = block_of.find(block_key);
      if (b == block_of.end()) {
        Tensor t;
        t.shape = g.tensor(in).shape;
        t.data = *source.data;
        PRUNER_ASSIGN_OR_RETURN(std::vector<float> laid_out, InputInBufferLayout(buffer, t));
        b = block_of.emplace(block_key, static_cast<int>(block_data.size())).first;
        block_data.push_back(std::move(laid_out));
      }
      step.args.push_back(Arg{-1, b->second});
    }
    step.args.push_back(Arg{group.output, -1});
    steps.push_back(std::move(step));
  }
  progress(absl::StrCat(groups.size(), " fused groups, ", kernels.size(), " distinct kernels, ",
                        steps.size(), " steps"));

  // ---- Weights: 64-byte aligned blocks, with 64 readable bytes before the
  // first and after the last.
  std::vector<int64_t> block_offset;
  std::string weights(kAlign, '\0');
  for (const std::vector<float>& data : block_data) {
    block_offset.push_back(static_cast<int64_t>(weights.size()));
    weights.append(reinterpret_cast<const char*>(data.data()), data.size() * sizeof(float));
    weights.resize(RoundUp(static_cast<int64_t>(weights.size())), '\0');
  }
  weights.append(kAlign, '\0');
  report.weight_bytes = static_cast<int64_t>(weights.size());

  // ---- The memory plan: liveness of arena roots over the steps.
  const int num_steps = static_cast<int>(steps.size());
  constexpr int kForever = 1 << 30;
  std::vector<int> last_use(num_tensors, -1);
  auto in_arena = [&](TensorId t) { return g.tensor(root[t]).kind != TensorKind::kWeight; };
  for (int s = 0; s < num_steps; ++s) {
    for (const Arg& a : steps[s].args) {
      if (a.tensor >= 0 && in_arena(a.tensor)) last_use[root[a.tensor]] = std::max(last_use[root[a.tensor]], s);
    }
  }
  for (TensorId out : model.outputs) {
    if (!in_arena(out)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "output '", g.tensor(out).name, "' is a weight: nothing computes it"));
    }
    last_use[root[out]] = kForever;
  }
  Arena arena;
  std::vector<int64_t> offset(num_tensors, -1);
  auto bytes_of = [&](TensorId t) { return NumElements(g.tensor(t).shape) * 4; };
  for (TensorId in : model.inputs) {
    offset[in] = arena.Allocate(bytes_of(in));
    report.unshared_bytes += RoundUp(bytes_of(in));
    if (last_use[in] < 0) last_use[in] = kForever;  // unused input: keep its slot
  }
  for (int s = 0; s < num_steps; ++s) {
    const TensorId out = steps[s].args.back().tensor;
    if (offset[root[out]] < 0) {
      offset[root[out]] = arena.Allocate(bytes_of(root[out]));
      report.unshared_bytes += RoundUp(bytes_of(root[out]));
    }
    for (const Arg& a : steps[s].args) {
      if (a.tensor < 0 || !in_arena(a.tensor)) continue;
      const TensorId r = root[a.tensor];
      if (last_use[r] == s && offset[r] >= 0) {
        arena.Free(offset[r], bytes_of(r));
        last_use[r] = -2;  // freed once
      }
    }
  }
  report.arena_bytes = arena.size();
  report.steps = num_steps;

  // A transpose reads its input from the arena; one of a weight would need
  // the weight's row-major block as well. PyTorch's exports fold those at
  // import (constant folding), so a graph that still has one is refused.
  for (const PlanStep& s : steps) {
    if (s.kind != PRUNER_STEP_TRANSPOSE) continue;
    const TensorId r = root[s.args[0].tensor];
    if (g.tensor(r).kind == TensorKind::kWeight) {
      return absl::UnimplementedError(absl::StrCat(
          "a transpose of weight '", g.tensor(r).name, "' at run time (fold it at import)"));
    }
  }
  auto ref_of = [&](const Arg& a) -> Ref {
    if (a.weight_block >= 0) return Ref{PRUNER_POOL_WEIGHTS, block_offset[a.weight_block]};
    return Ref{PRUNER_POOL_ARENA, offset[root[a.tensor]]};
  };

  // ---- The plan, as pruner_model.h lays it out.
  std::vector<int64_t> plan = {PRUNER_PLAN_MAGIC, PRUNER_PLAN_VERSION, report.arena_bytes,
                               static_cast<int64_t>(model.inputs.size()),
                               static_cast<int64_t>(model.outputs.size()), num_steps};
  std::string strings;
  std::vector<int64_t> name_offsets;
  for (const std::vector<std::string>* names : {&model.input_names, &model.output_names}) {
    for (const std::string& n : *names) {
      name_offsets.push_back(static_cast<int64_t>(strings.size()));
      strings += n;
      strings.push_back('\0');
    }
  }
  plan.push_back(static_cast<int64_t>(strings.size()));
  strings.resize((strings.size() + 7) / 8 * 8, '\0');
  for (size_t i = 0; i < strings.size(); i += 8) {
    int64_t word;
    std::memcpy(&word, strings.data() + i, 8);
    plan.push_back(word);
  }
  size_t name_index = 0;
  for (const std::vector<TensorId>* ports : {&model.inputs, &model.outputs}) {
    for (TensorId t : *ports) {
      plan.push_back(name_offsets[name_index++]);
      const std::vector<int64_t>& shape = g.tensor(t).shape;
      plan.push_back(static_cast<int64_t>(shape.size()));
      plan.insert(plan.end(), shape.begin(), shape.end());
      const Ref r = ref_of(Arg{t, -1});
      plan.push_back(r.pool);
      plan.push_back(r.offset);
    }
  }
  for (const PlanStep& s : steps) {
    plan.push_back(s.kind);
    if (s.kind == PRUNER_STEP_KERNEL) {
      plan.push_back(s.kernel);
      plan.push_back(static_cast<int64_t>(s.args.size()));
    }
    for (const Arg& a : s.args) {
      const Ref r = ref_of(a);
      plan.push_back(r.pool);
      plan.push_back(r.offset);
    }
    if (s.kind == PRUNER_STEP_TRANSPOSE) {
      plan.push_back(static_cast<int64_t>(s.dims.size()));
      plan.insert(plan.end(), s.dims.begin(), s.dims.end());
      plan.insert(plan.end(), s.perm.begin(), s.perm.end());
    }
  }
  plan.push_back(PRUNER_PLAN_MAGIC);

  // ---- Objects and the link.
  const std::filesystem::path out_path = std::filesystem::absolute(options.out_path);
  const std::filesystem::path work =
      out_path.parent_path() / (out_path.filename().string() + ".build");
  std::error_code ec;
  std::filesystem::remove_all(work, ec);
  std::filesystem::create_directories(work, ec);
  if (ec) return absl::InternalError(absl::StrCat("cannot create '", work.string(), "'"));
  LlvmCpuTarget target;
  target.cpu = llvm_cpu;
  ModelData data;
  data.plan = std::move(plan);
  data.weights = std::move(weights);
  std::vector<std::string> link = {"g++", "-O2", "-shared", "-fPIC", "-pthread", "-Wl,-Bsymbolic", "-o",
                                   out_path.string()};
  for (size_t i = 0; i < kernels.size(); ++i) {
    PRUNER_ASSIGN_OR_RETURN(LlvmCpuObject object, CompileCpuProgramLlvm(kernels[i].program, target));
    const std::string path = (work / absl::StrCat("kernel", i, ".o")).string();
    PRUNER_RETURN_IF_ERROR(WriteFile(path, object.object));
    link.push_back(path);
    data.kernel_symbols.push_back(kernels[i].symbol);
  }
  progress(absl::StrCat(kernels.size(), " kernels compiled for ", llvm_cpu));
  PRUNER_ASSIGN_OR_RETURN(std::string data_object, EmitModelDataObject(data, target));
  const std::string data_path = (work / "model_data.o").string();
  PRUNER_RETURN_IF_ERROR(WriteFile(data_path, data_object));
  link.push_back(data_path);
  PRUNER_RETURN_IF_ERROR(WriteFile((work / kExportedRuntimeHeaderName).string(), CpuRuntimeHeaderText()));
  PRUNER_RETURN_IF_ERROR(WriteFile((work / kModelApiHeaderName).string(), ModelApiHeaderText()));
  for (const auto& [name, text] :
       {std::make_pair(std::string(kExportedRuntimeSourceName), CpuRuntimeSourceText()),
        std::make_pair(std::string(kModelRuntimeSourceName), ModelRuntimeSourceText())}) {
    const std::string path = (work / name).string();
    PRUNER_RETURN_IF_ERROR(WriteFile(path, text));
    link.push_back(path);
  }
  link.push_back("-I" + work.string());
  PRUNER_ASSIGN_OR_RETURN(ProcessResult linked,
                          RunProcess(link, (work / "link.log").string(), absl::Seconds(300)));
  if (linked.timed_out || linked.signal != 0 || linked.exit_code != 0) {
    return absl::InternalError(absl::StrCat("linking ", out_path.string(), " failed: ",
                                            linked.output));
  }
  std::filesystem::remove_all(work, ec);
  for (const PlannedKernel& k : kernels) report.kernels.push_back(k.info);
  report.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  progress(absl::StrCat("linked ", out_path.string(), " in ", report.seconds, " s"));
  return report;
}

}  // namespace pruner
