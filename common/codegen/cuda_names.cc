#include "common/codegen/cuda_names.h"

#include <array>
#include <cctype>

#include "absl/strings/str_cat.h"

namespace pruner::cuda_internal {
namespace {

bool Reserved(const std::string& name) {
  // C++ keywords a stage or axis name could plausibly spell, plus CUDA's
  // built-in variables and the kernel-level names the generator declares.
  static const std::array<const char*, 40> kReserved = {
      "auto",     "bool",     "break",     "case",      "char",      "const",    "continue",
      "default",  "do",       "double",    "else",      "enum",      "extern",   "float",
      "for",      "goto",     "if",        "int",       "long",      "return",   "short",
      "signed",   "sizeof",   "static",    "struct",    "switch",    "typedef",  "union",
      "unsigned", "void",     "volatile",  "while",     "threadIdx", "blockIdx", "blockDim",
      "gridDim",  "warpSize", "PR_DEVICE", "namespace", "new"};
  for (const char* r : kReserved) {
    if (name == r) return true;
  }
  return false;
}

}  // namespace

std::string SanitizeIdentifier(std::string_view name) {
  std::string out;
  for (char c : name) {
    const bool ok = std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
    const char mapped = ok ? c : '_';
    // Collapse runs of separators: "a.@b" -> "a_b".
    if (mapped == '_' && !out.empty() && out.back() == '_') continue;
    out.push_back(mapped);
  }
  while (!out.empty() && out.back() == '_') out.pop_back();
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0])) != 0) out.insert(0, "v");
  return out;
}

std::string CudaNameTable::Unique(std::string_view name) {
  std::string base = SanitizeIdentifier(name);
  // Keep clear of the preamble's helpers (pr_*) and of the identifiers the
  // C++ standard reserves (a leading underscore then a capital).
  if (base.rfind("pr_", 0) == 0 || base[0] == '_') base.insert(0, "v");
  std::string candidate = base;
  for (int n = 2; Reserved(candidate) || used_.count(candidate) > 0; ++n) {
    candidate = absl::StrCat(base, "_", n);
  }
  used_.insert(candidate);
  return candidate;
}

}  // namespace pruner::cuda_internal
