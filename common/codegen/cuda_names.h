// C identifiers for the names of a lowered program. Loop variables are named
// like "nn.0@ff.0@yy.0@xx.0@" and buffers like "W.shared"; CUDA C needs
// [A-Za-z_][A-Za-z0-9_]*, distinct names, and no clash with keywords, CUDA's
// built-in variables or the generator's own helpers (pr_*). Internal to the
// CUDA code generator.
#ifndef PRUNER_COMMON_CODEGEN_CUDA_NAMES_H_
#define PRUNER_COMMON_CODEGEN_CUDA_NAMES_H_

#include <string>
#include <string_view>
#include <unordered_set>

namespace pruner::cuda_internal {

// "nn.0@ff.0@" -> "nn_0_ff_0"; "0x" -> "v0x"; "" -> "v".
std::string SanitizeIdentifier(std::string_view name);

// Hands out distinct identifiers: the sanitized name, or with "_2", "_3"...
// appended when it is taken or reserved.
class CudaNameTable {
 public:
  std::string Unique(std::string_view name);

 private:
  std::unordered_set<std::string> used_;
};

}  // namespace pruner::cuda_internal

#endif  // PRUNER_COMMON_CODEGEN_CUDA_NAMES_H_
