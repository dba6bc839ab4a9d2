// LocalMeasurer: MeasureBatch on a dedicated thread (see measurer.h for why).
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>
#include <unistd.h>

#include "common/measure/local_measurer.h"
#include "common/measure/measurer.h"

namespace pruner {
namespace {

std::string HostName() {
  char buffer[256] = {};
  if (gethostname(buffer, sizeof(buffer) - 1) != 0) return "localhost";
  return buffer;
}

class LocalMeasurer : public Measurer {
 public:
  explicit LocalMeasurer(const MeasureOptions& options)
      : options_(options), name_("local:" + HostName()), thread_([this] { Loop(); }) {}

  ~LocalMeasurer() override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      shutdown_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }

  std::string Name() const override { return name_; }

  absl::StatusOr<std::vector<MeasureResult>> Measure(
      const std::vector<MeasureInput>& inputs) override {
    // One batch at a time: runs must never overlap anyway.
    std::lock_guard<std::mutex> call_lock(call_mu_);
    std::unique_lock<std::mutex> lock(mu_);
    request_ = &inputs;
    reply_.reset();
    cv_.notify_all();
    cv_.wait(lock, [this] { return reply_.has_value(); });
    std::vector<MeasureResult> results = std::move(*reply_);
    reply_.reset();
    return results;
  }

 private:
  void Loop() {
    std::unique_lock<std::mutex> lock(mu_);
    while (true) {
      cv_.wait(lock, [this] { return shutdown_ || request_ != nullptr; });
      if (shutdown_) return;
      const std::vector<MeasureInput>* inputs = request_;
      request_ = nullptr;
      lock.unlock();
      std::vector<MeasureResult> results = MeasureBatch(*inputs, options_);
      lock.lock();
      reply_ = std::move(results);
      cv_.notify_all();
    }
  }

  const MeasureOptions options_;
  const std::string name_;
  std::mutex call_mu_;
  std::mutex mu_;
  std::condition_variable cv_;
  const std::vector<MeasureInput>* request_ = nullptr;
  std::optional<std::vector<MeasureResult>> reply_;
  bool shutdown_ = false;
  std::thread thread_;  // last: starts after the members it uses exist
};

}  // namespace

std::unique_ptr<Measurer> MakeLocalMeasurer(const MeasureOptions& options) {
  return std::make_unique<LocalMeasurer>(options);
}

}  // namespace pruner
