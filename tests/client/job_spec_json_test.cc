#include "client/job_spec_json.h"

#include <random>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pruner {
namespace {

using ::testing::HasSubstr;

constexpr char kValidSpec[] = R"({
  "name": "bert on the a100",
  "network": "bert-tiny",
  "target": "a100-sxm4-40gb",
  "strategy": "ansor-xgb",
  "scheduler": "round-robin",
  "trialBudget": "2000",
  "measures_per_round": 32,
  "seed": 17,
  "earlyStopping": 400,
  "measure": {"number": 2, "repeat": 3, "minRepeatMs": 25.5, "numThreads": 8,
              "runTimeoutS": 4, "build_timeout_s": 30}
})";

TEST(ParseJobSpecJsonTest, ReadsEveryField) {
  auto spec = ParseJobSpecJson(kValidSpec);
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->name(), "bert on the a100");
  EXPECT_EQ(spec->network(), "bert-tiny");
  EXPECT_TRUE(spec->ops().empty());
  EXPECT_EQ(spec->target(), "a100-sxm4-40gb");
  EXPECT_EQ(spec->strategy(), "ansor-xgb");
  EXPECT_EQ(spec->scheduler(), "round-robin");
  EXPECT_EQ(spec->trial_budget(), 2000);  // int64 may come as a string
  EXPECT_EQ(spec->measures_per_round(), 32);  // the .proto's own field name works too
  EXPECT_EQ(spec->seed(), 17u);
  EXPECT_EQ(spec->early_stopping(), 400);
  EXPECT_EQ(spec->measure().number(), 2);
  EXPECT_EQ(spec->measure().repeat(), 3);
  EXPECT_DOUBLE_EQ(spec->measure().min_repeat_ms(), 25.5);
  EXPECT_EQ(spec->measure().num_threads(), 8);
  EXPECT_DOUBLE_EQ(spec->measure().run_timeout_s(), 4);
  EXPECT_DOUBLE_EQ(spec->measure().build_timeout_s(), 30);
}

TEST(ParseJobSpecJsonTest, ReadsOperatorList) {
  auto spec = ParseJobSpecJson(
      R"({"ops": ["dense:M=64,K=64,N=64", "softmax:M=16,N=100"], "target": "cpu"})");
  ASSERT_TRUE(spec.ok()) << spec.status();
  ASSERT_EQ(spec->ops_size(), 2);
  EXPECT_EQ(spec->ops(1), "softmax:M=16,N=100");
}

TEST(ParseJobSpecJsonTest, UnknownFieldIsNamed) {
  auto spec = ParseJobSpecJson(R"({"target": "cpu", "trialBudjet": 100})");
  ASSERT_FALSE(spec.ok());
  EXPECT_EQ(spec.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(spec.status().message(), HasSubstr("trialBudjet"));
}

TEST(ParseJobSpecJsonTest, UnknownNestedFieldIsNamed) {
  auto spec = ParseJobSpecJson(R"({"measure": {"repeats": 3}})");
  ASSERT_FALSE(spec.ok());
  EXPECT_THAT(spec.status().message(), HasSubstr("repeats"));
  EXPECT_THAT(spec.status().message(), HasSubstr("measure"));
}

TEST(ParseJobSpecJsonTest, WrongTypesAreRejected) {
  for (const char* json : {
           R"({"trialBudget": "many"})",
           R"({"trialBudget": 1.5})",
           R"({"seed": -1})",
           R"({"measuresPerRound": 99999999999})",
           R"({"ops": [1, 2]})",
           R"({"ops": {"a": 1}})",
           R"({"measure": "fast"})",
           R"({"measure": {"minRepeatMs": "soon"}})",
           R"({"name": ["a"]})",
           R"({"target": true})",
       }) {
    auto spec = ParseJobSpecJson(json);
    if (spec.ok()) {
      ADD_FAILURE() << json << " parsed as " << spec->ShortDebugString();
      continue;
    }
    EXPECT_EQ(spec.status().code(), absl::StatusCode::kInvalidArgument) << json;
  }
}

TEST(ParseJobSpecJsonTest, EmptyInputSaysSo) {
  for (const char* json : {"", "   ", "\n\t \n"}) {
    auto spec = ParseJobSpecJson(json);
    ASSERT_FALSE(spec.ok());
    EXPECT_THAT(spec.status().message(), HasSubstr("empty"));
  }
}

TEST(ParseJobSpecJsonTest, NotAnObject) {
  // (Protobuf's parser is lenient about trailing commas and single quotes;
  // those are not errors worth a user's time either.)
  for (const char* json : {"[]", "42", "\"spec\"", "null", "{", "}", R"({"name": "a"} extra)",
                           R"({"name": })", R"({"name" "a"})"}) {
    EXPECT_FALSE(ParseJobSpecJson(json).ok()) << json;
  }
}

TEST(ParseJobSpecJsonTest, EmbeddedNulAndInvalidUtf8) {
  constexpr char kNulInName[] = "{\"name\": \"a\0b\"}";
  auto spec = ParseJobSpecJson(std::string(kNulInName, sizeof(kNulInName) - 1));
  // JSON forbids a raw control character in a string, but protobuf's
  // parser lets it through; the name keeps it rather than ending there.
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->name(), std::string("a\0b", 3));
  EXPECT_FALSE(ParseJobSpecJson("{\"name\": \"\xff\xfe\"}").ok());
  EXPECT_FALSE(ParseJobSpecJson(std::string("\0\0\0\0", 4)).ok());
}

TEST(ParseJobSpecJsonTest, DeepNestingDoesNotOverflowTheStack) {
  constexpr int kDepth = 100000;
  EXPECT_FALSE(ParseJobSpecJson(std::string(kDepth, '[') + std::string(kDepth, ']')).ok());
  EXPECT_FALSE(ParseJobSpecJson(R"({"measure": )" + std::string(kDepth, '{')).ok());
  EXPECT_FALSE(ParseJobSpecJson(R"({"ops": )" + std::string(kDepth, '[')).ok());
}

// What a fuzzer would start with: every prefix of a valid spec and random
// bytes and byte flips. The parser must answer each, never crash.
TEST(ParseJobSpecJsonTest, PrefixesAndGarbageNeverCrash) {
  const std::string valid = kValidSpec;
  int accepted = 0;
  for (size_t n = 0; n < valid.size(); ++n) {
    if (ParseJobSpecJson(valid.substr(0, n)).ok()) ++accepted;
  }
  EXPECT_EQ(accepted, 0) << "a truncated spec parsed";

  std::mt19937 rng(20240501);
  std::uniform_int_distribution<int> byte(0, 255);
  for (int i = 0; i < 2000; ++i) {
    std::string input(1 + i % 64, '\0');
    for (char& c : input) c = static_cast<char>(byte(rng));
    (void)ParseJobSpecJson(input);  // any answer is fine; not crashing is the test
    std::string flipped = valid;
    flipped[rng() % flipped.size()] = static_cast<char>(byte(rng));
    auto spec = ParseJobSpecJson(flipped);
    if (!spec.ok()) {
      EXPECT_FALSE(spec.status().message().empty());
    }
  }
}

}  // namespace
}  // namespace pruner
