#include "kernel_timeline.h"

#include <c10/cuda/CUDAFunctions.h>
#include <torch/csrc/autograd/profiler_kineto.h>

#include <algorithm>
#include <cstdio>
#include <set>

namespace triton_jit::demo {

namespace profiler = torch::autograd::profiler;
using torch::profiler::impl::ActivityType;
using torch::profiler::impl::ProfilerConfig;
using torch::profiler::impl::ProfilerState;

double KernelTimeline::span_us() const {
  double end = 0;
  for (const DeviceEvent& e : events) end = std::max(end, e.start_us + e.duration_us);
  return end;
}

double KernelTimeline::idle_us() const {
  double idle = 0, busy_until = 0;
  for (const DeviceEvent& e : events) {
    idle += std::max(0.0, e.start_us - busy_until);
    busy_until = std::max(busy_until, e.start_us + e.duration_us);
  }
  return idle;
}

size_t KernelTimeline::overlapped() const {
  size_t n = 0;
  double busy_until = 0;
  for (const DeviceEvent& e : events) {
    if (e.start_us < busy_until) ++n;
    busy_until = std::max(busy_until, e.start_us + e.duration_us);
  }
  return n;
}

KernelTimeline record_timeline(const std::function<void()>& prepare, const std::function<void()>& work) {
  KernelTimeline timeline;
  for (int warm = 0; warm < 2; ++warm) {
    prepare();
    work();
  }
  prepare();
  c10::cuda::device_synchronize();
  try {
    const std::set<ActivityType> activities{ActivityType::CPU, ActivityType::CUDA};
    const ProfilerConfig config(ProfilerState::KINETO);
    profiler::prepareProfiler(config, activities);
    profiler::enableProfiler(config, activities);
    work();
    c10::cuda::device_synchronize();
    const std::unique_ptr<profiler::ProfilerResult> result = profiler::disableProfiler();
    std::vector<const profiler::KinetoEvent*> device;
    for (const profiler::KinetoEvent& e : result->events()) {
      if (e.deviceType() == c10::DeviceType::CUDA && e.durationNs() > 0) device.push_back(&e);
    }
    std::sort(device.begin(), device.end(), [](auto* x, auto* y) { return x->startNs() < y->startNs(); });
    for (const profiler::KinetoEvent* e : device) {
      timeline.events.push_back({e->name(), static_cast<double>(e->startNs() - device.front()->startNs()) / 1e3,
                                 static_cast<double>(e->durationNs()) / 1e3});
    }
    if (timeline.events.empty()) timeline.unavailable = "the profiler recorded no device events";
  } catch (const std::exception& e) {
    timeline.unavailable = e.what();
  }
  return timeline;
}

namespace {

std::string short_name(const std::string& name) {
  constexpr size_t kWidth = 44;
  return name.size() <= kWidth ? name : name.substr(0, kWidth - 3) + "...";
}

double gap_before(const KernelTimeline& t, size_t i) {
  return i == 0 ? 0.0 : t.events[i].start_us - (t.events[i - 1].start_us + t.events[i - 1].duration_us);
}

}  // namespace

void print_timelines(const char* prefix, const KernelTimeline& a, const char* a_label, const KernelTimeline& b,
                     const char* b_label) {
  if (a.events.size() == b.events.size()) {
    std::printf("%s %4s %-44s | %-27s | %-27s\n", prefix, "#", "event", a_label, b_label);
    std::printf("%s %4s %-44s | %8s %8s %9s | %8s %8s %9s\n", prefix, "", "", "start us", "dur us", "gap us",
                "start us", "dur us", "gap us");
    for (size_t i = 0; i < a.events.size(); ++i) {
      const DeviceEvent &x = a.events[i], &y = b.events[i];
      std::printf("%s %4zu %-44s | %8.1f %8.1f %+9.1f | %8.1f %8.1f %+9.1f\n", prefix, i, short_name(x.name).c_str(),
                  x.start_us, x.duration_us, gap_before(a, i), y.start_us, y.duration_us, gap_before(b, i));
    }
    return;
  }
  for (const auto& [t, label] : {std::pair{&a, a_label}, std::pair{&b, b_label}}) {
    std::printf("%s %s:\n", prefix, label);
    for (size_t i = 0; i < t->events.size(); ++i) {
      const DeviceEvent& x = t->events[i];
      std::printf("%s %4zu %-44s %8.1f %8.1f %+9.1f\n", prefix, i, short_name(x.name).c_str(), x.start_us,
                  x.duration_us, gap_before(*t, i));
    }
  }
}

}  // namespace triton_jit::demo
