#include "bench/search_efficiency/remeasure.h"

#include <filesystem>
#include <optional>
#include <set>

#include "absl/strings/str_cat.h"
#include "common/measure/interleaved_timing.h"
#include "common/codegen/cpu_build.h"
#include "common/schedule/state.h"
#include "common/schedule/step.h"

namespace pruner::bench {

std::map<std::string, RemeasuredTime> RemeasureAll(const Workload& w,
                                                   const std::vector<std::string>& sentences,
                                                   const DeviceProfile& device,
                                                   const CpuBuildOptions& build,
                                                   const std::string& dir,
                                                   const RemeasureSettings& settings) {
  std::map<std::string, RemeasuredTime> out;
  std::vector<std::string> distinct;
  for (const std::string& s : sentences) {
    if (out.emplace(s, RemeasuredTime{}).second) distinct.push_back(s);
  }
  // Lower and generate everything first, then build them all with the
  // backend the tuners measured with (`build.backend`: timing g++ builds of
  // schedules the tuners timed as LLVM builds would judge other kernels).
  std::vector<Candidate> candidates;
  std::vector<std::string> built_for;
  for (const std::string& s : distinct) {
    auto steps = ParseSteps(s);
    if (!steps.ok()) {
      out[s].error = absl::StrCat("parse: ", steps.status().message());
      continue;
    }
    auto state = State::Replay(w.dag, *steps);
    if (!state.ok()) {
      out[s].error = absl::StrCat("replay: ", state.status().message());
      continue;
    }
    Candidate c = Prepare(*state, device, "");
    if (!c.program.ok() || !c.source.ok()) {
      out[s].error = !c.program.ok() ? absl::StrCat("lower: ", c.program.status().message())
                                     : absl::StrCat("codegen: ", c.source.status().message());
      continue;
    }
    candidates.push_back(std::move(c));
    built_for.push_back(s);
  }
  std::vector<const Program*> programs;
  for (const Candidate& c : candidates) programs.push_back(&*c.program);
  std::vector<absl::StatusOr<BuiltModule>> modules =
      BuildCpuPrograms(programs, build, settings.max_parallel_builds, dir);

  // Load and check; the kernels live in `kernels` (never resized after the
  // contenders take pointers into it).
  std::vector<std::optional<ReadyKernel>> kernels(candidates.size());
  for (size_t i = 0; i < candidates.size(); ++i) {
    if (!modules[i].ok()) {
      out[built_for[i]].error = absl::StrCat("build: ", modules[i].status().message());
      continue;
    }
    auto k = ReadyKernel::Load(*modules[i], *candidates[i].program, w);
    std::error_code ec;
    std::filesystem::remove(modules[i]->path, ec);  // dlopen keeps the mapping
    if (!k.ok()) {
      out[built_for[i]].error = std::string(k.status().message());
      continue;
    }
    kernels[i].emplace(*std::move(k));
  }
  std::vector<Contender> contenders;
  std::vector<size_t> which;
  for (size_t i = 0; i < kernels.size(); ++i) {
    if (!kernels[i].has_value()) continue;
    const ReadyKernel* k = &*kernels[i];
    contenders.push_back({built_for[i], [k] { k->Call(); }});
    which.push_back(i);
  }
  if (contenders.empty()) return out;
  InterleaveOptions io;
  io.rounds = settings.rounds;
  std::vector<InterleavedTimes> times = TimeInterleaved(contenders, io);
  for (size_t j = 0; j < which.size(); ++j) {
    RemeasuredTime& r = out[built_for[which[j]]];
    r.ok = true;
    r.median_s = times[j].median_s;
    r.min_s = times[j].min_s;
  }
  return out;
}

}  // namespace pruner::bench
