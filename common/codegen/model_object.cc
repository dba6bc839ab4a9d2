#include "common/codegen/model_object.h"

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/codegen/cpu_llvm_target.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

namespace pruner {
namespace {

llvm::GlobalVariable* AddConstant(llvm::Module& m, const char* name, llvm::Constant* value,
                                  uint64_t align) {
  auto* g = new llvm::GlobalVariable(m, value->getType(), /*isConstant=*/true,
                                     llvm::GlobalValue::ExternalLinkage, value, name);
  g->setAlignment(llvm::Align(align));
  return g;
}

void AddInt64(llvm::Module& m, const char* name, int64_t v) {
  AddConstant(m, name, llvm::ConstantInt::get(llvm::Type::getInt64Ty(m.getContext()), v), 8);
}

}  // namespace

absl::StatusOr<std::string> EmitModelDataObject(const ModelData& data,
                                                const LlvmCpuTarget& target) {
  PRUNER_ASSIGN_OR_RETURN(ResolvedCpuTarget resolved, ResolveCpuTarget(target));
  llvm::LLVMContext ctx;
  llvm::Module m("pruner_model_data", ctx);
  m.setTargetTriple(resolved.machine->getTargetTriple().str());
  m.setDataLayout(resolved.machine->createDataLayout());

  AddConstant(m, "pruner_model_plan",
              llvm::ConstantDataArray::get(ctx, llvm::ArrayRef<uint64_t>(
                                                    reinterpret_cast<const uint64_t*>(data.plan.data()),
                                                    data.plan.size())),
              64);
  AddInt64(m, "pruner_model_plan_size", static_cast<int64_t>(data.plan.size()));
  // At least one byte, so that an all-constant-free model still links.
  const std::string weights = data.weights.empty() ? std::string(1, '\0') : data.weights;
  AddConstant(m, "pruner_model_weights",
              llvm::ConstantDataArray::getString(ctx, weights, /*AddNull=*/false), 64);
  AddInt64(m, "pruner_model_weights_size", static_cast<int64_t>(data.weights.size()));

  // int (*const pruner_model_kernels[])(float* const*)
  llvm::PointerType* ptr = llvm::PointerType::get(ctx, 0);
  llvm::FunctionType* kernel_type =
      llvm::FunctionType::get(llvm::Type::getInt32Ty(ctx), {ptr}, /*isVarArg=*/false);
  std::vector<llvm::Constant*> kernels;
  for (const std::string& symbol : data.kernel_symbols) {
    kernels.push_back(llvm::cast<llvm::Constant>(
        m.getOrInsertFunction(symbol, kernel_type).getCallee()));
  }
  if (kernels.empty()) kernels.push_back(llvm::ConstantPointerNull::get(ptr));
  AddConstant(m, "pruner_model_kernels",
              llvm::ConstantArray::get(llvm::ArrayType::get(ptr, kernels.size()), kernels), 8);
  AddInt64(m, "pruner_model_num_kernels", static_cast<int64_t>(data.kernel_symbols.size()));

  return EmitMachineCode(m, *resolved.machine, llvm::CGFT_ObjectFile);
}

}  // namespace pruner
