#include "common/sketch/seed_schedules.h"

#include "common/sketch/matmul_seeds.h"
#include "common/sketch/window_seeds.h"
#include "common/sketch/winograd_seeds.h"

namespace pruner {

std::vector<State> SeedSchedules(const std::vector<Sketch>& sketches, const DeviceProfile& device) {
  std::vector<State> seeds = WindowReductionSeeds(sketches, device);
  for (State& s : WinogradSeeds(sketches, device)) seeds.push_back(std::move(s));
  for (State& s : MatmulSeeds(sketches, device)) seeds.push_back(std::move(s));
  return seeds;
}

}  // namespace pruner
