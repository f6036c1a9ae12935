// triton.testing.do_bench's measurement, shared by the backend policies: run once; five runs,
// each after flushing the L2 cache, to estimate; warm-up runs for warmup_ms; then runs for
// rep_ms, each after a flush, between two events. Returns the 50th, 20th and 80th percentiles
// in ms, interpolated as torch.quantile does.
#pragma once

#include <algorithm>
#include <array>
#include <utility>
#include <vector>

namespace triton_jit::detail {

inline double bench_quantile(const std::vector<double>& sorted, double q) {
  const double position = q * static_cast<double>(sorted.size() - 1);
  const auto below = static_cast<std::size_t>(position);
  const std::size_t above = std::min(below + 1, sorted.size() - 1);
  return sorted[below] + (sorted[above] - sorted[below]) * (position - static_cast<double>(below));
}

// Device: a stream of one backend. typename Event; Event event(); void record(Event);
// void wait(Event); double milliseconds(Event, Event); void finish(); void flush_l2().
template <class Device>
std::array<double, 3> do_bench(Device& device, void (*run)(void*), void* context, double warmup_ms, double rep_ms) {
  run(context);
  device.finish();
  auto start = device.event();
  auto end = device.event();
  device.record(start);
  for (int i = 0; i < 5; ++i) {
    device.flush_l2();
    run(context);
  }
  device.record(end);
  device.wait(end);
  const double estimate_ms = std::max(device.milliseconds(start, end) / 5.0, 1e-4);
  const int warmups = std::max(1, static_cast<int>(warmup_ms / estimate_ms));
  const int repeats = std::clamp(static_cast<int>(rep_ms / estimate_ms), 1, 100000);
  std::vector<std::pair<typename Device::Event, typename Device::Event>> pairs;
  pairs.reserve(static_cast<std::size_t>(repeats));
  for (int i = 0; i < repeats; ++i) pairs.emplace_back(device.event(), device.event());
  for (int i = 0; i < warmups; ++i) run(context);
  for (auto& [a, b] : pairs) {
    device.flush_l2();
    device.record(a);
    run(context);
    device.record(b);
  }
  // Each run's time is read as soon as it has run, while the later ones run: read after a final
  // synchronisation, the ~1000 reads of a fast kernel left the GPU idle for a millisecond or two
  // before the next config.
  std::vector<double> times;
  times.reserve(pairs.size());
  for (auto& [a, b] : pairs) {
    device.wait(b);
    times.push_back(device.milliseconds(a, b));
  }
  device.finish();
  std::sort(times.begin(), times.end());
  return {bench_quantile(times, 0.5), bench_quantile(times, 0.2), bench_quantile(times, 0.8)};
}

}  // namespace triton_jit::detail
