// The device's side of a piece of work as the profiler records it (Kineto over CUPTI, as
// torch.profiler does): every kernel, copy and memset in the order they started, so that the
// idle time between a decode step's kernels, and what dependent launches do to it, can be read.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace triton_jit::demo {

struct DeviceEvent {
  std::string name;
  double start_us = 0, duration_us = 0;  // start: from the first event's start
};

struct KernelTimeline {
  std::vector<DeviceEvent> events;
  std::string unavailable;  // why nothing was recorded, when the profiler could not run here

  double span_us() const;     // the first event's start to the last one's end
  double idle_us() const;     // time in the span with no event running
  size_t overlapped() const;  // events that started before every earlier one had ended
};

// Records the device events of one call of `work` (which must leave the device idle when it
// returns, e.g. by synchronizing), `prepare` run unrecorded before it. Both run twice before,
// so that the figures are of a warm call.
KernelTimeline record_timeline(const std::function<void()>& prepare, const std::function<void()>& work);

// The two timelines' events side by side (start, duration, gap to the one before), or each in
// turn when they differ in count.
void print_timelines(const char* prefix, const KernelTimeline& a, const char* a_label, const KernelTimeline& b,
                     const char* b_label);

}  // namespace triton_jit::demo
