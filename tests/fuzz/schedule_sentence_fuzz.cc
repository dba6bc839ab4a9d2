// Fuzz target for a schedule sentence, the text every record stores and
// every worker receives in a lease: text -> steps (ParseSteps) -> replayed
// onto a small matmul and a small conv2d (State::Replay) -> lowered for a
// CPU and a GPU (Lower). A worker replays whatever a server sends, and the
// server replays whatever the database holds, so whatever the bytes, this
// must return without crashing, hanging or allocating without bound.
//
// Built like job_spec_fuzz.cc: replayed by every test run, and a libFuzzer
// binary with PRUNER_FUZZ=ON (tests/fuzz/README.md).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "common/device/device_profile.h"
#include "common/ir/ops.h"
#include "common/lower/lower.h"
#include "common/schedule/state.h"
#include "common/schedule/step.h"

namespace {

struct Fixtures {
  std::vector<std::shared_ptr<const pruner::ComputeDag>> dags;
  std::vector<pruner::DeviceProfile> devices;
};

const Fixtures& GetFixtures() {
  static const Fixtures* fixtures = [] {
    auto* f = new Fixtures;
    f->dags.push_back(std::make_shared<const pruner::ComputeDag>(*pruner::Matmul(16, 16, 16)));
    pruner::Conv2dParams conv;
    conv.batch = 1;
    conv.in_channels = 4;
    conv.height = 8;
    conv.width = 8;
    conv.out_channels = 8;
    conv.kernel_h = 3;
    conv.kernel_w = 3;
    conv.pad_h = 1;
    conv.pad_w = 1;
    f->dags.push_back(std::make_shared<const pruner::ComputeDag>(*pruner::Conv2d(conv)));
    f->devices.push_back(*pruner::GetDeviceProfile("cpu"));
    f->devices.push_back(*pruner::GetDeviceProfile("a100"));
    return f;
  }();
  return *fixtures;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 8192) return 0;  // longer sentences say nothing new
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto steps = pruner::ParseSteps(text);
  if (!steps.ok()) return 0;
  // The sentence's round trip must parse back to the same steps.
  auto again = pruner::ParseSteps(pruner::StepsToString(*steps));
  if (!again.ok() || pruner::StepsToString(*again) != pruner::StepsToString(*steps)) __builtin_trap();
  const Fixtures& f = GetFixtures();
  for (const auto& dag : f.dags) {
    auto state = pruner::State::Replay(dag, *steps);
    if (!state.ok()) continue;
    for (const pruner::DeviceProfile& device : f.devices) {
      auto program = pruner::Lower(*state, device);
      (void)program;
    }
  }
  return 0;
}
