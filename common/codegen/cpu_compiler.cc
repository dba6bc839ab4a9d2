#include "common/codegen/cpu_compiler.h"

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <thread>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/base/parallel_for.h"
#include "common/base/status_macros.h"
#include "common/codegen/child_process.h"

namespace pruner {

namespace {

// The part of a compiler log an error message carries: the end, where the
// first error's context and the summary are for short logs, and at least
// the last diagnostics for long ones.
constexpr size_t kMaxDiagnosticBytes = 4000;

std::string Tail(const std::string& text) {
  if (text.size() <= kMaxDiagnosticBytes) return text;
  return absl::StrCat("...", text.substr(text.size() - kMaxDiagnosticBytes));
}

// A file stem no other build (in this process or another) uses.
std::string UniqueStem(const std::string& work_dir, const std::string& symbol) {
  static std::atomic<uint64_t> counter{0};
  return absl::StrCat(work_dir, "/", symbol, "_", getpid(), "_", counter.fetch_add(1));
}

std::vector<std::string> BaseCommand(const CpuBuildOptions& options) {
  std::vector<std::string> argv = {options.compiler, "-std=c++17", options.opt};
  if (!options.march.empty()) argv.push_back(absl::StrCat("-march=", options.march));
  // -fopenmp: parallel loops and `omp simd`; -fPIC for the shared object.
  argv.insert(argv.end(), {"-fopenmp", "-fPIC", "-w"});
  argv.insert(argv.end(), options.extra_flags.begin(), options.extra_flags.end());
  return argv;
}

absl::Status WriteText(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) return absl::InternalError(absl::StrCat("cannot write ", path));
  return absl::OkStatus();
}

// Runs the compiler on `cc` producing `output`; maps failures to the error
// classes of the header.
absl::Status Compile(std::vector<std::string> argv, const std::string& log_path,
                     const CpuBuildOptions& options, std::string* command,
                     double* seconds) {
  *command = absl::StrJoin(argv, " ");
  PRUNER_ASSIGN_OR_RETURN(ProcessResult run, RunProcess(argv, log_path, options.timeout));
  *seconds = absl::ToDoubleSeconds(run.elapsed);
  if (run.timed_out) {
    return absl::DeadlineExceededError(absl::StrCat("build timeout: ", *command,
                                                    ": killed after ", *seconds, " s (limit ",
                                                    absl::FormatDuration(options.timeout), ")"));
  }
  if (run.exit_code != 0 || run.signal != 0) {
    const std::string how = run.signal != 0 ? absl::StrCat("killed by signal ", run.signal)
                                             : absl::StrCat("exit ", run.exit_code);
    return absl::InternalError(
        absl::StrCat("build error: ", *command, ": ", how, ":\n", Tail(run.output)));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<BuiltModule> BuildCpuModule(const CpuKernelSource& source,
                                           const CpuBuildOptions& options,
                                           const std::string& work_dir) {
  if (options.max_stack_bytes > 0 && source.stack_bytes > options.max_stack_bytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("invalid schedule: stack buffers of ", source.stack_bytes,
                     " bytes exceed the limit of ", options.max_stack_bytes));
  }
  std::error_code ec;
  std::filesystem::create_directories(work_dir, ec);
  const std::string stem = UniqueStem(work_dir, source.symbol);
  const std::string cc = stem + ".cc", so = stem + ".so", log = stem + ".log";
  PRUNER_RETURN_IF_ERROR(WriteText(cc, source.code));

  std::vector<std::string> argv = BaseCommand(options);
  argv.insert(argv.end(), {"-shared", "-o", so, cc});
  BuiltModule module;
  module.symbol = source.symbol;
  module.path = so;
  if (absl::Status st = Compile(argv, log, options, &module.command, &module.build_seconds);
      !st.ok()) {
    std::filesystem::remove(so, ec);
    return st;
  }
  module.binary_bytes = static_cast<int64_t>(std::filesystem::file_size(so, ec));
  if (ec) return absl::InternalError(absl::StrCat("build error: no output ", so));
  if (!options.keep_source) {
    std::filesystem::remove(cc, ec);
    std::filesystem::remove(log, ec);
  }
  if (options.max_binary_bytes > 0 && module.binary_bytes > options.max_binary_bytes) {
    std::filesystem::remove(so, ec);
    return absl::InvalidArgumentError(
        absl::StrCat("invalid schedule: binary size ", module.binary_bytes,
                     " bytes exceeds the limit of ", options.max_binary_bytes));
  }
  return module;
}

absl::StatusOr<std::string> CompileCpuAssembly(const CpuKernelSource& source,
                                               const CpuBuildOptions& options,
                                               const std::string& work_dir) {
  std::error_code ec;
  std::filesystem::create_directories(work_dir, ec);
  const std::string stem = UniqueStem(work_dir, source.symbol);
  const std::string cc = stem + ".cc", s = stem + ".s", log = stem + ".log";
  PRUNER_RETURN_IF_ERROR(WriteText(cc, source.code));
  std::vector<std::string> argv = BaseCommand(options);
  argv.insert(argv.end(), {"-S", "-o", s, cc});
  std::string command;
  double seconds = 0;
  PRUNER_RETURN_IF_ERROR(Compile(argv, log, options, &command, &seconds));
  std::ifstream in(s);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!options.keep_source) {
    for (const std::string& f : {cc, s, log}) std::filesystem::remove(f, ec);
  }
  return text;
}

std::vector<absl::StatusOr<BuiltModule>> BuildPool::BuildAll(
    const std::vector<CpuKernelSource>& sources, const CpuBuildOptions& options,
    const std::string& work_dir) const {
  std::vector<absl::StatusOr<BuiltModule>> results(
      sources.size(), absl::StatusOr<BuiltModule>(absl::UnknownError("not built")));
  ParallelFor(static_cast<int>(sources.size()), max_parallel_,
              [&](int i) { results[i] = BuildCpuModule(sources[i], options, work_dir); });
  return results;
}

}  // namespace pruner
