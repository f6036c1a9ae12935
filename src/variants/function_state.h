// A kernel function's variant table: its identity, its signature and the variants compiled for
// it, shared by the hot path (runtime/) and the cold pipeline that fills it (variant_builder.cpp).
// What its decorators keep is the decorators' own (decorators/decorated_calls.h).
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

struct FunctionState {
  // Immutable after get_instance.
  FunctionIdentity id;
  KernelLocation location;
  KernelSignature sig;
  Provenance provenance;  // of the signature: the sources as this process first read them

  // Read on every plain hit: the variants (lock-free; written under `mutex`).
  alignas(64) VariantCache<Variant> cache;

  std::mutex mutex;                                  // held across fork(); see Note [Fork safety]
  SingleFlight<VariantKey, const Variant> building;  // guarded by mutex

  // libtriton_jit's raw signatures, parsed once each: a list read lock-free, grown under `mutex`.
  std::atomic<const RawSignature*> raw_signatures{nullptr};
  std::deque<RawSignature> raw_signature_storage;  // guarded by mutex

  std::atomic<uint64_t> hits{0};
  std::atomic<uint64_t> remembered{0};  // hits whose variant came from the memo
  std::atomic<uint64_t> misses{0};
  std::atomic<uint64_t> compiles{0};
  std::atomic<uint64_t> tunings{0};
  std::atomic<uint64_t> compile_nanoseconds{0};
  std::atomic<uint64_t> load_nanoseconds{0};

  // Compile options of a call: the config's, else the kernel's defaults. Throws ValueError.
  // `decorated`: the options a decorated call's decorators chose, in place of the config's.
  ResolvedOptions resolve(const LaunchConfig& c, Target target, const LaunchDefaults* decorated = nullptr) const;
};

}  // namespace triton_jit::detail
