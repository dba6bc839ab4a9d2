#include "common/codegen/cpu_llvm_codegen.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <numeric>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/codegen/cpu_codegen.h"
#include "common/codegen/cpu_llvm_pipeline.h"
#include "common/codegen/cpu_llvm_target.h"
#include "common/codegen/cpu_loop_rules.h"
#include "common/ir/int_bounds.h"
#include "common/lower/index_simplify.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"

namespace pruner {
namespace {

// Stores one kernel may unroll into; more is refused as an invalid schedule
// before LLVM sees it (its optimizer's time grows with the code).
constexpr int64_t kMaxEmittedStores = 16384;

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// True when evaluating e where the program would not (the untaken side of a
// select, the right side of && and ||) could fault: it reads memory or
// divides by something that may be zero.
bool NeedsGuard(const Expr& e) {
  bool needs = false;
  VisitExpr(e, [&](const ExprNode& n) {
    if (n.kind == ExprKind::kRead) needs = true;
    if (n.kind == ExprKind::kBinary && IsInt(n.dtype)) {
      const BinaryOp op = n.binary_op();
      if ((op == BinaryOp::kDiv || op == BinaryOp::kFloorDiv || op == BinaryOp::kFloorMod) &&
          !IsConstInt(n.args[1])) {
        needs = true;
      }
    }
  });
  return needs;
}

// Alignment in bytes that a float offset with these linear terms always has
// (the gcd of its coefficients and constant, as a power of two), at most 64.
int64_t OffsetAlignmentBytes(const LinearTerms& terms) {
  int64_t g = std::abs(terms.constant);
  for (const auto& [atom, coeff] : terms.terms) g = std::gcd(g, std::abs(coeff));
  if (g == 0) return 64;
  return std::min<int64_t>(64, 4 * (g & -g));
}

// How the lanes of a vectorized loop touch a buffer.
struct LaneAccess {
  enum Kind { kUniform, kContiguous, kStrided, kIrregular } kind = kUniform;
  Expr offset;  // the flat offset, over the lane variable
  Expr base;    // the offset of lane 0
  int64_t stride = 0;
  int64_t align_bytes = 4;
};

// Per function: the values of buffers and loop variables in scope.
struct FunctionScope {
  llvm::Function* fn = nullptr;
  llvm::BasicBlock* entry = nullptr;  // allocas go here
  std::vector<llvm::Value*> buffers;  // buffer id -> base pointer, or null
  std::vector<llvm::Value*> vars;     // loop variable id -> i64, or null
  llvm::Value* status = nullptr;      // i32*: the kernel's return code
  bool in_parallel = false;
};

class IrEmitter {
 public:
  IrEmitter(const Program& program, llvm::Module* module, const ResolvedCpuTarget& target)
      : program_(program), module_(module), ctx_(module->getContext()), b_(ctx_), target_(target) {
    llvm::FastMathFlags fmf;
    fmf.setAllowContract(true);
    b_.setFastMathFlags(fmf);
    f32_ = b_.getFloatTy();
    i64_ = b_.getInt64Ty();
    i32_ = b_.getInt32Ty();
    i1_ = b_.getInt1Ty();
    ptr_ = llvm::PointerType::getUnqual(ctx_);
    llvm::MDBuilder md(ctx_);
    llvm::MDNode* domain = md.createAliasScopeDomain("pruner.buffers");
    for (const Buffer& buffer : program_.buffers) {
      scopes_.push_back(md.createAliasScope(buffer.name, domain));
    }
    for (size_t i = 0; i < scopes_.size(); ++i) {
      std::vector<llvm::Metadata*> others;
      for (size_t j = 0; j < scopes_.size(); ++j) {
        if (j != i) others.push_back(scopes_[j]);
      }
      scope_lists_.push_back(llvm::MDNode::get(ctx_, {scopes_[i]}));
      noalias_lists_.push_back(llvm::MDNode::get(ctx_, others));
    }
  }

  absl::Status EmitEntry(const std::string& symbol) {
    if (program_.target != DeviceKind::kCpu) {
      return absl::InvalidArgumentError("the LLVM CPU backend needs a CPU program");
    }
    auto* type = llvm::FunctionType::get(i32_, {ptr_}, false);
    llvm::Function* fn =
        llvm::Function::Create(type, llvm::Function::ExternalLinkage, symbol, module_);
    SetAttributes(fn);
    FunctionScope scope;
    scope.fn = fn;
    scope.entry = llvm::BasicBlock::Create(ctx_, "entry", fn);
    scope.buffers.assign(program_.buffers.size(), nullptr);
    scope.vars.assign(program_.num_vars(), nullptr);
    scope_ = &scope;
    b_.SetInsertPoint(scope.entry);

    std::vector<int> params = program_.inputs;
    params.insert(params.end(), program_.outputs.begin(), program_.outputs.end());
    for (size_t i = 0; i < params.size(); ++i) {
      llvm::Value* slot = b_.CreateConstInBoundsGEP1_64(ptr_, fn->getArg(0), i);
      scope.buffers[params[i]] = b_.CreateAlignedLoad(ptr_, slot, llvm::Align(8), "arg");
    }
    scope.status = b_.CreateAlloca(i32_, nullptr, "status");
    b_.CreateStore(b_.getInt32(0), scope.status);

    // Root intermediates live for the whole call.
    std::vector<llvm::Value*> heap;
    llvm::Value* any_null = b_.getFalse();
    for (const Buffer& buffer : program_.buffers) {
      const bool is_arg = std::find(params.begin(), params.end(), buffer.id) != params.end();
      if (is_arg || buffer.attached) continue;
      llvm::Value* data = CallAlloc(std::max<int64_t>(1, buffer.num_elements()));
      scope.buffers[buffer.id] = data;
      heap.push_back(data);
      any_null = b_.CreateOr(any_null, b_.CreateIsNull(data));
    }
    llvm::BasicBlock* run = llvm::BasicBlock::Create(ctx_, "run", fn);
    llvm::BasicBlock* done = llvm::BasicBlock::Create(ctx_, "done", fn);
    b_.CreateCondBr(any_null, done, run);
    llvm::BasicBlock* alloc_failed = b_.GetInsertBlock();
    b_.SetInsertPoint(run);
    for (const Kernel& kernel : program_.kernels) {
      PRUNER_RETURN_IF_ERROR(Emit(kernel.body));
    }
    llvm::Value* code = b_.CreateLoad(i32_, scope.status);
    llvm::BasicBlock* ran = b_.GetInsertBlock();
    b_.CreateBr(done);
    b_.SetInsertPoint(done);
    llvm::PHINode* rc = b_.CreatePHI(i32_, 2, "rc");
    rc->addIncoming(b_.getInt32(kCpuErrorOutOfMemory), alloc_failed);
    rc->addIncoming(code, ran);
    for (llvm::Value* data : heap) CallFree(data);
    b_.CreateRet(rc);
    return absl::OkStatus();
  }

 private:
  // ------------------------------------------------------------ helpers --

  void SetAttributes(llvm::Function* fn) {
    fn->addFnAttr(llvm::Attribute::NoUnwind);
    fn->addFnAttr("target-cpu", target_.cpu);
    fn->addFnAttr("target-features", target_.features);
    // Explicit vectors of the schedule's width: on AVX-512 CPUs whose tuning
    // prefers 256-bit vectors, let them be 512-bit registers.
    const std::string width = absl::StrCat(target_.vector_bits);
    fn->addFnAttr("prefer-vector-width", width);
    fn->addFnAttr("min-legal-vector-width", width);
  }

  llvm::FunctionCallee RuntimeFn(const char* name, llvm::Type* ret, std::vector<llvm::Type*> args) {
    return module_->getOrInsertFunction(name, llvm::FunctionType::get(ret, args, false));
  }

  llvm::Value* CallAlloc(int64_t elements) {
    llvm::FunctionCallee alloc = RuntimeFn("pruner_cpu_alloc", ptr_, {i64_});
    if (auto* f = llvm::dyn_cast<llvm::Function>(alloc.getCallee())) {
      f->setReturnDoesNotAlias();  // malloc-like: fresh memory
      f->addFnAttr(llvm::Attribute::NoUnwind);
    }
    return b_.CreateCall(alloc, {b_.getInt64(elements)}, "heap");
  }

  void CallFree(llvm::Value* data) {
    llvm::FunctionCallee free_fn = RuntimeFn("pruner_cpu_free", b_.getVoidTy(), {ptr_});
    b_.CreateCall(free_fn, {data});
  }

  void TagAccess(llvm::Instruction* inst, int buffer) {
    inst->setMetadata(llvm::LLVMContext::MD_alias_scope, scope_lists_[buffer]);
    inst->setMetadata(llvm::LLVMContext::MD_noalias, noalias_lists_[buffer]);
  }

  VarRangeFn Ranges() const {
    return [this](int var) -> std::optional<IntRange> {
      auto it = extents_.find(var);
      if (it == extents_.end()) return std::nullopt;
      return IntRange{0, it->second - 1};
    };
  }

  absl::StatusOr<Expr> FlatOffset(int buffer, const std::vector<Expr>& indices) const {
    return FlatBufferOffset(program_, buffer, indices, Ranges());
  }

  LaneAccess ClassifyLanes(const Expr& offset) const {
    LaneAccess access;
    access.offset = offset;
    if (vec_var_ < 0 || !UsesVar(offset, vec_var_)) {
      access.kind = LaneAccess::kUniform;
      access.base = offset;
      return access;
    }
    const LinearTerms terms = ToLinearTerms(offset);
    int64_t coeff = 0;
    bool affine = true;
    for (const auto& [atom, c] : terms.terms) {
      if (atom->kind == ExprKind::kVar && atom->id == vec_var_) {
        coeff += c;
      } else if (UsesVar(atom, vec_var_)) {
        affine = false;
      }
    }
    if (!affine || coeff == 0) {
      access.kind = LaneAccess::kIrregular;
      return access;
    }
    access.stride = coeff;
    access.kind = coeff == 1 ? LaneAccess::kContiguous : LaneAccess::kStrided;
    access.base = SimplifyIndex(
        SubstituteVars(offset,
                       [&](int v) { return v == vec_var_ ? IntImm(vec_base_) : nullptr; }),
        Ranges());
    access.align_bytes = OffsetAlignmentBytes(ToLinearTerms(access.base));
    return access;
  }

  llvm::Value* Widen(llvm::Value* v) {
    if (vec_var_ < 0 || v->getType()->isVectorTy()) return v;
    return b_.CreateVectorSplat(static_cast<unsigned>(lanes_), v);
  }

  // Both operands scalar, or both vectors of the loop's lanes.
  void Unify(llvm::Value** a, llvm::Value** b) {
    if ((*a)->getType()->isVectorTy() != (*b)->getType()->isVectorTy()) {
      *a = Widen(*a);
      *b = Widen(*b);
    }
  }

  llvm::Value* AndMask(llvm::Value* mask, llvm::Value* cond) {
    cond = Widen(cond);
    return mask == nullptr ? cond : b_.CreateAnd(mask, cond);
  }

  // start, start + 1, ... for each lane.
  llvm::Value* LaneRamp(int64_t start) {
    std::vector<llvm::Constant*> lanes;
    for (int64_t i = 0; i < lanes_; ++i) lanes.push_back(b_.getInt64(start + i));
    return llvm::ConstantVector::get(lanes);
  }

  // The scalar type of a program dtype: i1 for bool, i64 for integers,
  // float for floats.
  llvm::Type* ScalarType(DType t) {
    if (t == DType::kBool) return i1_;
    return IsFloat(t) ? f32_ : i64_;
  }

  llvm::Type* TypeLike(llvm::Type* scalar, const llvm::Value* like) {
    if (auto* vt = llvm::dyn_cast<llvm::FixedVectorType>(like->getType())) {
      return llvm::FixedVectorType::get(scalar, vt->getNumElements());
    }
    return scalar;
  }

  // Converts a value of dtype `from` to dtype `to`, as C++ does.
  llvm::Value* Convert(llvm::Value* v, DType from, DType to) {
    const bool from_float = IsFloat(from);
    if (to == DType::kBool) {
      if (from == DType::kBool) return v;
      return from_float ? b_.CreateFCmpUNE(v, llvm::ConstantFP::get(v->getType(), 0.0))
                        : b_.CreateICmpNE(v, llvm::ConstantInt::get(v->getType(), 0));
    }
    if (IsFloat(to)) {
      if (from_float) return v;
      llvm::Type* t = TypeLike(f32_, v);
      return from == DType::kBool ? b_.CreateUIToFP(v, t) : b_.CreateSIToFP(v, t);
    }
    if (from_float) return b_.CreateFPToSI(v, TypeLike(i64_, v));
    if (from == DType::kBool) return b_.CreateZExt(v, TypeLike(i64_, v));
    return v;
  }

  // ------------------------------------------------------- expressions --

  // e's value: a scalar, or in a vectorized loop possibly a vector of its
  // lanes. `mask` (null: every lane) tells which lanes the program would
  // evaluate e for; loads honour it.
  absl::StatusOr<llvm::Value*> EmitExpr(const Expr& e, llvm::Value* mask) {
    const ExprNode& n = *e;
    switch (n.kind) {
      case ExprKind::kIntImm:
        if (n.dtype == DType::kBool) return static_cast<llvm::Value*>(b_.getInt1(n.int_value != 0));
        return static_cast<llvm::Value*>(b_.getInt64(n.int_value));
      case ExprKind::kFloatImm:
        return static_cast<llvm::Value*>(
            llvm::ConstantFP::get(f32_, static_cast<double>(static_cast<float>(n.float_value))));
      case ExprKind::kVar: {
        if (n.id == vec_var_) return LaneRamp(vec_base_);
        if (n.id < 0 || n.id >= static_cast<int>(scope_->vars.size()) ||
            scope_->vars[n.id] == nullptr) {
          return absl::InvalidArgumentError(
              absl::StrCat("variable ", n.name, " (", n.id, ") is used outside its loop"));
        }
        return scope_->vars[n.id];
      }
      case ExprKind::kRead: {
        PRUNER_ASSIGN_OR_RETURN(llvm::Value * v, EmitLoad(n.id, n.args, mask));
        return Convert(v, DType::kFloat32, n.dtype);
      }
      case ExprKind::kBinary: return EmitBinary(n, mask);
      case ExprKind::kCompare: return EmitCompare(n, mask);
      case ExprKind::kAnd:
      case ExprKind::kOr: return EmitLogical(n, mask);
      case ExprKind::kNot: {
        PRUNER_ASSIGN_OR_RETURN(llvm::Value * a, EmitExpr(n.args[0], mask));
        return b_.CreateNot(a);
      }
      case ExprKind::kSelect: return EmitSelect(n, mask);
      case ExprKind::kCall: return EmitCall(n, mask);
      case ExprKind::kCast: {
        PRUNER_ASSIGN_OR_RETURN(llvm::Value * a, EmitExpr(n.args[0], mask));
        return Convert(a, n.args[0]->dtype, n.dtype);
      }
    }
    return absl::InvalidArgumentError("unknown expression kind");
  }

  absl::StatusOr<llvm::Value*> EmitIndex(const Expr& offset) {
    PRUNER_ASSIGN_OR_RETURN(llvm::Value * v, EmitExpr(offset, nullptr));
    return v;
  }

  // Pointers of every lane of a strided or irregular access.
  absl::StatusOr<llvm::Value*> LanePointers(int buffer, const LaneAccess& access) {
    llvm::Value* offsets = nullptr;
    if (access.kind == LaneAccess::kStrided) {
      PRUNER_ASSIGN_OR_RETURN(llvm::Value * base, EmitIndex(access.base));
      offsets = b_.CreateAdd(Widen(base),
                             b_.CreateMul(LaneRamp(0), Widen(b_.getInt64(access.stride))));
    } else {
      PRUNER_ASSIGN_OR_RETURN(offsets, EmitIndex(access.offset));
      offsets = Widen(offsets);
    }
    return b_.CreateInBoundsGEP(f32_, scope_->buffers[buffer], offsets);
  }

  absl::StatusOr<llvm::Value*> BufferPointer(int buffer) {
    if (buffer < 0 || buffer >= static_cast<int>(scope_->buffers.size()) ||
        scope_->buffers[buffer] == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("buffer ", buffer, " is accessed outside its allocation"));
    }
    return scope_->buffers[buffer];
  }

  absl::StatusOr<llvm::Value*> EmitLoad(int buffer, const std::vector<Expr>& indices,
                                        llvm::Value* mask) {
    PRUNER_ASSIGN_OR_RETURN(Expr offset, FlatOffset(buffer, indices));
    PRUNER_ASSIGN_OR_RETURN(llvm::Value * data, BufferPointer(buffer));
    const LaneAccess access = ClassifyLanes(offset);
    llvm::Instruction* load = nullptr;
    if (access.kind == LaneAccess::kUniform && mask == nullptr) {
      PRUNER_ASSIGN_OR_RETURN(llvm::Value * index, EmitIndex(offset));
      load = b_.CreateAlignedLoad(f32_, b_.CreateInBoundsGEP(f32_, data, index), llvm::Align(4));
    } else if (access.kind == LaneAccess::kContiguous) {
      PRUNER_ASSIGN_OR_RETURN(llvm::Value * base, EmitIndex(access.base));
      llvm::Value* ptr = b_.CreateInBoundsGEP(f32_, data, base);
      auto* type = llvm::FixedVectorType::get(f32_, static_cast<unsigned>(lanes_));
      const llvm::Align align(static_cast<uint64_t>(access.align_bytes));
      if (mask == nullptr) {
        load = b_.CreateAlignedLoad(type, ptr, align);
      } else {
        load = b_.CreateMaskedLoad(type, ptr, align, mask, llvm::PoisonValue::get(type));
      }
    } else {
      // Gathers: strided and irregular lanes, and a uniform address under a
      // mask (the lanes that would read it may all be off).
      llvm::Value* ptrs = nullptr;
      if (access.kind == LaneAccess::kUniform) {
        PRUNER_ASSIGN_OR_RETURN(llvm::Value * index, EmitIndex(offset));
        ptrs = Widen(b_.CreateInBoundsGEP(f32_, data, index));
      } else {
        PRUNER_ASSIGN_OR_RETURN(ptrs, LanePointers(buffer, access));
      }
      auto* type = llvm::FixedVectorType::get(f32_, static_cast<unsigned>(lanes_));
      load = b_.CreateMaskedGather(type, ptrs, llvm::Align(4), mask, llvm::PoisonValue::get(type));
    }
    TagAccess(load, buffer);
    return load;
  }

  absl::StatusOr<llvm::Value*> EmitBinary(const ExprNode& n, llvm::Value* mask) {
    PRUNER_ASSIGN_OR_RETURN(llvm::Value * a, EmitExpr(n.args[0], mask));
    PRUNER_ASSIGN_OR_RETURN(llvm::Value * b, EmitExpr(n.args[1], mask));
    Unify(&a, &b);
    const BinaryOp op = n.binary_op();
    if (IsFloat(n.dtype)) {
      switch (op) {
        case BinaryOp::kAdd: return b_.CreateFAdd(a, b);
        case BinaryOp::kSub: return b_.CreateFSub(a, b);
        case BinaryOp::kMul: return b_.CreateFMul(a, b);
        case BinaryOp::kDiv: return b_.CreateFDiv(a, b);
        // Same operand order as the interpreter (matters for NaN).
        case BinaryOp::kMin: return b_.CreateSelect(b_.CreateFCmpOLT(a, b), a, b);
        case BinaryOp::kMax: return b_.CreateSelect(b_.CreateFCmpOLT(a, b), b, a);
        case BinaryOp::kFloorDiv:
        case BinaryOp::kFloorMod: {
          llvm::Value* q = b_.CreateUnaryIntrinsic(llvm::Intrinsic::floor, b_.CreateFDiv(a, b));
          return op == BinaryOp::kFloorDiv ? q : b_.CreateFSub(a, b_.CreateFMul(b, q));
        }
      }
      return absl::InvalidArgumentError("unknown binary operator");
    }
    switch (op) {
      case BinaryOp::kAdd: return b_.CreateAdd(a, b);
      case BinaryOp::kSub: return b_.CreateSub(a, b);
      case BinaryOp::kMul: return b_.CreateMul(a, b);
      case BinaryOp::kDiv: return b_.CreateSDiv(a, b);  // truncates, as C does
      case BinaryOp::kMin: return b_.CreateSelect(b_.CreateICmpSLT(a, b), a, b);
      case BinaryOp::kMax: return b_.CreateSelect(b_.CreateICmpSLT(a, b), b, a);
      case BinaryOp::kFloorDiv:
      case BinaryOp::kFloorMod: {
        const bool div = op == BinaryOp::kFloorDiv;
        int64_t divisor = 0;
        if (IsConstInt(n.args[1], &divisor) && divisor > 0) {
          std::optional<IntRange> range = BoundExpr(n.args[0], Ranges());
          if (range.has_value() && range->min >= 0) {
            return div ? b_.CreateUDiv(a, b) : b_.CreateURem(a, b);
          }
        }
        // Round toward negative infinity: adjust C's truncation when the
        // remainder is non-zero and its sign differs from the divisor's.
        llvm::Value* q = b_.CreateSDiv(a, b);
        llvm::Value* r = b_.CreateSRem(a, b);
        llvm::Value* zero = llvm::ConstantInt::get(r->getType(), 0);
        llvm::Value* adjust = b_.CreateAnd(
            b_.CreateICmpNE(r, zero),
            b_.CreateICmpNE(b_.CreateICmpSLT(r, zero), b_.CreateICmpSLT(b, zero)));
        if (div) {
          return b_.CreateSub(q, b_.CreateZExt(adjust, q->getType()));
        }
        return b_.CreateSelect(adjust, b_.CreateAdd(r, b), r);
      }
    }
    return absl::InvalidArgumentError("unknown binary operator");
  }

  absl::StatusOr<llvm::Value*> EmitCompare(const ExprNode& n, llvm::Value* mask) {
    PRUNER_ASSIGN_OR_RETURN(llvm::Value * a, EmitExpr(n.args[0], mask));
    PRUNER_ASSIGN_OR_RETURN(llvm::Value * b, EmitExpr(n.args[1], mask));
    Unify(&a, &b);
    const bool is_float = a->getType()->getScalarType()->isFloatingPointTy();
    using P = llvm::CmpInst::Predicate;
    static const P kFloat[] = {P::FCMP_OLT, P::FCMP_OLE, P::FCMP_OGT,
                               P::FCMP_OGE, P::FCMP_OEQ, P::FCMP_UNE};
    static const P kInt[] = {P::ICMP_SLT, P::ICMP_SLE, P::ICMP_SGT,
                             P::ICMP_SGE, P::ICMP_EQ,  P::ICMP_NE};
    const int op = static_cast<int>(n.compare_op());
    return is_float ? b_.CreateFCmp(kFloat[op], a, b) : b_.CreateICmp(kInt[op], a, b);
  }

  // Evaluates then_fn where cond holds and else_fn elsewhere, without
  // evaluating either where the program would not: a branch for a scalar
  // condition, masks for a vector one.
  template <typename ThenFn, typename ElseFn>
  absl::StatusOr<llvm::Value*> Guarded(llvm::Value* cond, llvm::Value* mask, ThenFn then_fn,
                                       ElseFn else_fn) {
    if (cond->getType()->isVectorTy()) {
      PRUNER_ASSIGN_OR_RETURN(llvm::Value * t, then_fn(AndMask(mask, cond)));
      PRUNER_ASSIGN_OR_RETURN(llvm::Value * f, else_fn(AndMask(mask, b_.CreateNot(cond))));
      Unify(&t, &f);
      return b_.CreateSelect(cond, Widen(t), Widen(f));
    }
    llvm::Function* fn = scope_->fn;
    llvm::BasicBlock* then_bb = llvm::BasicBlock::Create(ctx_, "then", fn);
    llvm::BasicBlock* else_bb = llvm::BasicBlock::Create(ctx_, "else", fn);
    llvm::BasicBlock* merge = llvm::BasicBlock::Create(ctx_, "merge", fn);
    b_.CreateCondBr(cond, then_bb, else_bb);
    b_.SetInsertPoint(then_bb);
    PRUNER_ASSIGN_OR_RETURN(llvm::Value * t, then_fn(mask));
    llvm::BasicBlock* then_end = b_.GetInsertBlock();
    b_.SetInsertPoint(else_bb);
    PRUNER_ASSIGN_OR_RETURN(llvm::Value * f, else_fn(mask));
    llvm::BasicBlock* else_end = b_.GetInsertBlock();
    // Widening may add instructions: do it at the end of each side.
    if (t->getType()->isVectorTy() != f->getType()->isVectorTy()) {
      b_.SetInsertPoint(then_end);
      t = Widen(t);
      b_.SetInsertPoint(else_end);
      f = Widen(f);
    }
    b_.SetInsertPoint(then_end);
    b_.CreateBr(merge);
    b_.SetInsertPoint(else_end);
    b_.CreateBr(merge);
    b_.SetInsertPoint(merge);
    llvm::PHINode* phi = b_.CreatePHI(t->getType(), 2);
    phi->addIncoming(t, then_end);
    phi->addIncoming(f, else_end);
    return phi;
  }

  absl::StatusOr<llvm::Value*> EmitLogical(const ExprNode& n, llvm::Value* mask) {
    const bool is_and = n.kind == ExprKind::kAnd;
    PRUNER_ASSIGN_OR_RETURN(llvm::Value * a, EmitExpr(n.args[0], mask));
    if (!NeedsGuard(n.args[1])) {
      PRUNER_ASSIGN_OR_RETURN(llvm::Value * b, EmitExpr(n.args[1], mask));
      Unify(&a, &b);
      return is_and ? b_.CreateAnd(a, b) : b_.CreateOr(a, b);
    }
    // Short-circuit: the right side only where it decides.
    auto rhs = [&](llvm::Value* m) { return EmitExpr(n.args[1], m); };
    auto constant = [&](llvm::Value*) -> absl::StatusOr<llvm::Value*> {
      return static_cast<llvm::Value*>(b_.getInt1(!is_and));
    };
    if (is_and) return Guarded(a, mask, rhs, constant);
    return Guarded(a, mask, constant, rhs);
  }

  absl::StatusOr<llvm::Value*> EmitSelect(const ExprNode& n, llvm::Value* mask) {
    PRUNER_ASSIGN_OR_RETURN(llvm::Value * cond, EmitExpr(n.args[0], mask));
    auto then_fn = [&](llvm::Value* m) { return EmitExpr(n.args[1], m); };
    auto else_fn = [&](llvm::Value* m) { return EmitExpr(n.args[2], m); };
    if (NeedsGuard(n.args[1]) || NeedsGuard(n.args[2])) {
      return Guarded(cond, mask, then_fn, else_fn);
    }
    PRUNER_ASSIGN_OR_RETURN(llvm::Value * t, then_fn(mask));
    PRUNER_ASSIGN_OR_RETURN(llvm::Value * f, else_fn(mask));
    Unify(&t, &f);
    if (cond->getType()->isVectorTy()) {
      t = Widen(t);
      f = Widen(f);
    }
    return b_.CreateSelect(cond, t, f);
  }

  // A libm function of one float, lane by lane for vectors.
  llvm::Value* CallLibm(const char* name, llvm::Value* x) {
    llvm::FunctionCallee fn = RuntimeFn(name, f32_, {f32_});
    if (auto* f = llvm::dyn_cast<llvm::Function>(fn.getCallee())) {
      f->addFnAttr(llvm::Attribute::NoUnwind);
    }
    auto* vt = llvm::dyn_cast<llvm::FixedVectorType>(x->getType());
    if (vt == nullptr) return b_.CreateCall(fn, {x});
    llvm::Value* out = llvm::PoisonValue::get(vt);
    for (unsigned i = 0; i < vt->getNumElements(); ++i) {
      llvm::Value* lane = b_.CreateCall(fn, {b_.CreateExtractElement(x, i)});
      out = b_.CreateInsertElement(out, lane, i);
    }
    return out;
  }

  // e^x in float as vector code (LLVM's llvm.exp on vectors becomes one
  // libm call per lane): Cephes' expf. x = n ln2 + r with |r| <= ln2 / 2, a
  // degree-6 polynomial for e^r, 2^n from the exponent bits. About 2 ulp;
  // x is clamped to [-87.3, 88.3], where 2^n stays a normal float.
  llvm::Value* EmitExp(llvm::Value* x) {
    llvm::Type* t = x->getType();
    auto c = [&](double v) { return llvm::ConstantFP::get(t, v); };
    x = b_.CreateMinNum(b_.CreateMaxNum(x, c(-87.3)), c(88.3));
    llvm::Value* n = b_.CreateUnaryIntrinsic(
        llvm::Intrinsic::floor, b_.CreateFAdd(b_.CreateFMul(x, c(1.44269504088896341)), c(0.5)));
    llvm::Value* r = b_.CreateFSub(x, b_.CreateFMul(n, c(0.693359375)));
    r = b_.CreateFSub(r, b_.CreateFMul(n, c(-2.12194440e-4)));
    llvm::Value* p = c(1.9875691500e-4);
    for (double k : {1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2, 1.6666665459e-1,
                     5.0000001201e-1}) {
      p = b_.CreateFAdd(b_.CreateFMul(p, r), c(k));
    }
    p = b_.CreateFAdd(b_.CreateFAdd(b_.CreateFMul(p, b_.CreateFMul(r, r)), r), c(1.0));
    llvm::Type* i32 = b_.getInt32Ty();
    if (auto* vt = llvm::dyn_cast<llvm::FixedVectorType>(t)) {
      i32 = llvm::FixedVectorType::get(i32, vt->getNumElements());
    }
    llvm::Value* bits = b_.CreateShl(
        b_.CreateAdd(b_.CreateFPToSI(n, i32), llvm::ConstantInt::get(i32, 127)),
        llvm::ConstantInt::get(i32, 23));
    return b_.CreateFMul(p, b_.CreateBitCast(bits, t));
  }

  // erf(x) as vector code: the Taylor series below |x| = 0.5 (relative
  // error < 1e-7 there, where the formula below would cancel), Abramowitz &
  // Stegun 7.1.26 above (absolute error < 1.5e-7), the sign copied from x.
  llvm::Value* EmitErf(llvm::Value* x) {
    llvm::Type* t = x->getType();
    auto c = [&](double v) { return llvm::ConstantFP::get(t, v); };
    auto poly = [&](llvm::Value* v, std::initializer_list<double> coefficients) {
      // Horner, highest power first.
      llvm::Value* acc = nullptr;
      for (double k : coefficients) {
        acc = acc == nullptr ? c(k) : b_.CreateFAdd(b_.CreateFMul(acc, v), c(k));
      }
      return acc;
    };
    llvm::Value* x2 = b_.CreateFMul(x, x);
    llvm::Value* series = b_.CreateFMul(
        b_.CreateFMul(x, c(1.12837916709551257)),
        poly(x2, {-1.0 / 1320, 1.0 / 216, -1.0 / 42, 1.0 / 10, -1.0 / 3, 1.0}));
    llvm::Value* a = b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
    llvm::Value* tt = b_.CreateFDiv(c(1.0), b_.CreateFAdd(c(1.0), b_.CreateFMul(a, c(0.3275911))));
    llvm::Value* tail = b_.CreateFMul(
        tt, poly(tt, {1.061405429, -1.453152027, 1.421413741, -0.284496736, 0.254829592}));
    llvm::Value* y = b_.CreateFSub(c(1.0), b_.CreateFMul(tail, EmitExp(b_.CreateFNeg(x2))));
    llvm::Value* signed_y = b_.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, y, x);
    return b_.CreateSelect(b_.CreateFCmpOLT(a, c(0.5)), series, signed_y);
  }

  absl::StatusOr<llvm::Value*> EmitCall(const ExprNode& n, llvm::Value* mask) {
    PRUNER_ASSIGN_OR_RETURN(llvm::Value * x, EmitExpr(n.args[0], mask));
    switch (n.call_fn()) {
      case CallFn::kExp: return EmitExp(x);
      case CallFn::kLog: return b_.CreateUnaryIntrinsic(llvm::Intrinsic::log, x);
      case CallFn::kSqrt: return b_.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, x);
      case CallFn::kAbs: return b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
      case CallFn::kTanh: return CallLibm("tanhf", x);
      case CallFn::kErf: return EmitErf(x);
      case CallFn::kSigmoid: {
        llvm::Value* one = llvm::ConstantFP::get(x->getType(), 1.0);
        llvm::Value* e = EmitExp(b_.CreateFNeg(x));
        return b_.CreateFDiv(one, b_.CreateFAdd(one, e));
      }
    }
    return absl::InvalidArgumentError("unknown call");
  }

  // -------------------------------------------------------- statements --

  absl::Status Emit(const Stmt& s) {
    if (s == nullptr) return absl::OkStatus();
    switch (s->kind) {
      case StmtKind::kFor: return EmitFor(*s);
      case StmtKind::kSeq:
        for (const Stmt& c : s->seq) {
          PRUNER_RETURN_IF_ERROR(Emit(c));
        }
        return absl::OkStatus();
      case StmtKind::kIfThenElse: return EmitIf(*s);
      case StmtKind::kStore: return EmitStore(*s);
      case StmtKind::kAllocate: return EmitAllocate(*s);
      case StmtKind::kBarrier:
        return absl::InvalidArgumentError("a barrier in a CPU program");
    }
    return absl::InvalidArgumentError("unknown statement kind");
  }

  absl::Status EmitStore(const StmtNode& s) {
    if (++stores_emitted_ > kMaxEmittedStores) {
      return absl::InvalidArgumentError(absl::StrCat(
          "invalid schedule: the kernel unrolls into more than ", kMaxEmittedStores,
          " stores (LLVM backend limit)"));
    }
    PRUNER_ASSIGN_OR_RETURN(Expr offset, FlatOffset(s.buffer, s.indices));
    PRUNER_ASSIGN_OR_RETURN(llvm::Value * data, BufferPointer(s.buffer));
    PRUNER_ASSIGN_OR_RETURN(llvm::Value * value, EmitExpr(s.value, mask_));
    value = Convert(value, s.value->dtype, DType::kFloat32);
    const LaneAccess access = ClassifyLanes(offset);
    llvm::Instruction* store = nullptr;
    if (access.kind == LaneAccess::kUniform) {
      if (value->getType()->isVectorTy() || mask_ != nullptr) {
        return absl::InternalError("a vectorized loop stores every lane to one element");
      }
      PRUNER_ASSIGN_OR_RETURN(llvm::Value * index, EmitIndex(offset));
      store = b_.CreateAlignedStore(value, b_.CreateInBoundsGEP(f32_, data, index), llvm::Align(4));
    } else if (access.kind == LaneAccess::kContiguous) {
      PRUNER_ASSIGN_OR_RETURN(llvm::Value * base, EmitIndex(access.base));
      llvm::Value* ptr = b_.CreateInBoundsGEP(f32_, data, base);
      const llvm::Align align(static_cast<uint64_t>(access.align_bytes));
      value = Widen(value);
      if (mask_ == nullptr) {
        store = b_.CreateAlignedStore(value, ptr, align);
      } else {
        store = b_.CreateMaskedStore(value, ptr, align, mask_);
      }
    } else {
      PRUNER_ASSIGN_OR_RETURN(llvm::Value * ptrs, LanePointers(s.buffer, access));
      store = b_.CreateMaskedScatter(Widen(value), ptrs, llvm::Align(4), mask_);
    }
    TagAccess(store, s.buffer);
    return absl::OkStatus();
  }

  absl::Status EmitIf(const StmtNode& s) {
    PRUNER_ASSIGN_OR_RETURN(llvm::Value * cond, EmitExpr(s.condition, mask_));
    if (cond->getType()->isVectorTy()) {
      llvm::Value* const saved = mask_;
      mask_ = AndMask(saved, cond);
      absl::Status st = Emit(s.body);
      if (st.ok() && s.else_body != nullptr) {
        mask_ = AndMask(saved, b_.CreateNot(cond));
        st = Emit(s.else_body);
      }
      mask_ = saved;
      return st;
    }
    llvm::Function* fn = scope_->fn;
    llvm::BasicBlock* then_bb = llvm::BasicBlock::Create(ctx_, "if.then", fn);
    llvm::BasicBlock* else_bb =
        s.else_body != nullptr ? llvm::BasicBlock::Create(ctx_, "if.else", fn) : nullptr;
    llvm::BasicBlock* merge = llvm::BasicBlock::Create(ctx_, "if.end", fn);
    b_.CreateCondBr(cond, then_bb, else_bb != nullptr ? else_bb : merge);
    b_.SetInsertPoint(then_bb);
    PRUNER_RETURN_IF_ERROR(Emit(s.body));
    b_.CreateBr(merge);
    if (else_bb != nullptr) {
      b_.SetInsertPoint(else_bb);
      PRUNER_RETURN_IF_ERROR(Emit(s.else_body));
      b_.CreateBr(merge);
    }
    b_.SetInsertPoint(merge);
    return absl::OkStatus();
  }

  absl::Status EmitAllocate(const StmtNode& s) {
    if (s.buffer < 0 || s.buffer >= static_cast<int>(program_.buffers.size())) {
      return absl::InvalidArgumentError(absl::StrCat("allocation of unknown buffer ", s.buffer));
    }
    const Buffer& buffer = program_.buffer(s.buffer);
    const int64_t elements = std::max<int64_t>(1, buffer.num_elements());
    const int64_t bytes = elements * static_cast<int64_t>(sizeof(float));
    llvm::Value* const saved = scope_->buffers[s.buffer];
    if (bytes <= kCpuMaxStackBufferBytes) {
      // In the entry block, so that loops do not grow the stack and SROA
      // and mem2reg see it.
      llvm::IRBuilder<> entry(scope_->entry, scope_->entry->begin());
      llvm::AllocaInst* data = entry.CreateAlloca(llvm::ArrayType::get(f32_, elements), nullptr,
                                                  buffer.name);
      data->setAlignment(llvm::Align(64));
      b_.CreateLifetimeStart(data, b_.getInt64(bytes));
      scope_->buffers[s.buffer] = data;
      PRUNER_RETURN_IF_ERROR(Emit(s.body));
      b_.CreateLifetimeEnd(data, b_.getInt64(bytes));
    } else {
      llvm::Value* data = CallAlloc(elements);
      llvm::Function* fn = scope_->fn;
      llvm::BasicBlock* ok = llvm::BasicBlock::Create(ctx_, "alloc.ok", fn);
      llvm::BasicBlock* failed = llvm::BasicBlock::Create(ctx_, "alloc.failed", fn);
      llvm::BasicBlock* merge = llvm::BasicBlock::Create(ctx_, "alloc.end", fn);
      b_.CreateCondBr(b_.CreateIsNull(data), failed, ok);
      b_.SetInsertPoint(failed);
      // Parallel chunks may fail at once: the code is the same, any wins.
      llvm::StoreInst* flag = b_.CreateAlignedStore(b_.getInt32(kCpuErrorOutOfMemory),
                                                    scope_->status, llvm::Align(4));
      flag->setAtomic(llvm::AtomicOrdering::Monotonic);
      b_.CreateBr(merge);
      b_.SetInsertPoint(ok);
      scope_->buffers[s.buffer] = data;
      PRUNER_RETURN_IF_ERROR(Emit(s.body));
      CallFree(data);
      b_.CreateBr(merge);
      b_.SetInsertPoint(merge);
    }
    scope_->buffers[s.buffer] = saved;
    return absl::OkStatus();
  }

  // A counted loop var in [begin, end) (begin < end), body emitted by
  // body_fn with the variable bound; `loop_md` goes on the back edge.
  template <typename BodyFn>
  absl::Status EmitLoop(int var, llvm::Value* begin, llvm::Value* end, BodyFn body_fn,
                        llvm::MDNode* loop_md = nullptr) {
    llvm::Function* fn = scope_->fn;
    llvm::BasicBlock* pre = b_.GetInsertBlock();
    llvm::BasicBlock* header = llvm::BasicBlock::Create(ctx_, "loop", fn);
    llvm::BasicBlock* exit = llvm::BasicBlock::Create(ctx_, "loop.end", fn);
    b_.CreateBr(header);
    b_.SetInsertPoint(header);
    llvm::PHINode* iv = b_.CreatePHI(i64_, 2, program_.var_names[var]);
    iv->addIncoming(begin, pre);
    llvm::Value* const saved = scope_->vars[var];
    scope_->vars[var] = iv;
    PRUNER_RETURN_IF_ERROR(body_fn());
    scope_->vars[var] = saved;
    llvm::Value* next = b_.CreateAdd(iv, b_.getInt64(1), "", /*HasNUW=*/true, /*HasNSW=*/true);
    llvm::BranchInst* back = b_.CreateCondBr(b_.CreateICmpSLT(next, end), header, exit);
    if (loop_md != nullptr) back->setMetadata(llvm::LLVMContext::MD_loop, loop_md);
    iv->addIncoming(next, b_.GetInsertBlock());
    b_.SetInsertPoint(exit);
    return absl::OkStatus();
  }

  // A distinct llvm.loop node carrying one boolean hint.
  llvm::MDNode* LoopHint(const char* name) {
    llvm::Metadata* hint[] = {llvm::MDString::get(ctx_, name),
                              llvm::ConstantAsMetadata::get(b_.getTrue())};
    llvm::MDNode* hint_node = llvm::MDNode::get(ctx_, hint);
    llvm::Metadata* ops[] = {nullptr, hint_node};
    llvm::MDNode* loop = llvm::MDNode::getDistinct(ctx_, ops);
    loop->replaceOperandWith(0, loop);
    return loop;
  }

  absl::Status EmitFor(const StmtNode& s) {
    if (IsThreadBindingKind(s.for_kind)) {
      return absl::InvalidArgumentError(absl::StrCat("loop ", s.var_name, " is bound to ",
                                                     ForKindName(s.for_kind), " in a CPU program"));
    }
    if (s.var < 0 || s.var >= program_.num_vars()) {
      return absl::InvalidArgumentError(absl::StrCat("loop variable ", s.var, " is unknown"));
    }
    if (s.extent <= 0) return absl::OkStatus();
    const int64_t saved_budget = unroll_budget_;
    if (s.auto_unroll_max_step > 0) unroll_budget_ = s.auto_unroll_max_step;
    extents_[s.var] = s.extent;
    absl::Status st;
    switch (s.for_kind) {
      case ForKind::kParallel:
        st = scope_->in_parallel ? EmitSerial(s, nullptr) : EmitParallel(s);
        break;
      case ForKind::kVectorized:
        st = CanVectorize(s) ? EmitVectorized(s) : EmitSerial(s, LoopHint("llvm.loop.vectorize.enable"));
        break;
      case ForKind::kUnrolled:
        st = EmitUnrolled(s);
        break;
      default:
        st = SerialLoopUnrolled(s, unroll_budget_) ? EmitUnrolled(s) : EmitSerial(s, nullptr);
        break;
    }
    extents_.erase(s.var);
    unroll_budget_ = saved_budget;
    return st;
  }

  absl::Status EmitSerial(const StmtNode& s, llvm::MDNode* loop_md) {
    return EmitLoop(s.var, b_.getInt64(0), b_.getInt64(s.extent),
                    [&] { return Emit(s.body); }, loop_md);
  }

  absl::Status EmitUnrolled(const StmtNode& s) {
    llvm::Value* const saved = scope_->vars[s.var];
    for (int64_t i = 0; i < s.extent; ++i) {
      scope_->vars[s.var] = b_.getInt64(i);
      PRUNER_RETURN_IF_ERROR(Emit(s.body));
    }
    scope_->vars[s.var] = saved;
    return absl::OkStatus();
  }

  // A vectorized loop's body can be lanes of vectors when it is straight
  // stores (maybe under conditions), its iterations are independent, and
  // each store's lanes write distinct elements.
  bool CanVectorize(const StmtNode& s) {
    if (vec_var_ >= 0 || s.extent < 2 || s.extent > kLlvmMaxVectorizedExtent) return false;
    bool straight = true;
    VisitStmt(s.body, [&](const StmtNode& n) {
      if (n.kind == StmtKind::kFor || n.kind == StmtKind::kAllocate ||
          n.kind == StmtKind::kBarrier) {
        straight = false;
      }
    });
    if (!straight || !IterationsIndependent(s)) return false;
    bool distinct = true;
    const int saved = vec_var_;
    vec_var_ = s.var;
    VisitStmt(s.body, [&](const StmtNode& n) {
      if (n.kind != StmtKind::kStore) return;
      absl::StatusOr<Expr> offset = FlatOffset(n.buffer, n.indices);
      if (!offset.ok() || ClassifyLanes(*offset).kind == LaneAccess::kUniform) distinct = false;
    });
    vec_var_ = saved;
    return distinct;
  }

  // The loop's lanes go out as the vectors VectorPieces names (widest
  // power of two first, a narrow remainder as one vector). A 144-lane
  // padding copy into a depthwise convolution's tile emitted as one vector
  // made the kernel 3x slower than with 128 channels and 2x slower than
  // g++'s build of it; past 256 lanes the loop used to stay a loop for
  // LLVM's vectorizer, which left a guarded 384-lane padding copy scalar.
  // Narrow remainders are not split further, which would copy the body
  // once per bit of the extent.
  absl::Status EmitVectorized(const StmtNode& s) {
    vec_var_ = s.var;
    absl::Status st;
    int64_t start = 0;
    for (int64_t width : VectorPieces(s.extent)) {
      if (!st.ok()) break;
      lanes_ = width;
      vec_base_ = start;
      st = Emit(s.body);
      start += width;
    }
    vec_var_ = -1;
    lanes_ = 0;
    vec_base_ = 0;
    return st;
  }

  // The loop body becomes a function the runtime's pool calls with chunks
  // of the iteration space; what the body reads from the enclosing scope
  // (buffer pointers, outer loop variables, the status word) travels in a
  // closure of 8-byte slots.
  absl::Status EmitParallel(const StmtNode& s) {
    FunctionScope* outer = scope_;
    struct Capture {
      bool is_buffer;
      int id;
    };
    std::vector<Capture> captures;
    for (size_t i = 0; i < outer->buffers.size(); ++i) {
      if (outer->buffers[i] != nullptr) captures.push_back({true, static_cast<int>(i)});
    }
    for (size_t i = 0; i < outer->vars.size(); ++i) {
      if (outer->vars[i] != nullptr) captures.push_back({false, static_cast<int>(i)});
    }
    const size_t slots = captures.size() + 1;  // + the status pointer
    llvm::IRBuilder<> entry(outer->entry, outer->entry->begin());
    llvm::AllocaInst* closure =
        entry.CreateAlloca(llvm::ArrayType::get(i64_, slots), nullptr, "closure");
    closure->setAlignment(llvm::Align(8));
    for (size_t k = 0; k < captures.size(); ++k) {
      llvm::Value* v = captures[k].is_buffer ? outer->buffers[captures[k].id]
                                             : outer->vars[captures[k].id];
      b_.CreateAlignedStore(v, b_.CreateConstInBoundsGEP1_64(i64_, closure, k), llvm::Align(8));
    }
    b_.CreateAlignedStore(outer->status,
                          b_.CreateConstInBoundsGEP1_64(i64_, closure, captures.size()),
                          llvm::Align(8));

    auto* task_type = llvm::FunctionType::get(b_.getVoidTy(), {ptr_, i64_, i64_}, false);
    llvm::Function* task = llvm::Function::Create(
        task_type, llvm::Function::InternalLinkage,
        absl::StrCat(scope_->fn->getName().str(), "_par", ++parallel_loops_), module_);
    SetAttributes(task);
    FunctionScope inner;
    inner.fn = task;
    inner.entry = llvm::BasicBlock::Create(ctx_, "entry", task);
    inner.buffers.assign(outer->buffers.size(), nullptr);
    inner.vars.assign(outer->vars.size(), nullptr);
    inner.in_parallel = true;
    const llvm::IRBuilderBase::InsertPoint caller = b_.saveIP();
    b_.SetInsertPoint(inner.entry);
    for (size_t k = 0; k < captures.size(); ++k) {
      llvm::Value* slot = b_.CreateConstInBoundsGEP1_64(i64_, task->getArg(0), k);
      if (captures[k].is_buffer) {
        inner.buffers[captures[k].id] = b_.CreateAlignedLoad(ptr_, slot, llvm::Align(8));
      } else {
        inner.vars[captures[k].id] = b_.CreateAlignedLoad(i64_, slot, llvm::Align(8));
      }
    }
    inner.status = b_.CreateAlignedLoad(
        ptr_, b_.CreateConstInBoundsGEP1_64(i64_, task->getArg(0), captures.size()),
        llvm::Align(8));
    scope_ = &inner;
    absl::Status st = EmitLoop(s.var, task->getArg(1), task->getArg(2),
                               [&] { return Emit(s.body); });
    if (st.ok()) b_.CreateRetVoid();
    scope_ = outer;
    b_.restoreIP(caller);
    PRUNER_RETURN_IF_ERROR(st);
    llvm::FunctionCallee parallel_for =
        RuntimeFn("pruner_cpu_parallel_for", b_.getVoidTy(), {ptr_, ptr_, i64_});
    b_.CreateCall(parallel_for, {task, closure, b_.getInt64(s.extent)});
    return absl::OkStatus();
  }

  const Program& program_;
  llvm::Module* module_;
  llvm::LLVMContext& ctx_;
  llvm::IRBuilder<> b_;
  const ResolvedCpuTarget& target_;
  llvm::Type* f32_ = nullptr;
  llvm::IntegerType* i64_ = nullptr;
  llvm::IntegerType* i32_ = nullptr;
  llvm::IntegerType* i1_ = nullptr;
  llvm::PointerType* ptr_ = nullptr;
  std::vector<llvm::MDNode*> scopes_;
  std::vector<llvm::MDNode*> scope_lists_;
  std::vector<llvm::MDNode*> noalias_lists_;

  FunctionScope* scope_ = nullptr;
  absl::flat_hash_map<int, int64_t> extents_;  // loop variables in scope
  int vec_var_ = -1;       // the vectorized loop being emitted as lanes
  int64_t lanes_ = 0;
  int64_t vec_base_ = 0;  // the vectorized loop's value in lane 0 of the piece being emitted
  llvm::Value* mask_ = nullptr;  // lanes the current statement runs for
  int64_t unroll_budget_ = 0;
  int64_t stores_emitted_ = 0;
  int parallel_loops_ = 0;
};

int64_t CountInstructions(const llvm::Module& module) {
  int64_t count = 0;
  for (const llvm::Function& f : module) count += static_cast<int64_t>(f.getInstructionCount());
  return count;
}

// Builds the unoptimized module of `program`.
absl::StatusOr<std::unique_ptr<llvm::Module>> EmitModule(const Program& program,
                                                         const std::string& symbol,
                                                         const ResolvedCpuTarget& target,
                                                         llvm::LLVMContext& ctx) {
  auto module = std::make_unique<llvm::Module>(symbol, ctx);
  module->setTargetTriple(target.machine->getTargetTriple().str());
  module->setDataLayout(target.machine->createDataLayout());
  IrEmitter emitter(program, module.get(), target);
  PRUNER_RETURN_IF_ERROR(emitter.EmitEntry(symbol));
  std::string errors;
  llvm::raw_string_ostream os(errors);
  if (llvm::verifyModule(*module, &os)) {
    return absl::InternalError(absl::StrCat("the LLVM backend made invalid IR: ", os.str()));
  }
  return module;
}

LlvmPipeline Pipeline(const LlvmCpuTarget& target) {
  return target.llvm_default_pipeline ? LlvmPipeline::kLlvmDefault : LlvmPipeline::kKernel;
}

}  // namespace

absl::StatusOr<LlvmCpuObject> CompileCpuProgramLlvm(const Program& program,
                                                    const LlvmCpuTarget& target) {
  const auto start = std::chrono::steady_clock::now();
  PRUNER_ASSIGN_OR_RETURN(ResolvedCpuTarget resolved, ResolveCpuTarget(target));
  LlvmCpuObject object;
  object.symbol = CpuKernelSymbol(program);
  object.cpu = resolved.cpu;
  object.features = resolved.features;
  llvm::LLVMContext ctx;
  PRUNER_ASSIGN_OR_RETURN(std::unique_ptr<llvm::Module> module,
                          EmitModule(program, object.symbol, resolved, ctx));
  object.ir_instructions = CountInstructions(*module);
  if (object.ir_instructions > kLlvmMaxInstructions) {
    return absl::InvalidArgumentError(absl::StrCat(
        "invalid schedule: the kernel is ", object.ir_instructions,
        " LLVM instructions before optimization (limit ", kLlvmMaxInstructions, ")"));
  }
  object.emit_seconds = SecondsSince(start);
  const auto optimize_start = std::chrono::steady_clock::now();
  OptimizeCpuModule(*module, resolved.machine.get(), target.opt_level, Pipeline(target));
  object.optimize_seconds = SecondsSince(optimize_start);
  const auto codegen_start = std::chrono::steady_clock::now();
  PRUNER_ASSIGN_OR_RETURN(object.object,
                          EmitMachineCode(*module, *resolved.machine, llvm::CGFT_ObjectFile));
  object.codegen_seconds = SecondsSince(codegen_start);
  object.compile_seconds = SecondsSince(start);
  return object;
}

absl::StatusOr<std::string> CpuProgramLlvmIr(const Program& program, const LlvmCpuTarget& target,
                                             bool optimized) {
  PRUNER_ASSIGN_OR_RETURN(ResolvedCpuTarget resolved, ResolveCpuTarget(target));
  llvm::LLVMContext ctx;
  PRUNER_ASSIGN_OR_RETURN(std::unique_ptr<llvm::Module> module,
                          EmitModule(program, CpuKernelSymbol(program), resolved, ctx));
  if (optimized) OptimizeCpuModule(*module, resolved.machine.get(), target.opt_level, Pipeline(target));
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os, nullptr);
  return os.str();
}

absl::StatusOr<std::string> CpuProgramLlvmAssembly(const Program& program,
                                                   const LlvmCpuTarget& target) {
  PRUNER_ASSIGN_OR_RETURN(ResolvedCpuTarget resolved, ResolveCpuTarget(target));
  llvm::LLVMContext ctx;
  PRUNER_ASSIGN_OR_RETURN(std::unique_ptr<llvm::Module> module,
                          EmitModule(program, CpuKernelSymbol(program), resolved, ctx));
  OptimizeCpuModule(*module, resolved.machine.get(), target.opt_level, Pipeline(target));
  return EmitMachineCode(*module, *resolved.machine, llvm::CGFT_AssemblyFile);
}

}  // namespace pruner
