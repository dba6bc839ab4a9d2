#include "common/codegen/cpu_llvm_pipeline.h"

#include <utility>

#include "llvm/IR/Module.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Transforms/InstCombine/InstCombine.h"
#include "llvm/Transforms/Scalar/ADCE.h"
#include "llvm/Transforms/Scalar/DeadStoreElimination.h"
#include "llvm/Transforms/Scalar/EarlyCSE.h"
#include "llvm/Transforms/Scalar/GVN.h"
#include "llvm/Transforms/Scalar/LICM.h"
#include "llvm/Transforms/Scalar/LoopDeletion.h"
#include "llvm/Transforms/Scalar/LoopPassManager.h"
#include "llvm/Transforms/Scalar/LoopRotation.h"
#include "llvm/Transforms/Scalar/SROA.h"
#include "llvm/Transforms/Scalar/SimplifyCFG.h"
#include "llvm/Transforms/Vectorize/LoopVectorize.h"
#include "llvm/Transforms/Vectorize/SLPVectorizer.h"

namespace pruner {
namespace {

llvm::LICMPass Licm() { return llvm::LICMPass(llvm::LICMOptions()); }

llvm::FunctionPassManager KernelPipeline() {
  llvm::FunctionPassManager fpm;
  // Clean-up of what the emitter wrote.
  fpm.addPass(llvm::SROAPass());
  fpm.addPass(llvm::EarlyCSEPass(/*UseMemorySSA=*/true));
  fpm.addPass(llvm::SimplifyCFGPass());
  fpm.addPass(llvm::InstCombinePass());
  {
    // Rotated loops have a preheader and a guard: LICM can then promote the
    // register tile's loads and stores out of the reduction loop.
    llvm::LoopPassManager lpm;
    lpm.addPass(llvm::LoopRotatePass());
    lpm.addPass(Licm());
    fpm.addPass(llvm::createFunctionToLoopPassAdaptor(std::move(lpm), /*UseMemorySSA=*/true));
  }
  fpm.addPass(llvm::SimplifyCFGPass());
  fpm.addPass(llvm::InstCombinePass());
  fpm.addPass(llvm::createFunctionToLoopPassAdaptor(llvm::LoopDeletionPass()));
  fpm.addPass(llvm::GVNPass());
  fpm.addPass(llvm::DSEPass());
  fpm.addPass(llvm::createFunctionToLoopPassAdaptor(Licm(), /*UseMemorySSA=*/true));
  // Vectorization of what the schedule left scalar, as at the end of LLVM's
  // own pipeline, and the clean-up after it.
  fpm.addPass(llvm::LoopVectorizePass());
  fpm.addPass(llvm::EarlyCSEPass());
  fpm.addPass(llvm::SLPVectorizerPass());
  fpm.addPass(llvm::InstCombinePass());
  fpm.addPass(llvm::createFunctionToLoopPassAdaptor(Licm(), /*UseMemorySSA=*/true));
  fpm.addPass(llvm::SimplifyCFGPass());
  fpm.addPass(llvm::ADCEPass());
  return fpm;
}

}  // namespace

void OptimizeCpuModule(llvm::Module& module, llvm::TargetMachine* machine, int opt_level,
                       LlvmPipeline pipeline) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PipelineTuningOptions tuning;
  // Unrolling is the emitter's (the schedule's and kAlwaysUnrollSteps):
  // LLVM's partial and runtime unrolling doubled the median compile time
  // for no faster kernels.
  tuning.LoopVectorization = opt_level >= 2;
  tuning.SLPVectorization = opt_level >= 2;
  tuning.LoopUnrolling = false;
  llvm::PassBuilder pb(machine, tuning);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  if (opt_level >= 3 && pipeline == LlvmPipeline::kKernel) {
    llvm::ModulePassManager mpm;
    mpm.addPass(llvm::createModuleToFunctionPassAdaptor(KernelPipeline()));
    mpm.run(module, mam);
    return;
  }
  llvm::OptimizationLevel level = llvm::OptimizationLevel::O3;
  if (opt_level <= 0) level = llvm::OptimizationLevel::O0;
  if (opt_level == 1) level = llvm::OptimizationLevel::O1;
  if (opt_level == 2) level = llvm::OptimizationLevel::O2;
  llvm::ModulePassManager mpm = opt_level <= 0 ? pb.buildO0DefaultPipeline(level)
                                               : pb.buildPerModuleDefaultPipeline(level);
  mpm.run(module, mam);
}

}  // namespace pruner
