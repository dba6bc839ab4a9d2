// Runs one fuzz target (linked in; PRUNER_FUZZ_SUITE names it) on its seed
// corpus (PRUNER_FUZZ_CORPUS) and on deterministic mutations of it (byte
// flips, token insertions, truncations, splices), so every CI run
// exercises the parser on malformed input even without libFuzzer.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

std::vector<std::string> Corpus() {
  std::vector<std::string> inputs;
  for (const auto& entry : std::filesystem::directory_iterator(PRUNER_FUZZ_CORPUS)) {
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    inputs.push_back(text.str());
  }
  return inputs;
}

int RunTarget(const std::string& input) {
  return LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(input.data()), input.size());
}

std::string Mutate(std::string s, const std::vector<std::string>& corpus, std::mt19937_64& rng) {
  // Tokens of the three grammars: job-spec JSON, schedule sentences, DAG text.
  static const char* kTokens[] = {"{", "}", "[", "]", "\"", ":", ",", "-1", "1e308", "null",
                                  "\"ops\"", "\"network\"", "\"trialBudget\"", "\\u0000", "NaN",
                                  "matmul:M=", "conv2d:N=1,C=", "99999999999999999999", ";",
                                  "SP 2 0 ", "RE 2 [", "FU 3 [0,1]", "CA 2 3 ", "AN 3 0 parallel",
                                  "PR 2 0 auto_unroll_max_step$", "CHW 2 local", "FSP 3 0 1 2",
                                  "CI 1", "CR 2", "RF 2 ", "SA 2 ", " [", "]", "(", ")", "+", "*",
                                  "//", "%", "-2147483648", "0"};
  const int edits = 1 + static_cast<int>(rng() % 4);
  for (int e = 0; e < edits; ++e) {
    const size_t pos = s.empty() ? 0 : rng() % (s.size() + 1);
    switch (rng() % 5) {
      case 0:  // flip a byte
        if (!s.empty()) s[pos % s.size()] = static_cast<char>(rng());
        break;
      case 1:  // insert a token
        s.insert(pos, kTokens[rng() % (sizeof(kTokens) / sizeof(kTokens[0]))]);
        break;
      case 2:  // truncate
        s.resize(pos);
        break;
      case 3: {  // splice another input's tail
        const std::string& other = corpus[rng() % corpus.size()];
        const size_t from = other.empty() ? 0 : rng() % other.size();
        s = s.substr(0, pos) + other.substr(from);
        break;
      }
      default:  // erase a range
        if (!s.empty()) s.erase(pos % s.size(), 1 + rng() % 8);
        break;
    }
  }
  return s;
}

TEST(PRUNER_FUZZ_SUITE, SeedCorpus) {
  const auto corpus = Corpus();
  ASSERT_GE(corpus.size(), 5u);
  for (const std::string& input : corpus) EXPECT_EQ(RunTarget(input), 0);
}

TEST(PRUNER_FUZZ_SUITE, DeterministicMutations) {
  const auto corpus = Corpus();
  std::mt19937_64 rng(20261122);
  int runs = 0;
  for (int i = 0; i < 20000; ++i) {
    const std::string input = Mutate(corpus[rng() % corpus.size()], corpus, rng);
    EXPECT_EQ(RunTarget(input), 0);
    ++runs;
  }
  std::printf("%d mutated inputs ran without a crash\n", runs);
}

}  // namespace
