// The `pruner` command-line tool. Today it exposes the engine core: the
// operator library, device profiles, sketches, and a check that random
// schedules lower and compute the right answer. Tuning, the service and the
// records database arrive with later issues.
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "client/schedule_check.h"
#include "common/device/device_profile.h"
#include "common/device/device_profile_json.h"
#include "common/ir/ops.h"
#include "common/schedule/sketch.h"

namespace pruner {
namespace {

int Fail(const absl::Status& status) {
  std::cerr << "error: " << status.message() << "\n";
  return 2;
}

int ListOperators() {
  for (const std::string& op : KnownOperators()) std::cout << op << "\n";
  std::cout << "\n" << OperatorUsage() << "\n";
  return 0;
}

int ListDevices(bool json) {
  for (const std::string& name : KnownDeviceProfiles()) {
    auto profile = GetDeviceProfile(name);
    if (!profile.ok()) return Fail(profile.status());
    if (json) {
      std::cout << DeviceProfileToJsonString(*profile, -1) << "\n";
    } else {
      std::printf("%-12s %-4s %9.0f GFLOP/s %7.0f GB/s  %s\n", profile->name.c_str(),
                  profile->kind == DeviceKind::kGpu ? "gpu" : "cpu", profile->peak_gflops,
                  profile->mem_bandwidth_gbps, profile->description.c_str());
    }
  }
  return 0;
}

int PrintSketches(const std::string& op, const std::string& device_name) {
  auto device = GetDeviceProfile(device_name);
  if (!device.ok()) return Fail(device.status());
  auto dag = BuildOperator(op);
  if (!dag.ok()) return Fail(dag.status());
  auto shared = std::make_shared<const ComputeDag>(*std::move(dag));
  std::cout << "workload " << shared->WorkloadKey() << "\n" << shared->ToString() << "\n";
  auto sketches = GenerateSketches(shared, *device);
  if (!sketches.ok()) return Fail(sketches.status());
  for (size_t i = 0; i < sketches->size(); ++i) {
    std::cout << "=== sketch " << i << " ===\n" << (*sketches)[i].ToString() << "\n";
  }
  return 0;
}

void PrintReport(const std::string& op, const std::string& device, const ScheduleCheckReport& r) {
  std::printf("%-58s %-11s %3d sketches  %4d sampled  %4d lowered  %4d match reference\n",
              op.c_str(), device.c_str(), r.num_sketches, r.sampled, r.lowered, r.matched);
  for (const auto& [message, count] : r.failures) {
    std::printf("    %4d x %s\n", count, message.c_str());
  }
}

int Check(const std::string& op, const std::string& device_name, const ScheduleCheckOptions& options) {
  auto device = GetDeviceProfile(device_name);
  if (!device.ok()) return Fail(device.status());
  auto report = CheckRandomSchedules(op, *device, options);
  if (!report.ok()) return Fail(report.status());
  std::printf("workload key %s, %.3f GFLOP\n", report->workload_key.c_str(), report->gflop);
  PrintReport(op, device->name, *report);
  if (!report->example.empty()) std::cout << "\nexample schedule\n" << report->example << "\n";
  return report->matched == report->sampled && report->sampled > 0 ? 0 : 1;
}

// A tour of the engine core on real operators, for the local CPU and for an
// A100 profile (GPU schedules run in the program interpreter).
int Demo(int n) {
  const std::vector<std::string> ops = {
      "dense:M=64,K=256,N=128,bias=1,act=relu",
      "conv2d:N=1,C=16,H=14,W=14,K=32,R=3,S=3,stride=1,pad=1",
      "depthwise_conv2d:N=1,C=16,H=15,W=15,R=3,S=3,stride=2,pad=1",
      "batch_matmul:B=2,M=33,K=40,N=24",
      "softmax:M=16,N=100",
      "layer_norm:M=16,N=96",
      "max_pool2d:N=1,C=8,H=16,W=16,kernel=3,stride=2,pad=1",
  };
  ScheduleCheckOptions options;
  options.num_schedules = n;
  int bad = 0;
  for (const std::string device_name : {"cpu", "a100"}) {
    auto device = GetDeviceProfile(device_name);
    if (!device.ok()) return Fail(device.status());
    std::printf("\n== %s: %s ==\n", device->name.c_str(), device->description.c_str());
    for (const std::string& op : ops) {
      auto report = CheckRandomSchedules(op, *device, options);
      if (!report.ok()) return Fail(report.status());
      PrintReport(op, device->name, *report);
      if (report->matched != report->sampled) ++bad;
    }
  }
  ScheduleCheckOptions one;
  one.num_schedules = 1;
  one.show_example = true;
  auto device = GetDeviceProfile("a100");
  auto example = CheckRandomSchedules("matmul:M=64,K=64,N=64", *device, one);
  if (example.ok() && !example->example.empty()) {
    std::cout << "\n== one GPU schedule of matmul 64x64x64, lowered ==\n" << example->example;
  }
  return bad == 0 ? 0 : 1;
}

}  // namespace
}  // namespace pruner

int main(int argc, char** argv) {
  CLI::App app{"pruner: tensor-program tuning engine"};
  app.require_subcommand(1);

  auto* ops = app.add_subcommand("ops", "list the operator library and its spec syntax");
  bool json = false;
  auto* devices = app.add_subcommand("devices", "list the built-in device profiles");
  devices->add_flag("--json", json, "print profiles as JSON lines");

  std::string op, device = "cpu";
  auto* sketches = app.add_subcommand("sketches", "print the sketches of an operator");
  sketches->add_option("--op", op, "operator spec, e.g. dense:M=64,K=64,N=64")->required();
  sketches->add_option("--device", device, "device profile (see `pruner devices`)");

  pruner::ScheduleCheckOptions check_options;
  auto* check = app.add_subcommand(
      "check", "sample random schedules, lower them and compare with the reference");
  check->add_option("--op", op, "operator spec, e.g. conv2d:N=1,C=16,H=14,W=14,K=32,R=3,S=3,pad=1")
      ->required();
  check->add_option("--device", device, "device profile (see `pruner devices`)");
  check->add_option("--n", check_options.num_schedules, "number of schedules")
      ->check(CLI::Range(1, 100000));
  check->add_option("--seed", check_options.seed, "random seed");
  check->add_flag("--show", check_options.show_example, "print one schedule and its program");

  int demo_n = 20;
  auto* demo = app.add_subcommand("demo", "tour the engine on real operators (CPU and A100)");
  demo->add_option("--n", demo_n, "schedules per operator and device")->check(CLI::Range(1, 10000));

  CLI11_PARSE(app, argc, argv);
  if (*ops) return pruner::ListOperators();
  if (*devices) return pruner::ListDevices(json);
  if (*sketches) return pruner::PrintSketches(op, device);
  if (*check) return pruner::Check(op, device, check_options);
  if (*demo) return pruner::Demo(demo_n);
  return 0;
}
