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
#include "common/base/absl_compat.h"
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

// A step argument before the memory plan: a tensor (its storage root, at
// `byte_offset` into it) or a weight block (index into the blocks).
struct Arg {
  TensorId tensor = -1;
  int weight_block = -1;
  int64_t byte_offset = 0;
};

// The last argument of every step is what it writes.
struct PlanStep {
  int kind = PRUNER_STEP_KERNEL;
  std::string name;
  int kernel = -1;
  std::vector<Arg> args;  // kernel: inputs, output; transpose, copies: src, dst;
                          // gather: table, indices, dst
  std::vector<int64_t> dims, perm;  // transpose
  std::vector<int64_t> ints;        // gather and strided copy: pruner_model.h's fields
};

int64_t ElementBytes(const GraphTensor& t) { return DTypeBytes(t.dtype); }


int32_t PortDType(DType t) {
  return t == DType::kInt64 ? PRUNER_INT64 : t == DType::kInt32 ? PRUNER_INT32 : PRUNER_FLOAT32;
}

// A weight's values as the bytes of its dtype, row-major.
std::string RowMajorBytes(const GraphTensor& t) {
  std::string bytes;
  if (t.dtype == DType::kFloat32) {
    bytes.assign(reinterpret_cast<const char*>(t.data->data()), t.data->size() * sizeof(float));
    return bytes;
  }
  for (float v : *t.data) {
    if (t.dtype == DType::kInt64) {
      const int64_t i = static_cast<int64_t>(v);
      bytes.append(reinterpret_cast<const char*>(&i), 8);
    } else {
      const int32_t i = static_cast<int32_t>(v);
      bytes.append(reinterpret_cast<const char*>(&i), 4);
    }
  }
  return bytes;
}

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
  CompileReport report;

  std::vector<std::string> block_data;  // bytes of each weight block
  std::map<TensorId, int> raw_block_of;  // weight root -> its row-major block
  // A tensor read by a data-movement step: arena storage, or a weight's
  // row-major block.
  auto source_arg = [&](TensorId t) -> absl::StatusOr<Arg> {
    const GraphTensor& source = g.tensor(root[t]);
    if (source.kind != TensorKind::kWeight) return Arg{t, -1, 0};
    if (source.data == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("weight '", source.name, "' has no values: a model needs its weights"));
    }
    auto b = raw_block_of.find(root[t]);
    if (b == raw_block_of.end()) {
      b = raw_block_of.emplace(root[t], static_cast<int>(block_data.size())).first;
      block_data.push_back(RowMajorBytes(source));
    }
    return Arg{-1, b->second, 0};
  };
  // Transpose, gather, concat and slice: copies the runtime makes itself.
  auto add_layout_steps = [&](const GraphNode& node) -> absl::Status {
    const GraphTensor& out = g.tensor(node.output);
    const int axis = node.attrs.axis;
    if (node.kind != NodeKind::kGather) {
      for (TensorId in : node.inputs) {
        if (g.tensor(in).dtype != DType::kFloat32) {
          return absl::UnimplementedError(absl::StrCat(
              ToAbsl(NodeKindName(node.kind)), " '", node.name, "' of integer tensor '",
              g.tensor(in).name, "' (integer tensors may only be gather indices)"));
        }
      }
    }
    PlanStep step;
    step.name = node.name;
    if (node.kind == NodeKind::kTranspose) {
      step.kind = PRUNER_STEP_TRANSPOSE;
      PRUNER_ASSIGN_OR_RETURN(Arg src, source_arg(node.inputs[0]));
      step.args = {src, Arg{node.output, -1, 0}};
      step.dims = g.tensor(node.inputs[0]).shape;
      for (int p : node.attrs.perm) step.perm.push_back(p);
      steps.push_back(std::move(step));
      return absl::OkStatus();
    }
    if (node.kind == NodeKind::kGather) {
      const GraphTensor& table = g.tensor(node.inputs[0]);
      const GraphTensor& indices = g.tensor(node.inputs[1]);
      step.kind = PRUNER_STEP_GATHER;
      PRUNER_ASSIGN_OR_RETURN(Arg table_arg, source_arg(node.inputs[0]));
      PRUNER_ASSIGN_OR_RETURN(Arg index_arg, source_arg(node.inputs[1]));
      step.args = {table_arg, index_arg, Arg{node.output, -1, 0}};
      step.ints = {ElementBytes(indices), ExtentBefore(table.shape, axis), table.shape[axis],
                   NumElements(indices.shape), ExtentAfter(table.shape, axis) * ElementBytes(table)};
      steps.push_back(std::move(step));
      return absl::OkStatus();
    }
    // Concat (one strided copy per input) and slice (one strided copy).
    const int64_t outer = ExtentBefore(out.shape, axis);
    const int64_t inner_bytes = ExtentAfter(out.shape, axis) * ElementBytes(out);
    if (node.kind == NodeKind::kSlice) {
      const GraphTensor& x = g.tensor(node.inputs[0]);
      step.kind = PRUNER_STEP_STRIDED_COPY;
      PRUNER_ASSIGN_OR_RETURN(Arg src, source_arg(node.inputs[0]));
      src.byte_offset = node.attrs.begin * inner_bytes;
      step.args = {src, Arg{node.output, -1, 0}};
      const int64_t row = (node.attrs.end - node.attrs.begin) * inner_bytes;
      step.ints = {outer, row, x.shape[axis] * inner_bytes, row};
      steps.push_back(std::move(step));
      return absl::OkStatus();
    }
    if (node.kind != NodeKind::kConcat) {
      return absl::InternalError(
          absl::StrCat("no runtime step for ", ToAbsl(NodeKindName(node.kind))));
    }
    int64_t column = 0;
    for (TensorId in : node.inputs) {
      PlanStep piece;
      piece.kind = PRUNER_STEP_STRIDED_COPY;
      piece.name = node.name;
      PRUNER_ASSIGN_OR_RETURN(Arg src, source_arg(in));
      const int64_t row = g.tensor(in).shape[axis] * inner_bytes;
      piece.args = {src, Arg{node.output, -1, column}};
      piece.ints = {outer, row, row, out.shape[axis] * inner_bytes};
      column += row;
      steps.push_back(std::move(piece));
    }
    return absl::OkStatus();
  };

  const std::vector<FusedGroup> groups = FuseGraph(g);
  for (const FusedGroup& group : groups) {
    const GraphNode& first = g.node(group.nodes[0]);
    if (group.kind == GroupKind::kView) {
      if (first.kind == NodeKind::kReshape) {
        root[group.output] = root[first.inputs[0]];
        continue;
      }
      PRUNER_RETURN_IF_ERROR(add_layout_steps(first));
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
    step.name = k.info.name;
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
        step.args.push_back(Arg{in, -1, 0});
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
        block_data.emplace_back(reinterpret_cast<const char*>(laid_out.data()),
                                laid_out.size() * sizeof(float));
      }
      step.args.push_back(Arg{-1, b->second, 0});
    }
    step.args.push_back(Arg{group.output, -1, 0});
    steps.push_back(std::move(step));
  }
  progress(absl::StrCat(groups.size(), " fused groups, ", kernels.size(), " distinct kernels, ",
                        steps.size(), " steps"));

  // ---- Weights: 64-byte aligned blocks, with 64 readable bytes before the
  // first and after the last.
  std::vector<int64_t> block_offset;
  std::string weights(kAlign, '\0');
  for (const std::string& data : block_data) {
    block_offset.push_back(static_cast<int64_t>(weights.size()));
    weights.append(data);
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
  auto bytes_of = [&](TensorId t) {
    return NumElements(g.tensor(t).shape) * ElementBytes(g.tensor(t));
  };
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

  auto ref_of = [&](const Arg& a) -> Ref {
    if (a.weight_block >= 0) {
      return Ref{PRUNER_POOL_WEIGHTS, block_offset[a.weight_block] + a.byte_offset};
    }
    return Ref{PRUNER_POOL_ARENA, offset[root[a.tensor]] + a.byte_offset};
  };

  // ---- The plan, as pruner_model.h lays it out.
  std::vector<int64_t> plan = {PRUNER_PLAN_MAGIC,
                               PRUNER_PLAN_VERSION,
                               report.arena_bytes,
                               static_cast<int64_t>(model.inputs.size()),
                               static_cast<int64_t>(model.outputs.size()),
                               static_cast<int64_t>(kernels.size()),
                               num_steps};
  std::string strings;
  std::map<std::string, int64_t> string_offset;
  auto intern = [&](const std::string& text) {
    auto [it, added] = string_offset.emplace(text, static_cast<int64_t>(strings.size()));
    if (added) {
      strings += text;
      strings.push_back('\0');
    }
    return it->second;
  };
  std::vector<int64_t> name_offsets;
  for (const std::vector<std::string>* names : {&model.input_names, &model.output_names}) {
    for (const std::string& n : *names) name_offsets.push_back(intern(n));
  }
  std::vector<int64_t> step_names;
  for (const PlanStep& s : steps) step_names.push_back(intern(s.name));
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
      plan.push_back(PortDType(g.tensor(t).dtype));
      const std::vector<int64_t>& shape = g.tensor(t).shape;
      plan.push_back(static_cast<int64_t>(shape.size()));
      plan.insert(plan.end(), shape.begin(), shape.end());
      const Ref r = ref_of(Arg{t, -1});
      plan.push_back(r.pool);
      plan.push_back(r.offset);
    }
  }
  for (const PlannedKernel& k : kernels) plan.push_back(static_cast<int64_t>(k.info.flops));
  for (size_t i = 0; i < steps.size(); ++i) {
    const PlanStep& s = steps[i];
    plan.push_back(s.kind);
    plan.push_back(step_names[i]);
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
    plan.insert(plan.end(), s.ints.begin(), s.ints.end());
  }
  plan.push_back(PRUNER_PLAN_MAGIC);

  // ---- Objects and the link.
  const std::filesystem::path out_path = std::filesystem::absolute(options.out_path);
  const std::filesystem::path work =
      out_path.parent_path() / (out_path.filename().string() + ".build");
  std::error_code ec;
  std::filesystem::remove_all(work, ec);  // a leftover of an interrupted run, if any
  ec.clear();
  std::filesystem::create_directories(work, ec);  // the output's directory too
  if (ec) {
    return absl::InternalError(absl::StrCat("cannot create '", work.string(), "': ", ec.message()));
  }
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
