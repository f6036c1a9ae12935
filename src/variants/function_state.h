// The state behind a TritonJITFunction, shared by the hot path (triton_jit_function.cpp) and the
// cold pipeline that fills it (variant_builder.cpp).
#pragma once

#include <atomic>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "backend/active_backend.h"
#include "cache/entry_format.h"
#include "cache/entry_store.h"
#include "cache/variant_cache.h"
#include "common/limits.h"
#include "compiler/compiler_bridge.h"
#include "encoding/argument_encoder.h"
#include "encoding/kernel_signature.h"
#include "encoding/raw_signature.h"
#include "triton_jit/triton_jit_function.h"
#include "variants/decorated_memo.h"
#include "variants/single_flight.h"

namespace triton_jit::detail {

// A compiled variant. Immutable once published, except `loaded`, whose slots are filled once
// each (under the function's mutex) and read lock-free.
struct Variant {
  // What a launch reads comes first: the loaded kernels, then the key's hash and words.
  mutable std::atomic<const ActiveBackend::Kernel*> loaded[kMaxDevices] = {};
  const VariantKey key;
  impl::KernelMetadata metadata;
  std::string binary;
  std::vector<std::pair<std::string, std::string>> ir;  // (stage, text): only when keep_ir was on
  std::string signature_text;
  std::string target;
  int num_kernel_params = 0;

  explicit Variant(const VariantKey& k) : key(k) {}
};

// An autotuner's choice for one tuning key. Immutable once published.
struct TuningChoice {
  TuningChoice(const VariantKey& k, int c, std::string s, double ms)
      : key(k), config(c), source(std::move(s)), milliseconds(ms) {}
  const VariantKey key;  // the tuning key: the device, then what Triton's autotuner keys on
  const int config;
  const std::string source;  // "tuned", "cache", "bundle", "fallback"
  const double milliseconds;
};

}  // namespace triton_jit::detail

namespace triton_jit {

struct TritonJITFunction::Impl {
  // Immutable after get_instance.
  detail::FunctionIdentity id;
  detail::KernelLocation location;
  detail::KernelSignature sig;
  detail::Provenance provenance;  // of the signature: the sources as this process first read them

  // Read on every hit, in one line: the variants (lock-free; written under `mutex`), then what a
  // decorated hit reads first (Note [Decorated call memo]).
  alignas(64) detail::VariantCache<detail::Variant> cache;
  detail::DecoratedMemo memo;  // configured at get_instance

  std::mutex mutex;  // held across fork(); see Note [Fork safety]
  detail::SingleFlight<detail::VariantKey, const detail::Variant> building;  // guarded by mutex

  // @triton.autotune: choices per tuning key, read lock-free, written under `mutex`.
  detail::VariantCache<detail::TuningChoice> tuned;
  detail::SingleFlight<detail::VariantKey, const detail::TuningChoice> tuning;  // guarded by mutex
  std::atomic<int> forced_config{-1};
  std::atomic<const detail::TuningChoice*> last_choice{nullptr};  // most calls repeat the last key
  std::atomic<bool> python_heuristics_noted{false};

  // libtriton_jit's raw signatures, parsed once each: a list read lock-free, grown under `mutex`.
  std::atomic<const detail::RawSignature*> raw_signatures{nullptr};
  std::deque<detail::RawSignature> raw_signature_storage;  // guarded by mutex

  std::atomic<uint64_t> hits{0};
  std::atomic<uint64_t> remembered{0};  // hits whose variant came from the memo
  std::atomic<uint64_t> misses{0};
  std::atomic<uint64_t> compiles{0};
  std::atomic<uint64_t> tunings{0};
  std::atomic<uint64_t> compile_nanoseconds{0};
  std::atomic<uint64_t> load_nanoseconds{0};

  // Compile options of a call: the config's, else the kernel's defaults. Throws ValueError.
  // `decorated`: the options a decorated call's decorators chose, in place of the config's.
  detail::ResolvedOptions resolve(const LaunchConfig& c, Target target,
                                  const detail::LaunchDefaults* decorated = nullptr) const;
};

}  // namespace triton_jit
