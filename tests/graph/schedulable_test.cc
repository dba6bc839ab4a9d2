// Every task of every built-in network can be scheduled: it has CPU and GPU
// sketches, and a random schedule drawn from them is valid and lowers to a
// loop-nest program. (Running the programs is left to the lower and measure
// layers' tests; at full network shapes it would be slow here.)
#include "common/device/device_profile.h"
#include "common/graph/networks.h"
#include "common/graph/tasks.h"
#include "common/lower/lower.h"
#include "common/sketch/annotate.h"
#include "common/sketch/random.h"
#include "common/sketch/sketch.h"
#include "gtest/gtest.h"
#include "tests/support/pinned_cpus.h"

namespace pruner {
namespace {

TEST(SchedulableTest, EveryNetworkTaskSketchesSamplesAndLowers) {
  absl::StatusOr<DeviceProfile> a100 = GetDeviceProfile("a100");
  ASSERT_TRUE(a100.ok()) << a100.status();
  for (const DeviceProfile& device :
       {testing::PinnedEpycCpu(), testing::PinnedXeonCpu(), *a100}) {
    for (const std::string& network : KnownNetworks()) {
      absl::StatusOr<Graph> g = BuildNetwork(network);
      ASSERT_TRUE(g.ok()) << g.status();
      absl::StatusOr<std::vector<GraphTask>> tasks = ExtractTasks(*g);
      ASSERT_TRUE(tasks.ok()) << tasks.status();
      for (const GraphTask& task : *tasks) {
        SCOPED_TRACE(network + " " + task.name + " on " + device.name);
        absl::StatusOr<std::vector<Sketch>> sketches = GenerateSketches(task.dag, device);
        ASSERT_TRUE(sketches.ok()) << sketches.status();
        ASSERT_FALSE(sketches->empty());
        // Draws may be invalid (a limit violated); like the search, draw again.
        Rng rng(17);
        absl::Status last = absl::UnknownError("no draw");
        bool lowered = false;
        for (int draw = 0; draw < 2000 && !lowered; ++draw) {
          absl::StatusOr<State> state =
              SampleSchedule((*sketches)[draw % sketches->size()], device, rng);
          if (!state.ok()) {
            last = state.status();
            continue;
          }
          absl::StatusOr<Program> program = Lower(*state, device);
          lowered = program.ok();
          if (!lowered) last = program.status();
        }
        EXPECT_TRUE(lowered) << last;
      }
    }
  }
}

}  // namespace
}  // namespace pruner
