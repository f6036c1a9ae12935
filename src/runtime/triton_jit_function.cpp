// TritonJITFunction: get_instance, the launch hot path, warmup and accessors. Everything that
// runs once per variant or per function is in variant_builder.cpp.
#include "triton_jit/triton_jit_function.h"

#include "triton_jit/compile_options.h"

#include <fmt/format.h>

#include <algorithm>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>

#include "common/env.h"
#include "common/fork_guard.h"
#include "common/settings.h"
#include "runtime/function.h"
#include "triton_jit/errors.h"
#include "variants/single_flight.h"
#include "variants/tensor_descriptors.h"
#include "variants/variant_builder.h"

namespace triton_jit {

using detail::ActiveBackend;
using detail::EncodedCall;
using detail::kMaxDevices;
using detail::ResolvedOptions;
using detail::Variant;

namespace {

// Compile targets per device, read from the driver once.
std::atomic<uint32_t> g_device_targets[kMaxDevices];  // arch | specific << 16 | known << 31

[[noreturn]] __attribute__((noinline, cold)) void throw_device_range(const std::string& kernel, int device) {
  throw ValueError(
      fmt::format("{}: device {} is not a device triton_jit can launch on (0 to {})", kernel, device, kMaxDevices - 1));
}

Target device_target(const std::string& kernel, int device) {
  if (device < 0 || device >= kMaxDevices) [[unlikely]]
    throw_device_range(kernel, device);
  uint32_t packed = g_device_targets[device].load(std::memory_order_relaxed);
  if (packed & 0x80000000u) [[likely]] {
    return Target{static_cast<int>(packed & 0xFFFF), (packed & 0x10000u) != 0,
                  (packed & 0x20000u) != 0 ? Vendor::kHip : Vendor::kCuda};
  }
  Target t = ActiveBackend::device_target(device);
  g_device_targets[device].store(static_cast<uint32_t>(t.arch) | (t.arch_specific ? 0x10000u : 0u) |
                                     (t.vendor == Vendor::kHip ? 0x20000u : 0u) | 0x80000000u,
                                 std::memory_order_relaxed);
  return t;
}

int first_tensor_device(const ArgSlot* args, std::size_t n) noexcept {
  for (std::size_t i = 0; i < n; ++i) {
    if ((args[i].kind == ArgKind::kPointer || args[i].kind == ArgKind::kTensorDescriptor) && args[i].device >= 0) {
      return args[i].device;
    }
  }
  return -1;
}

// The registry of functions, and the functions being built (one builder per key; the others
// wait). Never destroyed.
struct Registry {
  using Key = std::pair<std::string, std::string>;
  std::mutex mutex;                             // held across fork()
  std::map<Key, TritonJITFunction*> functions;  // guarded by mutex
  detail::SingleFlight<Key, TritonJITFunction> building;
};

void abandon_pending(void* arg) { static_cast<Registry*>(arg)->building.abandon(); }

Registry& registry() {
  static Registry* r = [] {
    auto* made = new Registry();
    detail::guard_across_fork(made->mutex, detail::LockLevel::kRegistry);
    detail::on_fork_child(&abandon_pending, made);
    return made;
  }();
  return *r;
}

}  // namespace

TritonJITFunction& TritonJITFunction::get_instance(std::string_view path, std::string_view name) {
  // The file system would read a path only up to a NUL: "k.py\0junk" must not load k.py.
  if (path.find('\0') != std::string_view::npos || name.find('\0') != std::string_view::npos) {
    throw ValueError(fmt::format("TritonJITFunction::get_instance: the {} contains a NUL byte",
                                 path.find('\0') != std::string_view::npos ? "path" : "function name"));
  }
  Registry& r = registry();
  const Registry::Key key(path, name);
  return *r.building.run(
      r.mutex, key,
      [&]() -> TritonJITFunction* {
        auto it = r.functions.find(key);
        return it == r.functions.end() ? nullptr : it->second;
      },
      [&] {
        auto made = std::make_unique<Impl>();
        detail::build_function(*made, path, name);
        made->decorated.configure(made->sig);
        detail::guard_function_across_fork(*made);
        return new TritonJITFunction(made.release());  // never destroyed
      },
      [&](TritonJITFunction* made) {
        r.functions.emplace(key, made);
        return made;
      });
}

namespace {

int launch_device(const LaunchConfig& config, const ArgSlot* args, std::size_t num_args) {
  // Note [Launch device]: LaunchConfig.device, else the device of the tensor arguments, else the
  // calling thread's current device. Asking the driver costs more than the rest of a cache hit
  // on the H200 VMs, so it is the last resort. The encoder checks every tensor against it.
  int device = config.device >= 0 ? config.device : first_tensor_device(args, num_args);
  return device >= 0 ? device : ActiveBackend::current_device();
}

// Each parameter's slot (a tuple's header slot) of a nested call, defaults after the caller's,
// for a grid function.
__attribute__((noinline)) void top_level_slots(const TritonJITFunction::Impl& f, const ArgSlot* slots,
                                               std::size_t num_slots, ArgSlot* out) {
  const std::size_t given = detail::top_level_arguments(f.sig, slots, num_slots, out);
  for (std::size_t i = given; i < f.sig.params.size(); ++i)
    std::construct_at(&out[i], detail::argument_or_default(f.sig, slots, 0, i));
}

// A remembered call whose variant is missing (rare: the memo keeps the variant of the calls it
// answers): the compile needs the parameters in one array, the caller's then the decorators'.
__attribute__((noinline, cold)) const Variant* build_remembered(TritonJITFunction::Impl& f, const ResolvedOptions& o,
                                                                const detail::VariantKey& key, const ArgSlot* args,
                                                                std::size_t n, const ArgSlot* rest) {
  auto call = std::make_unique<detail::PreparedCall>();
  for (std::size_t i = 0; i < n; ++i) std::construct_at(&call->slots[i], args[i]);
  for (std::size_t i = n; i < f.sig.params.size(); ++i) std::construct_at(&call->slots[i], rest[i - n]);
  return detail::find_or_build_variant(f, o, key, detail::CallArgs{call->slots, f.sig.params.size()});
}

// The launch of a call whose arguments are final (no decorator left to run); returns the variant
// it launched. Nested: the slots include tuples (TritonJITFunction::launch_nested). Remembered: a
// decorated call whose decorators' results come from the memo: parameters [num_args, end) are
// `rest`, the options are `chosen`, and `known` is the variant when the memo kept it (Note
// [Decorated call memo]). Inlined into each entry (Note [One frame to the driver]).
template <bool Nested, bool Remembered = false>
__attribute__((always_inline)) inline const Variant* launch_bound(TritonJITFunction::Impl& f, const LaunchConfig& given,
                                                                  const ArgSlot* args, std::size_t num_args, int device,
                                                                  const ArgSlot* rest = nullptr,
                                                                  const detail::LaunchDefaults* chosen = nullptr,
                                                                  const Variant* known = nullptr) {
  EncodedCall call;
  const Variant* v;
  if (Remembered && known != nullptr) [[likely]] {
    detail::encode_params_split(f.sig, args, num_args, rest, device, call);
    v = known;
  } else {
    const ResolvedOptions options = f.resolve(given, device_target(f.sig.name, device), Remembered ? chosen : nullptr);
    if constexpr (Nested) {
      detail::encode_call_nested(f.sig, options, args, num_args, device, call);
    } else if constexpr (Remembered) {
      detail::encode_call_split(f.sig, options, args, num_args, rest, device, call);
    } else {
      detail::encode_call(f.sig, options, args, num_args, device, call);
    }
    v = f.cache.find(call.key);
    if (v == nullptr) [[unlikely]] {
      if constexpr (Remembered) {
        v = build_remembered(f, options, call.key, args, num_args, rest);
      } else {
        v = detail::find_or_build_variant(f, options, call.key, detail::CallArgs{args, num_args, Nested});
      }
    }
  }
  const ActiveBackend::Kernel* k = v->loaded[device].load(std::memory_order_acquire);
  if (k == nullptr) [[unlikely]]
    k = detail::load_on_device(f, *v, device);
  if (call.num_descriptors != 0) [[unlikely]]
    detail::expand_descriptors(v->metadata, call);
  detail::HotSettings& settings = detail::hot_settings();
  if (settings.stats.load(std::memory_order_relaxed)) [[unlikely]] {
    f.hits.fetch_add(1, std::memory_order_relaxed);
    if (Remembered && known != nullptr) f.remembered.fetch_add(1, std::memory_order_relaxed);
  }
  const LaunchConfig* config = &given;
  LaunchConfig computed;
  if (given.grid_fn != nullptr) [[unlikely]] {
    computed = given;
    if constexpr (Nested) {
      union TopLevel {  // constructed as top_level_slots fills it: no clear of 128 slots a call
        TopLevel() noexcept {}
        ArgSlot slots[detail::kMaxParams];
      } params;
      top_level_slots(f, args, num_args, params.slots);
      computed.grid = given.grid_fn(LaunchMeta(&f.sig, params.slots, f.sig.params.size(), given), given.grid_data);
    } else if constexpr (Remembered) {
      computed.num_warps = chosen->num_warps;
      computed.num_stages = chosen->num_stages;
      computed.num_ctas = chosen->num_ctas;
      computed.maxnreg = chosen->maxnreg;
      computed.grid = given.grid_fn(LaunchMeta(&f.sig, args, num_args, rest, computed), given.grid_data);
    } else {
      computed.grid = given.grid_fn(LaunchMeta(&f.sig, args, num_args, given), given.grid_data);
    }
    config = &computed;
  }
  const detail::LaunchHooks* hooks = settings.hooks.load(std::memory_order_acquire);
  if (hooks == nullptr) [[likely]] {
    ActiveBackend::launch(*k, *config, call.params, call.num_kernel_params, &call.cells[call.num_kernel_params]);
    return v;
  }
  LaunchInfo info{f.sig.name.c_str(), v->signature_text.c_str(), config->grid, config->stream, device};
  if (hooks->enter) hooks->enter(info, hooks->user_data);
  ActiveBackend::launch(*k, *config, call.params, call.num_kernel_params, &call.cells[call.num_kernel_params]);
  if (hooks->exit) hooks->exit(info, hooks->user_data);
  return v;
}

// Note [One frame to the driver]
// The driver's launch evicts most of what the caller had in cache, its stack included: after it
// returns, every frame on the way back costs a miss on the registers it saved (~10 ns each on
// the H200 VMs). So a hit reaches the driver through one frame of ours and the backend's:
// TritonJITFunction::launch only tail-calls an entry (plain, decorated, nested), and each entry
// has launch_bound inlined. The rarer ways (decorators run, parameters set between the
// caller's) have frames of their own; they are not hits of the kind this saves.

__attribute__((noinline)) void launch_plain(TritonJITFunction::Impl& f, const LaunchConfig& config, const ArgSlot* args,
                                            std::size_t num_args) {
  launch_bound<false>(f, config, args, num_args, launch_device(config, args, num_args));
}

// The decorators run: a call the memo does not know (Note [Decorated calls]). `recall`: the
// call as the memo packed it, to keep; null when the memo cannot take it.
__attribute__((noinline)) void launch_decorators_run(TritonJITFunction::Impl& f, const LaunchConfig& config,
                                                     const ArgSlot* args, std::size_t num_args, int device,
                                                     const detail::Recall* recall) {
  detail::PreparedCall call;
  const bool decorated = f.decorated.run(f, config, args, num_args, device, call);
  detail::DecoratedCalls::before_launch(f.sig, call);
  const Variant* v = launch_bound<false>(f, call.config, call.slots, f.sig.params.size(), device);
  if (decorated && recall != nullptr) f.decorated.remember(*recall, call, v);
}

// A remembered call of a kernel whose decorators set parameters between the caller's: the
// parameters are put in order first.
__attribute__((noinline)) void launch_remembered_interleaved(TritonJITFunction::Impl& f, const LaunchConfig& config,
                                                             const ArgSlot* args, std::size_t num_args, int device,
                                                             const detail::Recall& recall) {
  detail::PreparedCall call;
  f.decorated.interleave(args, num_args, recall, call);
  launch_bound<false, true>(f, config, call.slots, f.sig.params.size(), device, nullptr, &recall.inputs.chosen,
                            recall.known);
}

// A kernel with @triton.heuristics or @triton.autotune. A repeated call takes what the
// decorators set from the memo (Note [Decorated call memo]); the others run them.
static_assert(kMaxDevices <= 64, "the memo's header keeps the launch device in 6 bits");

__attribute__((noinline)) void launch_decorated(TritonJITFunction::Impl& f, const LaunchConfig& config,
                                                const ArgSlot* args, std::size_t num_args) {
  const detail::DecoratedCalls& calls = f.decorated;
  detail::Recall recall;
  if (calls.pack(args, num_args, config, recall)) [[likely]] {
    // Note [Launch device], from what pack() saw.
    int device = config.device >= 0 ? config.device : recall.inputs.first_device;
    if (device < 0) [[unlikely]]
      device = ActiveBackend::current_device();
    if (device >= kMaxDevices) [[unlikely]]
      throw_device_range(f.sig.name, device);
    if (calls.find(recall, device)) [[likely]] {
      if (calls.user_first()) [[likely]] {
        launch_bound<false, true>(f, config, args, num_args, device, recall.outputs.slots, &recall.inputs.chosen,
                                  recall.known);
      } else {
        launch_remembered_interleaved(f, config, args, num_args, device, recall);
      }
      return;
    }
    launch_decorators_run(f, config, args, num_args, device, &recall);
    return;
  }
  const int device = launch_device(config, args, num_args);
  if (device < 0 || device >= kMaxDevices) [[unlikely]]
    throw_device_range(f.sig.name, device);
  launch_decorators_run(f, config, args, num_args, device, nullptr);
}

// A decorated call with tuple arguments (Note [Decorators over tuples]): the decorators run on one
// slot a parameter, every call (the memo packs calls of one slot an argument), and the launch
// takes the parameters nested again.
__attribute__((noinline)) void launch_decorated_with_tuples(TritonJITFunction::Impl& f, const LaunchConfig& config,
                                                            const ArgSlot* slots, std::size_t num_slots) {
  const int device = launch_device(config, slots, num_slots);
  if (device < 0 || device >= kMaxDevices) [[unlikely]]
    throw_device_range(f.sig.name, device);
  union TopLevel {  // constructed as they are filled, as PreparedCall's
    TopLevel() noexcept {}
    ArgSlot slots[detail::kMaxParams];
  } top;
  const std::size_t n = detail::top_level_arguments(f.sig, slots, num_slots, top.slots);
  detail::PreparedCall call;
  f.decorated.run(f, config, top.slots, n, device, call, detail::TupleSource{slots, num_slots});
  detail::DecoratedCalls::before_launch(f.sig, call);
  union Nested {
    Nested() noexcept {}
    ArgSlot slots[detail::kMaxNestedSlots];
  } nested;
  const std::size_t count = detail::nest_tuples(f.sig, call.slots, slots, num_slots, nested.slots);
  launch_bound<true>(f, call.config, nested.slots, count, device);
}

__attribute__((noinline)) void launch_with_tuples(TritonJITFunction::Impl& f, const LaunchConfig& config,
                                                  const ArgSlot* slots, std::size_t num_slots) {
  if (f.sig.decorated()) [[unlikely]]
    return launch_decorated_with_tuples(f, config, slots, num_slots);
  launch_bound<true>(f, config, slots, num_slots, launch_device(config, slots, num_slots));
}

}  // namespace

void TritonJITFunction::launch(const LaunchConfig& config, const ArgSlot* args, std::size_t num_args) const {
  Impl& f = *impl_;
  if (f.sig.decorated()) [[unlikely]]
    return launch_decorated(f, config, args, num_args);
  launch_plain(f, config, args, num_args);
}

void TritonJITFunction::launch_nested(const LaunchConfig& config, const ArgSlot* slots, std::size_t num_slots) const {
  launch_with_tuples(*impl_, config, slots, num_slots);
}

namespace {

// What the variant is; the driver's figures from `device` (or the first device it is loaded on
// when -1), where it is loaded.
VariantInfo info_of(const Variant& v, int device) {
  VariantInfo i;
  i.kernel_name = v.metadata.name;
  i.signature = v.signature_text;
  i.target = v.target;
  i.triton_version = v.metadata.triton_version;
  i.num_warps = v.metadata.num_warps;
  i.num_ctas = v.metadata.num_ctas;
  i.shared_memory = v.metadata.shared;
  i.global_scratch_size = v.metadata.global_scratch_size;
  i.profile_scratch_size = v.metadata.profile_scratch_size;
  i.num_kernel_params = v.num_kernel_params;
  i.cubin = v.binary;
  for (const auto& [stage, text] : v.ir) i.ir.push_back(IRText{stage, text});
  const ActiveBackend::Kernel* loaded = nullptr;
  if (device >= 0) {
    loaded = v.loaded[device].load(std::memory_order_acquire);
  } else {
    for (int d = 0; d < kMaxDevices && loaded == nullptr; ++d) loaded = v.loaded[d].load(std::memory_order_acquire);
  }
  if (loaded != nullptr) {
    const impl::KernelResources r = ActiveBackend::resources(*loaded);
    i.n_regs = r.registers;
    i.n_spills = r.spilled_words;
    i.max_threads_per_block = r.max_threads;
  }
  return i;
}

// The target a warmup compiles for: an explicit TRITON_JIT_TARGET (ahead-of-time builds), else
// the device's, else cuda:90.
Target warmup_target(const std::string& kernel, const LaunchConfig& config) {
  Target target = default_target();
  if (detail::env_or("TRITON_JIT_TARGET", "").empty() && ActiveBackend::available()) {
    target = device_target(kernel, config.device >= 0 ? config.device : ActiveBackend::current_device());
  }
  return target;
}

VariantInfo warmup_bound(TritonJITFunction::Impl& f, const LaunchConfig& config, const detail::CallArgs& args) {
  const ResolvedOptions options = f.resolve(config, warmup_target(f.sig.name, config));
  auto call = std::make_unique<EncodedCall>();
  if (args.nested) {
    detail::encode_call_nested(f.sig, options, args.slots, args.count, /*device_check=*/-1, *call);
  } else {
    detail::encode_call(f.sig, options, args.slots, args.count, /*device_check=*/-1, *call);
  }
  const Variant* v = f.cache.find(call->key);
  if (v == nullptr) v = detail::find_or_build_variant(f, options, call->key, args);
  return info_of(*v, -1);
}

int warmup_device(const LaunchConfig& config) {
  return config.device >= 0 ? config.device : (ActiveBackend::available() ? ActiveBackend::current_device() : 0);
}

// The calls a decorated kernel's warmup compiles: each config worth trying (Triton's
// Autotuner.warmup). `tuples`: the caller's nested slots when `args` holds tuples' headers.
VariantInfo warmup_decorated(TritonJITFunction::Impl& f, const LaunchConfig& config, const ArgSlot* args,
                             std::size_t num_args, detail::TupleSource tuples = {}) {
  std::optional<VariantInfo> first;
  for (const auto& call : f.decorated.warmup_calls(f, config, args, num_args, warmup_device(config), tuples)) {
    VariantInfo info;
    if (tuples.slots != nullptr) {
      std::vector<ArgSlot> nested(detail::kMaxNestedSlots);
      nested.resize(detail::nest_tuples(f.sig, call->slots, tuples.slots, tuples.count, nested.data()));
      info = warmup_bound(f, call->config, detail::CallArgs{nested.data(), nested.size(), true});
    } else {
      info = warmup_bound(f, call->config, detail::CallArgs{call->slots, f.sig.params.size()});
    }
    if (!first) first = std::move(info);
  }
  return *first;
}

}  // namespace

VariantInfo TritonJITFunction::warmup(const LaunchConfig& config, const ArgSlot* args, std::size_t num_args) const {
  Impl& f = *impl_;
  if (!f.sig.decorated()) return warmup_bound(f, config, detail::CallArgs{args, num_args});
  return warmup_decorated(f, config, args, num_args);
}

namespace {

// A call's variant found or built, and loaded on `device`, without the launch.
template <bool Nested>
VariantInfo prepare_bound(TritonJITFunction::Impl& f, const LaunchConfig& config, const ArgSlot* args,
                          std::size_t num_args, int device) {
  const ResolvedOptions options = f.resolve(config, device_target(f.sig.name, device));
  auto call = std::make_unique<EncodedCall>();
  if constexpr (Nested) {
    detail::encode_call_nested(f.sig, options, args, num_args, device, *call);
  } else {
    detail::encode_call(f.sig, options, args, num_args, device, *call);
  }
  const Variant* v = f.cache.find(call->key);
  if (v == nullptr) v = detail::find_or_build_variant(f, options, call->key, detail::CallArgs{args, num_args, Nested});
  if (v->loaded[device].load(std::memory_order_acquire) == nullptr) detail::load_on_device(f, *v, device);
  return info_of(*v, device);
}

int prepare_device(const TritonJITFunction::Impl& f, const LaunchConfig& config, const ArgSlot* args,
                   std::size_t num_args) {
  if (!ActiveBackend::available()) {
    throw Error(
        fmt::format("{}: prepare() loads the kernel on a GPU, and this machine has no usable one; "
                    "warmup() compiles without one",
                    f.sig.name));
  }
  const int device = launch_device(config, args, num_args);
  if (device < 0 || device >= kMaxDevices) [[unlikely]]
    throw_device_range(f.sig.name, device);
  return device;
}

}  // namespace

VariantInfo TritonJITFunction::prepare(const LaunchConfig& config, const ArgSlot* args, std::size_t num_args) const {
  Impl& f = *impl_;
  const int device = prepare_device(f, config, args, num_args);
  if (!f.sig.decorated()) return prepare_bound<false>(f, config, args, num_args, device);
  auto call = std::make_unique<detail::PreparedCall>();
  f.decorated.run(f, config, args, num_args, device, *call);
  return prepare_bound<false>(f, call->config, call->slots, f.sig.params.size(), device);
}

VariantInfo TritonJITFunction::prepare_nested(const LaunchConfig& config, const ArgSlot* slots,
                                              std::size_t num_slots) const {
  Impl& f = *impl_;
  const int device = prepare_device(f, config, slots, num_slots);
  if (!f.sig.decorated()) return prepare_bound<true>(f, config, slots, num_slots, device);
  std::vector<ArgSlot> top(detail::kMaxParams);  // Note [Decorators over tuples]
  top.resize(detail::top_level_arguments(f.sig, slots, num_slots, top.data()));
  auto call = std::make_unique<detail::PreparedCall>();
  f.decorated.run(f, config, top.data(), top.size(), device, *call, detail::TupleSource{slots, num_slots});
  std::vector<ArgSlot> nested(detail::kMaxNestedSlots);
  nested.resize(detail::nest_tuples(f.sig, call->slots, slots, num_slots, nested.data()));
  return prepare_bound<true>(f, call->config, nested.data(), nested.size(), device);
}

VariantInfo TritonJITFunction::warmup_nested(const LaunchConfig& config, const ArgSlot* slots,
                                             std::size_t num_slots) const {
  Impl& f = *impl_;
  if (!f.sig.decorated()) return warmup_bound(f, config, detail::CallArgs{slots, num_slots, true});
  std::vector<ArgSlot> top(detail::kMaxParams);  // Note [Decorators over tuples]
  top.resize(detail::top_level_arguments(f.sig, slots, num_slots, top.data()));
  return warmup_decorated(f, config, top.data(), top.size(), detail::TupleSource{slots, num_slots});
}

std::vector<std::string> TritonJITFunction::autotune_configs() const {
  return detail::DecoratedCalls::configs(impl_->sig);
}

std::optional<AutotuneChoice> TritonJITFunction::autotune_choice(const LaunchConfig& config, const ArgSlot* args,
                                                                 std::size_t num_args) const {
  Impl& f = *impl_;
  return f.decorated.choice(f, config, args, num_args, warmup_device(config));
}

std::optional<AutotuneChoice> TritonJITFunction::autotune_choice_nested(const LaunchConfig& config,
                                                                        const ArgSlot* slots,
                                                                        std::size_t num_slots) const {
  Impl& f = *impl_;
  if (!f.sig.decorated()) return std::nullopt;
  std::vector<ArgSlot> top(detail::kMaxParams);  // Note [Decorators over tuples]
  top.resize(detail::top_level_arguments(f.sig, slots, num_slots, top.data()));
  return f.decorated.choice(f, config, top.data(), top.size(), warmup_device(config),
                            detail::TupleSource{slots, num_slots});
}

void TritonJITFunction::force_autotune_config(int index) { impl_->decorated.force(impl_->sig, index); }

const std::string& TritonJITFunction::name() const noexcept { return impl_->sig.name; }
const std::string& TritonJITFunction::source_file() const noexcept { return impl_->sig.file; }

std::vector<ParamInfo> TritonJITFunction::params() const {
  std::vector<ParamInfo> out;
  const auto& decorated = impl_->sig.decorator_params;
  for (const auto& p : impl_->sig.params) {
    std::string kind = p.is_constexpr  ? "constexpr"
                       : !p.specialize ? "do_not_specialize"
                       : !p.align      ? "do_not_specialize_on_alignment"
                                       : "specialized";
    ParamInfo info{p.name, kind, p.annotation ? detail::token_name(p.annotation) : "", p.has_default};
    if (p.has_default) info.default_value = p.default_value;
    if (p.has_default && !p.default_error.empty()) {
      info.default_value = ArgSlot{};
      info.default_value.kind = ArgKind::kUnsupported;
      info.default_value.value.s = p.default_error.c_str();
    }
    info.set_by_decorators = std::find(decorated.begin(), decorated.end(),
                                       static_cast<std::size_t>(&p - impl_->sig.params.data())) != decorated.end();
    out.push_back(std::move(info));
  }
  return out;
}

FunctionStats TritonJITFunction::stats() const noexcept {
  FunctionStats s;
  s.hits = impl_->hits.load(std::memory_order_relaxed);
  s.remembered = impl_->remembered.load(std::memory_order_relaxed);
  s.load_seconds = static_cast<double>(impl_->load_nanoseconds.load(std::memory_order_relaxed)) * 1e-9;
  s.variant_misses = impl_->misses.load(std::memory_order_relaxed);
  s.compiles = impl_->compiles.load(std::memory_order_relaxed);
  s.tunings = impl_->tunings.load(std::memory_order_relaxed);
  s.compile_seconds = static_cast<double>(impl_->compile_nanoseconds.load(std::memory_order_relaxed)) * 1e-9;
  return s;
}

bool cuda_available() noexcept { return ActiveBackend::available(); }

}  // namespace triton_jit
