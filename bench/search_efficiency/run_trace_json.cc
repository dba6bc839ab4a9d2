#include "bench/search_efficiency/run_trace_json.h"

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"

namespace pruner::bench {
namespace {

using json = nlohmann::json;

json TimeJson(const RoundTime& t) {
  return {{"search_s", t.search_s}, {"train_s", t.train_s}, {"measure_s", t.measure_s},
          {"build_s", t.build_s},   {"run_s", t.run_s},     {"db_s", t.db_s}};
}

RoundTime TimeFrom(const json& j) {
  RoundTime t;
  t.search_s = j.at("search_s").get<double>();
  t.train_s = j.at("train_s").get<double>();
  t.measure_s = j.at("measure_s").get<double>();
  t.build_s = j.at("build_s").get<double>();
  t.run_s = j.at("run_s").get<double>();
  t.db_s = j.at("db_s").get<double>();
  return t;
}

json CountersJson(const SearchCounters& c) {
  return {{"rounds", c.rounds},
          {"proposed", c.proposed},
          {"total_s", c.total_s},
          {"sketch_s", c.sketch_s},
          {"sample_s", c.sample_s},
          {"mutate_s", c.mutate_s},
          {"predict_s", c.predict_s},
          {"sample_attempts", c.sample_attempts},
          {"sampled_valid", c.sampled_valid},
          {"mutations_ok", c.mutations_ok},
          {"mutations_failed", c.mutations_failed},
          {"predict_calls", c.predict_calls},
          {"predicted_states", c.predicted_states}};
}

SearchCounters CountersFrom(const json& j) {
  SearchCounters c;
  c.rounds = j.at("rounds").get<int64_t>();
  c.proposed = j.at("proposed").get<int64_t>();
  c.total_s = j.at("total_s").get<double>();
  c.sketch_s = j.at("sketch_s").get<double>();
  c.sample_s = j.at("sample_s").get<double>();
  c.mutate_s = j.at("mutate_s").get<double>();
  c.predict_s = j.at("predict_s").get<double>();
  c.sample_attempts = j.at("sample_attempts").get<int64_t>();
  c.sampled_valid = j.at("sampled_valid").get<int64_t>();
  c.mutations_ok = j.at("mutations_ok").get<int64_t>();
  c.mutations_failed = j.at("mutations_failed").get<int64_t>();
  c.predict_calls = j.at("predict_calls").get<int64_t>();
  c.predicted_states = j.at("predicted_states").get<int64_t>();
  return c;
}

json DraftVerifyJson(const DraftVerifyRoundStats& d) {
  return {{"sample", d.sample},
          {"drafted", d.drafted},
          {"draft", d.draft},
          {"seeds", d.seeds},
          {"random_pool", d.random_pool},
          {"best_found", d.best_found},
          {"drafter_scored", d.drafter_scored},
          {"verifier_scored", d.verifier_scored},
          {"draft_s", d.draft_s},
          {"verify_s", d.verify_s},
          {"picks",
           {{"from_best", d.picks.from_best},
            {"from_random", d.picks.from_random},
            {"skipped_known", d.picks.skipped_known}}}};
}

DraftVerifyRoundStats DraftVerifyFrom(const json& j) {
  DraftVerifyRoundStats d;
  d.sample = j.at("sample").get<int>();
  d.drafted = j.at("drafted").get<bool>();
  d.draft = j.at("draft").get<int>();
  d.seeds = j.at("seeds").get<int>();
  d.random_pool = j.at("random_pool").get<int>();
  d.best_found = j.at("best_found").get<int>();
  d.drafter_scored = j.at("drafter_scored").get<int64_t>();
  d.verifier_scored = j.at("verifier_scored").get<int64_t>();
  d.draft_s = j.at("draft_s").get<double>();
  d.verify_s = j.at("verify_s").get<double>();
  const json& p = j.at("picks");
  d.picks.from_best = p.at("from_best").get<int>();
  d.picks.from_random = p.at("from_random").get<int>();
  d.picks.skipped_known = p.at("skipped_known").get<int>();
  return d;
}

}  // namespace

std::string RunTraceToJson(const RunTrace& run) {
  json points = json::array();
  for (const RoundPoint& p : run.points) {
    json point = {{"task", p.task},       {"measured", p.measured},
                  {"trials", p.trials},   {"wall_s", p.wall_s},
                  {"best", p.best},       {"time", TimeJson(p.time)},
                  {"search", CountersJson(p.search)}};
    if (p.draft_verify.has_value()) point["draft_verify"] = DraftVerifyJson(*p.draft_verify);
    points.push_back(std::move(point));
  }
  json improvements = json::array();
  for (const std::vector<Improvement>& task : run.improvements) {
    json list = json::array();
    for (const Improvement& i : task) {
      list.push_back({{"sentence", i.sentence}, {"self_s", i.self_s}, {"point", i.point}});
    }
    improvements.push_back(std::move(list));
  }
  const json j = {{"strategy", run.strategy}, {"seed", run.seed},     {"ok", run.ok},
                  {"error", run.error},       {"wall_s", run.wall_s}, {"trials", run.trials},
                  {"points", points},         {"improvements", improvements}};
  return j.dump(1);
}

absl::StatusOr<RunTrace> RunTraceFromJson(const std::string& text) {
  try {
    const json j = json::parse(text);
    RunTrace run;
    run.strategy = j.at("strategy").get<std::string>();
    run.seed = j.at("seed").get<uint64_t>();
    run.ok = j.at("ok").get<bool>();
    run.error = j.at("error").get<std::string>();
    run.wall_s = j.at("wall_s").get<double>();
    run.trials = j.at("trials").get<int64_t>();
    for (const json& p : j.at("points")) {
      RoundPoint point;
      point.task = p.at("task").get<int>();
      point.measured = p.at("measured").get<int>();
      point.trials = p.at("trials").get<int64_t>();
      point.wall_s = p.at("wall_s").get<double>();
      point.best = p.at("best").get<std::vector<int>>();
      point.time = TimeFrom(p.at("time"));
      point.search = CountersFrom(p.at("search"));
      if (p.contains("draft_verify")) point.draft_verify = DraftVerifyFrom(p.at("draft_verify"));
      run.points.push_back(std::move(point));
    }
    for (const json& list : j.at("improvements")) {
      std::vector<Improvement> task;
      for (const json& i : list) {
        task.push_back(Improvement{i.at("sentence").get<std::string>(),
                                   i.at("self_s").get<double>(), i.at("point").get<int>()});
      }
      run.improvements.push_back(std::move(task));
    }
    return run;
  } catch (const json::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("not a saved run: ", e.what()));
  }
}

std::string ReadStateFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace pruner::bench
