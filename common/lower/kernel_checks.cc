#include "common/lower/kernel_checks.h"

#include <algorithm>
#include <array>
#include <map>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/base/absl_compat.h"
#include "common/base/status_macros.h"

namespace pruner {
namespace {

const std::string& StageName(const Program& p, int stage) {
  static const std::string kUnknown = "?";
  return stage >= 0 && stage < static_cast<int>(p.stage_names.size()) ? p.stage_names[stage]
                                                                      : kUnknown;
}

absl::Status Invalid(const Program& p, int stage, const std::string& what) {
  return absl::InvalidArgumentError(
      absl::StrCat("invalid schedule: stage ", StageName(p, stage), ": ", what));
}

// Binding slots: blockIdx x/y/z are 0..2, threadIdx x/y/z are 3..5.
int BindingSlot(ForKind kind) { return (IsBlockKind(kind) ? 0 : 3) + BindingDim(kind); }

class LaunchConfigBuilder {
 public:
  LaunchConfigBuilder(const Program& program, Kernel* kernel) : p_(program), k_(kernel) {}

  absl::Status Build() {
    k_->grid = {1, 1, 1};
    k_->block = {1, 1, 1};
    PRUNER_RETURN_IF_ERROR(CollectRoot(k_->body));
    std::map<std::pair<int, int>, int> bound_on_path;
    PRUNER_RETURN_IF_ERROR(CheckOthers(k_->body, &bound_on_path));
    if (k_->threads_per_block() > 1) {
      PRUNER_RETURN_IF_ERROR(CheckSharedUpdates(k_->body, false));
    }
    int64_t root_points = 1;
    bool root_binds = false;
    VisitStmt(k_->body, [&](const StmtNode& n) {
      if (n.kind != StmtKind::kFor || n.stage != k_->root_stage || n.init_copy) return;
      root_points *= n.extent;
      root_binds |= IsThreadBindingKind(n.for_kind);
    });
    if (!root_binds && root_points > 1) {
      return Invalid(p_, k_->root_stage,
                     absl::StrCat("its GPU kernel loops ", root_points,
                                  " times but binds no blockIdx/threadIdx loop"));
    }
    return absl::OkStatus();
  }

 private:
  // The root stage's bindings define the launch; each axis is bound once.
  absl::Status CollectRoot(const Stmt& s) {
    if (s == nullptr) return absl::OkStatus();
    if (s->kind == StmtKind::kFor && s->stage == k_->root_stage && !s->init_copy &&
        IsThreadBindingKind(s->for_kind)) {
      const int slot = BindingSlot(s->for_kind);
      if (root_bound_[slot]) {
        return Invalid(p_, s->stage, absl::StrCat("binds ", ForKindName(s->for_kind), " twice"));
      }
      root_bound_[slot] = true;
      (slot < 3 ? k_->grid[slot] : k_->block[slot - 3]) = s->extent;
    }
    for (const Stmt& c : s->seq) {
      PRUNER_RETURN_IF_ERROR(CollectRoot(c));
    }
    PRUNER_RETURN_IF_ERROR(CollectRoot(s->body));
    return CollectRoot(s->else_body);
  }

  absl::Status CheckOthers(const Stmt& s, std::map<std::pair<int, int>, int>* on_path) {
    if (s == nullptr) return absl::OkStatus();
    bool pushed = false;
    std::pair<int, int> key;
    if (s->kind == StmtKind::kFor && IsThreadBindingKind(s->for_kind)) {
      const int slot = BindingSlot(s->for_kind);
      const int64_t launch = slot < 3 ? k_->grid[slot] : k_->block[slot - 3];
      const bool is_root = s->stage == k_->root_stage;
      if (!is_root && slot < 3) {
        return Invalid(p_, s->stage,
                       absl::StrCat("binds ", ForKindName(s->for_kind),
                                    " but only a kernel's root stage (",
                                    StageName(p_, k_->root_stage), ") may bind blocks"));
      }
      if (!is_root && !root_bound_[slot]) {
        return Invalid(p_, s->stage,
                       absl::StrCat("binds ", ForKindName(s->for_kind), " but its kernel's root stage ",
                                    StageName(p_, k_->root_stage), " does not"));
      }
      if (s->extent > launch) {
        return Invalid(p_, s->stage,
                       absl::StrCat("binds ", ForKindName(s->for_kind), " with extent ",
                                    s->extent, ", more than its kernel's ", launch));
      }
      if (s->extent < launch && ContainsBarrier(s->body)) {
        return Invalid(p_, s->stage,
                       absl::StrCat("binds ", ForKindName(s->for_kind), " with extent ", s->extent,
                                    " (kernel: ", launch,
                                    ") around a barrier that the other threads would skip"));
      }
      key = {s->init_copy ? -1 - s->stage : s->stage, slot};
      if ((*on_path)[key]++ > 0 && !is_root) {
        return Invalid(p_, s->stage,
                       absl::StrCat("binds ", ForKindName(s->for_kind), " twice in one nest"));
      }
      pushed = true;
    }
    absl::Status st = absl::OkStatus();
    for (const Stmt& c : s->seq) {
      st = CheckOthers(c, on_path);
      if (!st.ok()) break;
    }
    if (st.ok()) st = CheckOthers(s->body, on_path);
    if (st.ok()) st = CheckOthers(s->else_body, on_path);
    if (pushed) --(*on_path)[key];
    return st;
  }

  // A reduction that updates a shared or global buffer where no threadIdx
  // is in scope runs in every thread of the block on the same elements: a
  // read-modify-write race (a plain store of identical values would be
  // harmless, an accumulation is not). TVM would emit it anyway; we reject
  // it.
  absl::Status CheckSharedUpdates(const Stmt& s, bool in_thread) {
    if (s == nullptr) return absl::OkStatus();
    if (s->kind == StmtKind::kFor && IsThreadIdxKind(s->for_kind)) in_thread = true;
    if (s->kind == StmtKind::kStore && s->store_role == StoreRole::kReduceUpdate && !in_thread &&
        p_.buffer(s->buffer).scope != MemScope::kLocal) {
      return Invalid(p_, s->stage,
                     absl::StrCat("accumulates into ", MemScopeName(p_.buffer(s->buffer).scope),
                                  " buffer ", p_.buffer(s->buffer).name,
                                  " outside any threadIdx loop, so all ", k_->threads_per_block(),
                                  " threads of a block would update the same elements"));
    }
    for (const Stmt& c : s->seq) {
      PRUNER_RETURN_IF_ERROR(CheckSharedUpdates(c, in_thread));
    }
    PRUNER_RETURN_IF_ERROR(CheckSharedUpdates(s->body, in_thread));
    return CheckSharedUpdates(s->else_body, in_thread);
  }

  const Program& p_;
  Kernel* k_;
  std::array<bool, 6> root_bound_ = {false, false, false, false, false, false};
};

absl::Status CheckNestedParallel(const Program& p, const Stmt& s, const StmtNode* outer) {
  if (s == nullptr) return absl::OkStatus();
  if (s->kind == StmtKind::kFor && s->for_kind == ForKind::kParallel) {
    if (outer != nullptr) {
      return Invalid(p, s->stage,
                     absl::StrCat("parallel loop ", s->var_name, " is nested inside parallel loop ",
                                  outer->var_name, " of stage ", StageName(p, outer->stage)));
    }
    outer = s.get();
  }
  for (const Stmt& c : s->seq) {
    PRUNER_RETURN_IF_ERROR(CheckNestedParallel(p, c, outer));
  }
  PRUNER_RETURN_IF_ERROR(CheckNestedParallel(p, s->body, outer));
  return CheckNestedParallel(p, s->else_body, outer);
}

absl::Status CheckGpuKernel(const Program& p, const Kernel& k, const DeviceProfile& d) {
  const int root = k.root_stage;
  if (d.max_threads_per_block > 0 && k.threads_per_block() > d.max_threads_per_block) {
    return Invalid(p, root,
                   absl::StrCat(k.threads_per_block(),
                                " threads per block exceed max_threads_per_block = ",
                                d.max_threads_per_block));
  }
  for (int i = 0; i < 3; ++i) {
    if (d.max_block_dims[i] > 0 && k.block[i] > d.max_block_dims[i]) {
      return Invalid(p, root, absl::StrCat("block dimension ", i, " = ", k.block[i],
                                           " exceeds max_block_dims[", i,
                                           "] = ", d.max_block_dims[i]));
    }
    if (d.max_grid_dims[i] > 0 && k.grid[i] > d.max_grid_dims[i]) {
      return Invalid(p, root, absl::StrCat("grid dimension ", i, " = ", k.grid[i],
                                           " exceeds max_grid_dims[", i,
                                           "] = ", d.max_grid_dims[i]));
    }
  }
  if (d.max_shared_memory_per_block > 0 && k.shared_bytes > d.max_shared_memory_per_block) {
    return Invalid(p, root, absl::StrCat(k.shared_bytes,
                                         " bytes of shared memory exceed "
                                         "max_shared_memory_per_block = ",
                                         d.max_shared_memory_per_block));
  }
  if (d.max_local_memory_per_block > 0 &&
      k.local_bytes_per_thread > d.max_local_memory_per_block) {
    return Invalid(p, root, absl::StrCat(k.local_bytes_per_thread,
                                         " bytes of local memory per thread exceed "
                                         "max_local_memory_per_block = ",
                                         d.max_local_memory_per_block));
  }
  absl::Status status = absl::OkStatus();
  VisitStmt(k.body, [&](const StmtNode& n) {
    if (!status.ok() || n.kind != StmtKind::kFor) return;
    if (n.for_kind == ForKind::kParallel) {
      status = Invalid(p, n.stage, absl::StrCat("parallel loop ", n.var_name,
                                                " on a GPU (bind it to a thread axis instead)"));
    } else if (n.for_kind == ForKind::kVThread && d.max_vthread_extent > 0 &&
               n.extent > d.max_vthread_extent) {
      status = Invalid(p, n.stage, absl::StrCat("vthread ", n.var_name, " has extent ", n.extent,
                                                ", more than max_vthread_extent = ",
                                                d.max_vthread_extent));
    } else if (n.for_kind == ForKind::kVectorized && d.vector_unit_bytes > 0) {
      const int b = n.stage >= 0 && n.stage < static_cast<int>(p.stage_buffers.size())
                        ? p.stage_buffers[n.stage]
                        : -1;
      const int64_t elem = b >= 0 ? DTypeBytes(p.buffer(b).dtype) : 4;
      if (n.extent * elem > d.vector_unit_bytes) {
        status = Invalid(p, n.stage,
                         absl::StrCat("vectorized loop ", n.var_name, " spans ", n.extent * elem,
                                      " bytes, more than vector_unit_bytes = ",
                                      d.vector_unit_bytes));
      }
    }
  });
  return status;
}

}  // namespace

absl::Status FinalizeKernel(const Program& program, Kernel* kernel) {
  kernel->stages.clear();
  kernel->shared_bytes = 0;
  kernel->local_bytes_per_thread = 0;
  VisitStmt(kernel->body, [&](const StmtNode& n) {
    if ((n.kind == StmtKind::kFor || n.kind == StmtKind::kStore) && n.stage >= 0 &&
        std::find(kernel->stages.begin(), kernel->stages.end(), n.stage) ==
            kernel->stages.end()) {
      kernel->stages.push_back(n.stage);
    }
    if (n.kind == StmtKind::kAllocate) {
      const Buffer& b = program.buffer(n.buffer);
      if (b.scope == MemScope::kShared) kernel->shared_bytes += b.bytes();
      if (b.scope == MemScope::kLocal) kernel->local_bytes_per_thread += b.bytes();
    }
  });
  if (program.target != DeviceKind::kGpu) {
    kernel->grid = {1, 1, 1};
    kernel->block = {1, 1, 1};
    return absl::OkStatus();
  }
  return LaunchConfigBuilder(program, kernel).Build();
}

absl::Status CheckProgramLimits(const Program& program, const DeviceProfile& device) {
  for (const Kernel& k : program.kernels) {
    if (program.target == DeviceKind::kCpu) {
      absl::Status status = absl::OkStatus();
      VisitStmt(k.body, [&](const StmtNode& n) {
        if (status.ok() && n.kind == StmtKind::kFor &&
            (IsThreadBindingKind(n.for_kind) || n.for_kind == ForKind::kVThread)) {
          status = Invalid(program, n.stage,
                           absl::StrCat("loop ", n.var_name, " is bound to ",
                                        ForKindName(n.for_kind), " but the target is a CPU"));
        }
      });
      if (!status.ok()) return status;
      PRUNER_RETURN_IF_ERROR(CheckNestedParallel(program, k.body, nullptr));
    } else {
      PRUNER_RETURN_IF_ERROR(CheckGpuKernel(program, k, device));
    }
  }
  return absl::OkStatus();
}

}  // namespace pruner
