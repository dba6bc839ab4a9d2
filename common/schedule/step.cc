#include "common/schedule/step.h"

#include <array>
#include <charconv>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace pruner {
namespace {

constexpr std::array<const char*, 11> kAnnotationNames = {
    "none",       "unroll",      "vectorize",  "parallel",    "vthread",   "blockIdx.x",
    "threadIdx.x", "blockIdx.y", "threadIdx.y", "blockIdx.z", "threadIdx.z"};

constexpr std::array<const char*, 13> kStepTags = {
    "SP", "FSP", "FFSP", "RE", "FU", "AN", "PR", "CA", "CI", "CR", "CHR", "CHW", "RF"};

constexpr char kAutoUnrollPragma[] = "auto_unroll_max_step$";

std::string IntList(const std::vector<int>& v) { return absl::StrCat("[", absl::StrJoin(v, ","), "]"); }

std::string LengthList(const std::vector<std::optional<int64_t>>& v) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) out += ",";
    out += v[i].has_value() ? absl::StrCat(*v[i]) : "?";
  }
  return out + "]";
}

// Reads whitespace-separated fields of one step. Lists are written without
// spaces ("[1,2,3]"), so every field is one token.
class FieldReader {
 public:
  FieldReader(absl::string_view text) : text_(text) {
    for (absl::string_view tok : absl::StrSplit(text, ' ',
                                                absl::SkipEmpty())) {
      tokens_.emplace_back(tok.data(), tok.size());
    }
  }
  size_t size() const { return tokens_.size(); }
  absl::string_view tag() const { return tokens_.empty() ? absl::string_view() : tokens_[0]; }

  absl::Status Expect(size_t n) const {
    if (tokens_.size() != n + 1) {
      return Error(absl::StrCat("expected ", n, " fields after '", tag(), "', got ",
                                tokens_.size() - 1));
    }
    return absl::OkStatus();
  }
  absl::StatusOr<int64_t> Int(size_t i) const {
    int64_t v = 0;
    const absl::string_view t = tokens_[i];
    auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (ec != std::errc() || ptr != t.data() + t.size()) {
      return Error(absl::StrCat("field ", i, " ('", t, "') is not an integer"));
    }
    return v;
  }
  absl::StatusOr<int> SmallInt(size_t i) const {
    PRUNER_ASSIGN_OR_RETURN(auto v, Int(i));
    if (v < 0 || v > (1 << 20)) {
      return Error(absl::StrCat("field ", i, " ('", tokens_[i], "') is out of range"));
    }
    return static_cast<int>(v);
  }
  // "[a,b,?]" → items as strings.
  absl::StatusOr<std::vector<absl::string_view>> List(size_t i) const {
    absl::string_view t = tokens_[i];
    if (t.size() < 2 || t.front() != '[' || t.back() != ']') {
      return Error(absl::StrCat("field ", i, " ('", t, "') is not a [list]"));
    }
    t = t.substr(1, t.size() - 2);
    std::vector<absl::string_view> items;
    if (t.empty()) return items;
    size_t start = 0;
    while (true) {
      size_t comma = t.find(',', start);
      items.push_back(t.substr(start, comma == absl::string_view::npos ? t.npos : comma - start));
      if (comma == absl::string_view::npos) break;
      start = comma + 1;
    }
    return items;
  }
  absl::StatusOr<std::vector<int>> IntList(size_t i) const {
    PRUNER_ASSIGN_OR_RETURN(auto items, List(i));
    std::vector<int> out;
    for (absl::string_view item : items) {
      int v = 0;
      auto [ptr, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
      if (ec != std::errc() || ptr != item.data() + item.size() || v < 0) {
        return Error(absl::StrCat("list item '", item, "' in field ", i,
                                  " is not a non-negative integer"));
      }
      out.push_back(v);
    }
    return out;
  }
  absl::string_view Token(size_t i) const { return tokens_[i]; }
  absl::Status Error(absl::string_view what) const {
    return absl::InvalidArgumentError(absl::StrCat("bad step '", text_, "': ", what));
  }

 private:
  absl::string_view text_;
  std::vector<absl::string_view> tokens_;
};

}  // namespace

const char* AnnotationName(IterAnnotation a) { return kAnnotationNames[static_cast<int>(a)]; }

std::optional<IterAnnotation> ParseAnnotation(std::string_view name) {
  for (size_t i = 0; i < kAnnotationNames.size(); ++i) {
    if (name == kAnnotationNames[i]) return static_cast<IterAnnotation>(i);
  }
  return std::nullopt;
}

bool IsThreadBinding(IterAnnotation a) { return a >= IterAnnotation::kVThread; }
bool IsBlockBinding(IterAnnotation a) {
  return a == IterAnnotation::kBlockX || a == IterAnnotation::kBlockY ||
         a == IterAnnotation::kBlockZ;
}
bool IsThreadIdxBinding(IterAnnotation a) {
  return a == IterAnnotation::kThreadX || a == IterAnnotation::kThreadY ||
         a == IterAnnotation::kThreadZ;
}

bool Step::operator==(const Step& o) const {
  return kind == o.kind && stage == o.stage && iter == o.iter && extent == o.extent &&
         lengths == o.lengths && ints == o.ints && src_step == o.src_step &&
         n_split == o.n_split && level == o.level && factor == o.factor &&
         annotation == o.annotation && pragma_value == o.pragma_value &&
         target_stage == o.target_stage && target_iter == o.target_iter && scope == o.scope &&
         factor_iter == o.factor_iter;
}

bool Step::IsDefined() const {
  for (const auto& l : lengths) {
    if (!l.has_value()) return false;
  }
  return true;
}

Step SplitStep(int stage, int iter, int64_t extent, std::vector<std::optional<int64_t>> lengths) {
  Step s;
  s.kind = StepKind::kSplit;
  s.stage = stage;
  s.iter = iter;
  s.extent = extent;
  s.lengths = std::move(lengths);
  return s;
}
Step FollowSplitStep(int stage, int iter, int src_step, int n_split) {
  Step s;
  s.kind = StepKind::kFollowSplit;
  s.stage = stage;
  s.iter = iter;
  s.src_step = src_step;
  s.n_split = n_split;
  return s;
}
Step FollowFusedSplitStep(int stage, int iter, std::vector<int> src_steps, int level,
                          bool factor) {
  Step s;
  s.kind = StepKind::kFollowFusedSplit;
  s.stage = stage;
  s.iter = iter;
  s.ints = std::move(src_steps);
  s.level = level;
  s.factor = factor;
  return s;
}
Step ReorderStep(int stage, std::vector<int> order) {
  Step s;
  s.kind = StepKind::kReorder;
  s.stage = stage;
  s.ints = std::move(order);
  return s;
}
Step FuseStep(int stage, std::vector<int> iters) {
  Step s;
  s.kind = StepKind::kFuse;
  s.stage = stage;
  s.ints = std::move(iters);
  return s;
}
Step AnnotationStep(int stage, int iter, IterAnnotation annotation) {
  Step s;
  s.kind = StepKind::kAnnotation;
  s.stage = stage;
  s.iter = iter;
  s.annotation = annotation;
  return s;
}
Step AutoUnrollPragmaStep(int stage, int iter, int64_t max_step) {
  Step s;
  s.kind = StepKind::kPragma;
  s.stage = stage;
  s.iter = iter;
  s.pragma_value = max_step;
  return s;
}
Step ComputeAtStep(int stage, int target_stage, int target_iter) {
  Step s;
  s.kind = StepKind::kComputeAt;
  s.stage = stage;
  s.target_stage = target_stage;
  s.target_iter = target_iter;
  return s;
}
Step ComputeInlineStep(int stage) {
  Step s;
  s.kind = StepKind::kComputeInline;
  s.stage = stage;
  return s;
}
Step ComputeRootStep(int stage) {
  Step s;
  s.kind = StepKind::kComputeRoot;
  s.stage = stage;
  return s;
}
Step CacheReadStep(int stage, std::string scope, std::vector<int> readers) {
  Step s;
  s.kind = StepKind::kCacheRead;
  s.stage = stage;
  s.scope = std::move(scope);
  s.ints = std::move(readers);
  return s;
}
Step CacheWriteStep(int stage, std::string scope) {
  Step s;
  s.kind = StepKind::kCacheWrite;
  s.stage = stage;
  s.scope = std::move(scope);
  return s;
}
Step RfactorStep(int stage, int iter, int factor_iter) {
  Step s;
  s.kind = StepKind::kRfactor;
  s.stage = stage;
  s.iter = iter;
  s.factor_iter = factor_iter;
  return s;
}

std::string StepToString(const Step& s) {
  const char* tag = kStepTags[static_cast<int>(s.kind)];
  switch (s.kind) {
    case StepKind::kSplit:
      return absl::StrCat(tag, " ", s.stage, " ", s.iter, " ", s.extent, " ", LengthList(s.lengths));
    case StepKind::kFollowSplit:
      return absl::StrCat(tag, " ", s.stage, " ", s.iter, " ", s.src_step, " ", s.n_split);
    case StepKind::kFollowFusedSplit:
      return absl::StrCat(tag, " ", s.stage, " ", s.iter, " ", IntList(s.ints), " ", s.level, " ",
                          s.factor ? 1 : 0);
    case StepKind::kReorder:
    case StepKind::kFuse:
      return absl::StrCat(tag, " ", s.stage, " ", IntList(s.ints));
    case StepKind::kAnnotation:
      return absl::StrCat(tag, " ", s.stage, " ", s.iter, " ", AnnotationName(s.annotation));
    case StepKind::kPragma:
      return absl::StrCat(tag, " ", s.stage, " ", s.iter, " ", kAutoUnrollPragma, s.pragma_value);
    case StepKind::kComputeAt:
      return absl::StrCat(tag, " ", s.stage, " ", s.target_stage, " ", s.target_iter);
    case StepKind::kComputeInline:
    case StepKind::kComputeRoot:
      return absl::StrCat(tag, " ", s.stage);
    case StepKind::kCacheRead:
      return absl::StrCat(tag, " ", s.stage, " ", s.scope, " ", IntList(s.ints));
    case StepKind::kCacheWrite:
      return absl::StrCat(tag, " ", s.stage, " ", s.scope);
    case StepKind::kRfactor:
      return absl::StrCat(tag, " ", s.stage, " ", s.iter, " ", s.factor_iter);
  }
  return "";
}

absl::StatusOr<Step> ParseStep(std::string_view std_text) {
  FieldReader f(absl::string_view(std_text.data(), std_text.size()));
  if (f.size() == 0) return absl::InvalidArgumentError("bad step: empty");
  int tag_index = -1;
  for (size_t i = 0; i < kStepTags.size(); ++i) {
    if (kStepTags[i] == f.tag()) tag_index = static_cast<int>(i);
  }
  if (tag_index < 0) {
    return f.Error(absl::StrCat("unknown step tag '", f.tag(),
                                "' (known: SP FSP FFSP RE FU AN PR CA CI CR CHR CHW RF)"));
  }
  Step s;
  s.kind = static_cast<StepKind>(tag_index);
  auto need = [&](size_t n) { return f.Expect(n); };
  switch (s.kind) {
    case StepKind::kSplit: {
      PRUNER_RETURN_IF_ERROR(need(4));
      PRUNER_ASSIGN_OR_RETURN(s.stage, f.SmallInt(1));
      PRUNER_ASSIGN_OR_RETURN(s.iter, f.SmallInt(2));
      PRUNER_ASSIGN_OR_RETURN(s.extent, f.Int(3));
      std::vector<absl::string_view> items;
      PRUNER_ASSIGN_OR_RETURN(items, f.List(4));
      if (items.empty()) return f.Error("split needs at least one length");
      for (absl::string_view item : items) {
        if (item == "?") {
          s.lengths.push_back(std::nullopt);
          continue;
        }
        int64_t v = 0;
        auto [ptr, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
        if (ec != std::errc() || ptr != item.data() + item.size() || v <= 0) {
          return f.Error(absl::StrCat("split length '", item, "' is not a positive integer"));
        }
        s.lengths.push_back(v);
      }
      break;
    }
    case StepKind::kFollowSplit: {
      PRUNER_RETURN_IF_ERROR(need(4));
      PRUNER_ASSIGN_OR_RETURN(s.stage, f.SmallInt(1));
      PRUNER_ASSIGN_OR_RETURN(s.iter, f.SmallInt(2));
      PRUNER_ASSIGN_OR_RETURN(s.src_step, f.SmallInt(3));
      PRUNER_ASSIGN_OR_RETURN(s.n_split, f.SmallInt(4));
      break;
    }
    case StepKind::kFollowFusedSplit: {
      PRUNER_RETURN_IF_ERROR(need(5));
      PRUNER_ASSIGN_OR_RETURN(s.stage, f.SmallInt(1));
      PRUNER_ASSIGN_OR_RETURN(s.iter, f.SmallInt(2));
      PRUNER_ASSIGN_OR_RETURN(s.ints, f.IntList(3));
      PRUNER_ASSIGN_OR_RETURN(s.level, f.SmallInt(4));
      int factor = 0;
      PRUNER_ASSIGN_OR_RETURN(factor, f.SmallInt(5));
      if (factor > 1) return f.Error("factor flag must be 0 or 1");
      s.factor = factor == 1;
      break;
    }
    case StepKind::kReorder:
    case StepKind::kFuse: {
      PRUNER_RETURN_IF_ERROR(need(2));
      PRUNER_ASSIGN_OR_RETURN(s.stage, f.SmallInt(1));
      PRUNER_ASSIGN_OR_RETURN(s.ints, f.IntList(2));
      break;
    }
    case StepKind::kAnnotation: {
      PRUNER_RETURN_IF_ERROR(need(3));
      PRUNER_ASSIGN_OR_RETURN(s.stage, f.SmallInt(1));
      PRUNER_ASSIGN_OR_RETURN(s.iter, f.SmallInt(2));
      auto ann = ParseAnnotation(std::string_view(f.Token(3).data(), f.Token(3).size()));
      if (!ann.has_value() || *ann == IterAnnotation::kNone) {
        return f.Error(absl::StrCat("unknown annotation '", f.Token(3), "'"));
      }
      s.annotation = *ann;
      break;
    }
    case StepKind::kPragma: {
      PRUNER_RETURN_IF_ERROR(need(3));
      PRUNER_ASSIGN_OR_RETURN(s.stage, f.SmallInt(1));
      PRUNER_ASSIGN_OR_RETURN(s.iter, f.SmallInt(2));
      absl::string_view p = f.Token(3);
      const absl::string_view prefix(kAutoUnrollPragma);
      if (p.substr(0, prefix.size()) != prefix) {
        return f.Error(absl::StrCat("unknown pragma '", p, "'"));
      }
      p.remove_prefix(prefix.size());
      auto [ptr, ec] = std::from_chars(p.data(), p.data() + p.size(), s.pragma_value);
      if (ec != std::errc() || ptr != p.data() + p.size() || s.pragma_value < 0) {
        return f.Error("auto_unroll_max_step needs a non-negative integer");
      }
      break;
    }
    case StepKind::kComputeAt: {
      PRUNER_RETURN_IF_ERROR(need(3));
      PRUNER_ASSIGN_OR_RETURN(s.stage, f.SmallInt(1));
      PRUNER_ASSIGN_OR_RETURN(s.target_stage, f.SmallInt(2));
      PRUNER_ASSIGN_OR_RETURN(s.target_iter, f.SmallInt(3));
      break;
    }
    case StepKind::kComputeInline:
    case StepKind::kComputeRoot: {
      PRUNER_RETURN_IF_ERROR(need(1));
      PRUNER_ASSIGN_OR_RETURN(s.stage, f.SmallInt(1));
      break;
    }
    case StepKind::kCacheRead: {
      PRUNER_RETURN_IF_ERROR(need(3));
      PRUNER_ASSIGN_OR_RETURN(s.stage, f.SmallInt(1));
      s.scope = std::string(f.Token(2));
      PRUNER_ASSIGN_OR_RETURN(s.ints, f.IntList(3));
      break;
    }
    case StepKind::kCacheWrite: {
      PRUNER_RETURN_IF_ERROR(need(2));
      PRUNER_ASSIGN_OR_RETURN(s.stage, f.SmallInt(1));
      s.scope = std::string(f.Token(2));
      break;
    }
    case StepKind::kRfactor: {
      PRUNER_RETURN_IF_ERROR(need(3));
      PRUNER_ASSIGN_OR_RETURN(s.stage, f.SmallInt(1));
      PRUNER_ASSIGN_OR_RETURN(s.iter, f.SmallInt(2));
      PRUNER_ASSIGN_OR_RETURN(s.factor_iter, f.SmallInt(3));
      break;
    }
  }
  if ((s.kind == StepKind::kCacheRead || s.kind == StepKind::kCacheWrite) &&
      s.scope != "shared" && s.scope != "local") {
    return f.Error(absl::StrCat("unknown scope '", s.scope, "' (known: shared, local)"));
  }
  return s;
}

std::string StepsToString(const std::vector<Step>& steps) {
  std::string out;
  for (size_t i = 0; i < steps.size(); ++i) {
    if (i) out += "; ";
    out += StepToString(steps[i]);
  }
  return out;
}

absl::StatusOr<std::vector<Step>> ParseSteps(std::string_view text) {
  std::vector<Step> steps;
  absl::string_view all(text.data(), text.size());
  if (absl::StripAsciiWhitespace(all).empty()) return steps;
  int index = 0;
  for (absl::string_view part : absl::StrSplit(all, ';')) {
    absl::string_view trimmed = absl::StripAsciiWhitespace(part);
    auto step = ParseStep(std::string_view(trimmed.data(), trimmed.size()));
    if (!step.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("step ", index, ": ", step.status().message()));
    }
    steps.push_back(*std::move(step));
    ++index;
  }
  return steps;
}

}  // namespace pruner
