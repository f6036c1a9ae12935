// What a kernel's decorators keep between calls: the memo of repeated calls and the autotuner's
// choices. DecoratedCalls owns it; the room's functions take it beside the variant table.
#pragma once

#include <atomic>
#include <string>
#include <utility>

#include "cache/variant_cache.h"
#include "decorators/decorated_memo.h"
#include "encoding/variant_key.h"
#include "variants/single_flight.h"

namespace triton_jit::detail {

// An autotuner's choice for one tuning key. Immutable once published.
struct TuningChoice {
  TuningChoice(const VariantKey& k, int c, std::string s, double ms)
      : key(k), config(c), source(std::move(s)), milliseconds(ms) {}
  const VariantKey key;  // the tuning key: the device, then what Triton's autotuner keys on
  const int config;
  const std::string source;  // "tuned", "cache", "bundle", "fallback"
  const double milliseconds;
};

struct DecoratorState {
  DecoratedMemo memo;  // first: what a repeated call reads (Note [Decorated call memo])

  // @triton.autotune: choices per tuning key, read lock-free, written under the function's mutex.
  VariantCache<TuningChoice> tuned;
  SingleFlight<VariantKey, const TuningChoice> tuning;  // guarded by the function's mutex
  std::atomic<int> forced_config{-1};
  std::atomic<const TuningChoice*> last_choice{nullptr};  // most calls repeat the last key
  std::atomic<bool> python_heuristics_noted{false};
};

}  // namespace triton_jit::detail
