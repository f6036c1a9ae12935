#include "decorators/autotuner.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "cache/bundle.h"
#include "common/env.h"
#include "common/hash.h"
#include "common/log.h"
#include "common/settings.h"
#include "triton_jit/errors.h"
#include "variants/tensor_descriptors.h"
#include "variants/variant_builder.h"

// Note [Autotuning]
// As Triton's Autotuner does: the key is the values of the `key` arguments and the dtypes of the
// tensor arguments; a new key benchmarks every config left after prune_configs_by (its
// early_config_prune and perf_model run in Python, with tensors described by dtype, element size
// and address) and keeps the one with the smallest (median, 20th, 80th percentile) time, each
// measured as triton.testing.do_bench measures. Configs that fail to compile or load (too much
// shared memory, too many registers) are skipped, as Triton skips them.
// Unlike Triton, tuning never changes the caller's data: the tensors named by reset_to_zero and
// restore_value are saved first, zeroed (reset_to_zero) before every benchmarked run and restored
// (restore_value) after it, as Triton's hooks do, and all of them are put back before the real
// launch. The choice is kept per key and device (in memory), and per key and kind of device, with
// the kernel's sources, configs and Triton's version, in the persistent cache and bundles.

namespace triton_jit::detail {
namespace {

using Clock = std::chrono::steady_clock;

constexpr double kInfinity = std::numeric_limits<double>::infinity();

std::vector<uint64_t> persisted_key(const VariantKey& key) {
  return std::vector<uint64_t>(key.words + 1, key.words + key.size);  // without the device index
}

// One config being tried: its call, encoded, and its kernel loaded on the device.
struct Trial {
  int config = 0;
  PreparedCall call;
  std::vector<ArgSlot> nested;  // a call with tuples: its parameters as nested slots again
  ResolvedOptions options;
  EncodedCall encoded;
  const Variant* variant = nullptr;
  const ActiveBackend::Kernel* kernel = nullptr;
  std::array<double, 3> times{kInfinity, kInfinity, kInfinity};
  std::string failure;
};

struct Snapshot {
  void* data;
  void* saved;
  std::size_t bytes;
  bool zero;              // reset_to_zero: zeroed before each run
  bool restore_each_run;  // restore_value: restored after each run
};

struct RunContext {
  Trial* trial;
  const std::vector<Snapshot>* snapshots;
  const KernelSignature* sig;
};

void run_trial(void* context) {
  auto& c = *static_cast<RunContext*>(context);
  Trial& t = *c.trial;
  const Stream stream = t.call.config.stream;
  for (const auto& s : *c.snapshots) {
    if (s.zero) ActiveBackend::fill_zero(s.data, s.bytes, stream);
  }
  // As Triton's benchmark runs them: the config's pre_hook, the autotuner's pre_hook, the
  // kernel, the autotuner's post_hook (Note [Config hooks]).
  const AutotuneSpec& a = *c.sig->decorators.autotune;
  if (t.call.launch_hook != nullptr) write_hooked(*c.sig, *t.call.launch_hook, t.call);
  if (a.pre_hook.writes_memory()) write_hooked(*c.sig, a.pre_hook, t.call);
  ActiveBackend::launch(*t.kernel, t.call.config, t.encoded.params, t.encoded.num_kernel_params,
                        &t.encoded.cells[t.encoded.num_kernel_params]);
  if (a.post_hook.writes_memory()) write_hooked(*c.sig, a.post_hook, t.call);
  for (const auto& s : *c.snapshots) {
    if (s.restore_each_run) ActiveBackend::copy(s.data, s.saved, s.bytes, stream);
  }
}

// Saves the tensors tuning may change, and puts them back when it ends (however it ends).
class Snapshots {
 public:
  Snapshots(FunctionState& f, const PreparedCall& call, int device) : device_(device), stream_(call.config.stream) {
    const AutotuneSpec& a = *f.sig.decorators.autotune;
    // zero: reset_to_zero; restore_each: restore_value; neither: a tensor a hook writes, put back
    // when tuning ends.
    auto add = [&](std::size_t p, bool zero, bool restore_each) {
      for (auto& s : list_) {
        if (s.data == call.slots[p].value.p) {
          s.zero = s.zero || zero;
          s.restore_each_run = s.restore_each_run || restore_each;
          return;
        }
      }
      const ArgSlot& slot = call.slots[p];
      // An optional tensor left out (None, its use gated by a constexpr flag) has nothing to save:
      // Triton's own hooks since triton-lang/triton#10295, and fla's autotuner before that, skip it.
      if (slot.kind == ArgKind::kNone) return;
      if (slot.kind != ArgKind::kPointer) {
        throw ValueError(fmt::format("{}: argument '{}' of {} is not a tensor", f.sig.name, f.sig.params[p].name,
                                     zero           ? "reset_to_zero"
                                     : restore_each ? "restore_value"
                                                    : "a hook's zero_ or copy_"));
      }
      if (slot.extent == 0) {
        throw ValueError(
            fmt::format("{}: tuning must save argument '{}' ({}), and its size is unknown: pass a tensor, or "
                        "triton_jit::device_pointer(ptr, dtype, device, bytes)",
                        f.sig.name, f.sig.params[p].name,
                        zero           ? "reset_to_zero"
                        : restore_each ? "restore_value"
                                       : "a hook's zero_ or copy_"));
      }
      void* saved = ActiveBackend::allocate(device, slot.extent);
      list_.push_back(Snapshot{const_cast<void*>(slot.value.p), saved, slot.extent, zero, restore_each});
      ActiveBackend::copy(saved, slot.value.p, slot.extent, stream_);
    };
    for (std::size_t p : a.reset_to_zero) add(p, true, false);
    for (std::size_t p : a.restore_value) add(p, false, true);
    auto written_by = [&](const HookProgram& hook) {
      for (const auto& action : hook.actions()) {
        if (action.kind != HookProgram::Kind::kBlockShape && call.slots[action.param].kind == ArgKind::kPointer) {
          add(action.param, false, false);
        }
      }
    };
    for (const auto& c : a.configs) written_by(c.pre_hook);
    written_by(a.pre_hook);
    written_by(a.post_hook);
  }
  ~Snapshots() {
    for (const auto& s : list_) {
      try {
        ActiveBackend::copy(s.data, s.saved, s.bytes, stream_);
      } catch (...) {  // the launch that follows reports the driver's state
      }
      ActiveBackend::release(device_, s.saved);  // waits for the copy (cuMemFree synchronises)
    }
  }
  Snapshots(const Snapshots&) = delete;
  Snapshots& operator=(const Snapshots&) = delete;
  const std::vector<Snapshot>& list() const { return list_; }

 private:
  int device_;
  Stream stream_;
  std::vector<Snapshot> list_;
};

bool faster(const std::array<double, 3>& a, const std::array<double, 3>& b) { return a < b; }

// Runs the decorators inside the autotuner for one config and encodes its call; finds its
// variant when it is already built. A failure is recorded, not thrown.
void prepare_trial(FunctionState& f, DecoratorState& d, const PreparedCall& call, std::size_t after, int device,
                   Trial& t) {
  copy_call(f.sig, call, t.call);
  apply_config(f.sig, t.config, t.call);
  try {
    run_decorators(f, d, t.call, after, device);
    if (t.call.config.grid_fn != nullptr) {
      t.call.config.grid = t.call.config.grid_fn(LaunchMeta(&f.sig, t.call.slots, f.sig.params.size(), t.call.config),
                                                 t.call.config.grid_data);
    }
    t.options = f.resolve(t.call.config, ActiveBackend::device_target(device));
    if (t.call.tuples.slots != nullptr) {
      t.nested.resize(kMaxNestedSlots);
      t.nested.resize(nest_tuples(f.sig, t.call.slots, t.call.tuples.slots, t.call.tuples.count, t.nested.data()));
      encode_call_nested(f.sig, t.options, t.nested.data(), t.nested.size(), device, t.encoded);
    } else {
      encode_call(f.sig, t.options, t.call.slots, f.sig.params.size(), device, t.encoded);
    }
    t.variant = f.cache.find(t.encoded.key);
  } catch (const CompileError& e) {
    t.failure = e.what();
  } catch (const ValueError& e) {  // over the device's shared memory, threads or registers
    t.failure = e.what();
  }
}

// Builds (compiles, or reads from the cache) the variant of a prepared trial.
void build_trial(FunctionState& f, Trial& t) {
  try {
    const CallArgs args = t.nested.empty() ? CallArgs{t.call.slots, f.sig.params.size()}
                                           : CallArgs{t.nested.data(), t.nested.size(), true};
    t.variant = find_or_build_variant(f, t.options, t.encoded.key, args);
  } catch (const CompileError& e) {
    t.failure = e.what();
  } catch (const ValueError& e) {
    t.failure = e.what();
  }
}

// How many configs compile at once: TRITON_JIT_COMPILE_THREADS, else one per core up to 8.
std::size_t compile_threads() {
  const std::string set = env_or("TRITON_JIT_COMPILE_THREADS", "");
  if (!set.empty()) {
    char* end = nullptr;
    const long n = std::strtol(set.c_str(), &end, 10);
    if (end != set.c_str() && *end == '\0' && n >= 1) return static_cast<std::size_t>(std::min(n, 64L));
    throw ValueError(fmt::format("TRITON_JIT_COMPILE_THREADS='{}': expected a positive number of threads", set));
  }
  return std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1, 8);
}

// Note [Compiling configs at once]
// Triton's Autotuner compiles each config when it first benchmarks it, one after another. Here
// the configs not yet built compile on up to compile_threads() threads at once: Triton releases
// the GIL while LLVM and ptxas run, so the compiles overlap, and tuning a new key takes about
// as long as its slowest config's compile plus the benchmarks. The calling thread waits without
// the GIL; each worker takes it as the compile script needs it. Loading and benchmarking stay
// on the calling thread, in config order.
void build_trials(FunctionState& f, std::vector<std::unique_ptr<Trial>>& trials) {
  std::vector<Trial*> pending;
  for (auto& t : trials) {
    if (t->failure.empty() && t->variant == nullptr) pending.push_back(t.get());
  }
  const std::size_t workers = std::min(pending.size(), compile_threads());
  if (workers <= 1) {
    for (Trial* t : pending) build_trial(f, *t);
    return;
  }
  std::atomic<std::size_t> next{0};
  std::mutex error_mutex;
  std::exception_ptr error;  // not a compile failure: rethrown once every worker is done
  auto work = [&] {
    for (std::size_t i = next.fetch_add(1); i < pending.size(); i = next.fetch_add(1)) {
      try {
        build_trial(f, *pending[i]);
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (!error) error = std::current_exception();
      }
    }
  };
  run_without_gil([&] {
    std::vector<std::thread> threads;
    for (std::size_t w = 0; w < workers; ++w) threads.emplace_back(work);
    for (auto& t : threads) t.join();
  });
  if (error) std::rethrow_exception(error);
}

std::unique_ptr<TuningChoice> tune(FunctionState& f, DecoratorState& d, const PreparedCall& call, int device,
                                   const VariantKey& key, const std::string& device_name) {
  const AutotuneSpec& a = *f.sig.decorators.autotune;
  if (ActiveBackend::capturing(device, call.config.stream)) {
    throw Error(fmt::format(
        "{}: tuning key ({}) is not tuned yet, and the launch stream is capturing a CUDA graph, where configs "
        "cannot be timed; tune it before the capture: prepare() (or one launch) with the same arguments, or a "
        "bundle that holds the key",
        f.sig.name, tuning_key_text(f.sig, call)));
  }
  const auto started = Clock::now();
  const std::size_t after = autotune_step(f.sig) + 1;
  std::vector<std::unique_ptr<Trial>> trials;
  for (int c : candidate_configs(f, call, device)) {
    auto t = std::make_unique<Trial>();
    t->config = c;
    prepare_trial(f, d, call, after, device, *t);
    trials.push_back(std::move(t));
  }
  build_trials(f, trials);
  for (auto& t : trials) {
    if (t->variant == nullptr) continue;
    try {
      t->kernel = t->variant->loaded[device].load(std::memory_order_acquire);
      if (t->kernel == nullptr) t->kernel = load_on_device(f, *t->variant, device);
      if (t->encoded.num_descriptors != 0) expand_descriptors(t->variant->metadata, t->encoded);
    } catch (const ValueError& e) {  // over the device's shared memory, threads or registers
      t->failure = e.what();
    }
  }
  const auto compiled = Clock::now();
  {
    Snapshots snapshots(f, call, device);
    for (auto& t : trials) {
      if (t->kernel == nullptr) continue;
      RunContext context{t.get(), &snapshots.list(), &f.sig};
      t->times = ActiveBackend::benchmark(device, t->call.config.stream, &run_trial, &context, a.warmup_ms, a.rep_ms);
    }
  }
  f.tunings.fetch_add(1, std::memory_order_relaxed);
  const Trial* best = nullptr;
  std::string failures;
  for (const auto& t : trials) {
    if (t->kernel == nullptr)
      failures += fmt::format("\n  config {} ({}): {}", t->config, a.configs[t->config].text, t->failure);
    if (t->kernel != nullptr && (best == nullptr || faster(t->times, best->times))) best = t.get();
  }
  const std::string key_text = tuning_key_text(f.sig, call);
  if (best == nullptr) {
    throw Error(fmt::format("{}: no config could be compiled and run for key ({}):{}", f.sig.name, key_text, failures));
  }
  std::vector<double> milliseconds(a.configs.size(), kInfinity);
  std::string report;
  for (const auto& t : trials) {
    milliseconds[t->config] = t->times[0];
    report += fmt::format("\n  config {} ({}): {}", t->config, a.configs[t->config].text,
                          t->kernel ? fmt::format("{:.4f} ms", t->times[0]) : "failed");
  }
  const double seconds = std::chrono::duration<double>(Clock::now() - started).count();
  log(LogLevel::kInfo, "{}: tuned key ({}) on {} in {:.2f} s (compile and load {:.2f} s): config {}{}", f.sig.name,
      key_text, device_name, seconds, std::chrono::duration<double>(compiled - started).count(), best->config, report);
  Provenance provenance = f.provenance;
  provenance.environment = compiler_environment_digest();
  TuningEntry entry{EntryHeader{f.id.identity, f.id.portable, f.sig.name, std::move(provenance)},
                    persisted_key(key),
                    device_name,
                    a.configs_digest,
                    best->config,
                    milliseconds};
  store_tuning(f.id, entry);
  record_bundle_entry(f.id.bundle_dir, tuning_file_name(entry.key, device_name, entry.configs), serialize_tuning(entry),
                      f.sig.name);
  return std::make_unique<TuningChoice>(key, best->config, "tuned", best->times[0]);
}

std::unique_ptr<TuningChoice> resolve(FunctionState& f, DecoratorState& d, const PreparedCall& call, int device,
                                      const VariantKey& key) {
  const AutotuneSpec& a = *f.sig.decorators.autotune;
  const bool offline = hot_settings().offline.load(std::memory_order_relaxed);
  const std::string device_name = ActiveBackend::device_name(device);
  if (auto stored = load_tuning(f.id, persisted_key(key), device_name, a.configs_digest, offline)) {
    const int config = stored->entry.config;
    if (config >= 0 && static_cast<std::size_t>(config) < a.configs.size()) {
      record_bundle_entry(f.id.bundle_dir, tuning_file_name(stored->entry.key, device_name, a.configs_digest),
                          serialize_tuning(stored->entry), f.sig.name);
      return std::make_unique<TuningChoice>(key, config, stored->source == EntrySource::kBundle ? "bundle" : "cache",
                                            stored->entry.milliseconds[static_cast<std::size_t>(config)]);
    }
  }
  if (offline) {
    const int fallback = hot_settings().autotune_fallback.load(std::memory_order_relaxed);
    if (fallback >= 0 && static_cast<std::size_t>(fallback) < a.configs.size()) {
      log(LogLevel::kWarn, "{}: key ({}) was never tuned on {}; using config {} (the fallback) in offline mode",
          f.sig.name, tuning_key_text(f.sig, call), device_name, fallback);
      return std::make_unique<TuningChoice>(key, fallback, "fallback", 0.0);
    }
    throw Error(fmt::format(
        "{}: no tuned config for key ({}) on {}, and tuning is disabled (offline mode). Tune it: run the same call "
        "once online with the same TRITON_JIT_CACHE_DIR, or record a bundle (TRITON_JIT_RECORD_BUNDLE) of such a run; "
        "or set TRITON_JIT_AUTOTUNE_FALLBACK=first (or a config index) to use a config untuned",
        f.sig.name, tuning_key_text(f.sig, call), device_name));
  }
  return tune(f, d, call, device, key, device_name);
}

const TuningChoice* tune_new_key(FunctionState& f, DecoratorState& d, const PreparedCall& call, int device,
                                 const VariantKey& key) {
  return d.tuning.run(
      f.mutex, key, [&] { return d.tuned.find(key); }, [&] { return resolve(f, d, call, device, key); },
      [&](std::unique_ptr<TuningChoice> made) -> const TuningChoice* {
        if (!made) return nullptr;
        const TuningChoice* known = d.tuned.find(key);
        return known != nullptr ? known : d.tuned.insert(std::move(made));
      });
}

}  // namespace

void copy_call(const KernelSignature& sig, const PreparedCall& from, PreparedCall& to) {
  for (std::size_t i = 0; i < sig.params.size() + kOptionSlots; ++i) std::construct_at(&to.slots[i], from.slots[i]);
  to.config = from.config;
  to.launch_hook = from.launch_hook;
  to.tuples = from.tuples;
  // Descriptors a hook set point into the call that owns them: the copy gets its own.
  for (uint8_t d = 0; d < from.descriptors.count; ++d)
    std::construct_at(&to.descriptors.items[d], from.descriptors.items[d]);
  to.descriptors.count = from.descriptors.count;
  for (std::size_t i = 0; i < sig.params.size(); ++i) {
    if (to.slots[i].kind == ArgKind::kTensorDescriptor && from.descriptors.owns(to.slots[i].value.p)) {
      to.slots[i].value.p =
          &to.descriptors.items[static_cast<const TensorDescriptor*>(to.slots[i].value.p) - from.descriptors.items];
    }
  }
}

namespace {
[[noreturn]] __attribute__((noinline, cold)) void throw_tuple_key(const KernelSignature& sig, std::size_t p) {
  throw TypeError(
      fmt::format("{}: @triton.autotune's key names '{}', which is passed a tuple; a tuning key of "
                  "tuples is not supported (key on its scalar parameters instead)",
                  sig.name, sig.params[p].name));
}
}  // namespace

void tuning_key(const KernelSignature& sig, const PreparedCall& call, int device, VariantKey& key) {
  uint32_t w = 0;
  key.words[w++] = static_cast<uint64_t>(device);
  for (std::size_t p : sig.decorators.autotune->key_params) {
    const ArgSlot& s = call.slots[p];
    if (s.kind == ArgKind::kTuple) [[unlikely]]
      throw_tuple_key(sig, p);
    key.words[w++] = static_cast<uint64_t>(s.kind) | (static_cast<uint64_t>(s.dtype) << 8);
    if (s.kind == ArgKind::kString || s.kind == ArgKind::kExpression) {
      const Digest d = digest(s.value.s, s.size);
      key.words[w++] = d.high;
      key.words[w++] = d.low;
    } else if (s.kind == ArgKind::kJitFunction) {
      const auto& k = static_cast<const JitFunctionArg*>(s.value.p)->key();
      key.words[w++] = k[0];
      key.words[w++] = k[1];
    } else if (s.kind != ArgKind::kPointer && s.kind != ArgKind::kNone) {
      key.words[w++] = s.value.u;
    }
  }
  // The dtype of every tensor argument, eight to a word.
  uint64_t packed = 0;
  unsigned in_word = 0;
  for (std::size_t i = 0; i < sig.params.size(); ++i) {
    if (call.slots[i].kind != ArgKind::kPointer) continue;
    packed |= static_cast<uint64_t>(call.slots[i].dtype) << (8 * in_word);
    if (++in_word == 8) {
      key.words[w++] = packed;
      packed = 0;
      in_word = 0;
    }
  }
  key.words[w++] = packed | (uint64_t{in_word} << 60);
  key.size = w;
  key.finish();
}

std::string tuning_key_text(const KernelSignature& sig, const PreparedCall& call) {
  std::string text;
  for (std::size_t p : sig.decorators.autotune->key_params) {
    const ArgSlot& s = call.slots[p];
    std::string value;
    switch (s.kind) {
      case ArgKind::kInt:
        value = std::to_string(s.value.i);
        break;
      case ArgKind::kUInt:
        value = std::to_string(s.value.u);
        break;
      case ArgKind::kFloat:
        value = fmt::format("{}", s.value.f);
        break;
      case ArgKind::kBool:
        value = s.value.i ? "True" : "False";
        break;
      case ArgKind::kString:
        value = fmt::format("'{}'", std::string_view(s.value.s, s.size));
        break;
      case ArgKind::kExpression:
        value = std::string(s.value.s, s.size);
        break;
      case ArgKind::kJitFunction:
        value = static_cast<const JitFunctionArg*>(s.value.p)->label();
        break;
      case ArgKind::kPointer:
        value = fmt::format("*{}", dtype_name(s.dtype));
        break;
      default:
        value = "None";
    }
    text += (text.empty() ? "" : ", ") + sig.params[p].name + "=" + value;
  }
  for (std::size_t i = 0; i < sig.params.size(); ++i) {
    if (call.slots[i].kind == ArgKind::kPointer)
      text += (text.empty() ? "*" : ", *") + std::string(dtype_name(call.slots[i].dtype));
  }
  return text;
}

int choose_config(FunctionState& f, DecoratorState& d, const PreparedCall& call, int device) {
  const AutotuneSpec& a = *f.sig.decorators.autotune;
  const int forced = d.forced_config.load(std::memory_order_relaxed);
  if (forced >= 0) return forced;
  if (a.configs.size() == 1 || !hot_settings().autotune.load(std::memory_order_relaxed)) return 0;
  VariantKey key;
  tuning_key(f.sig, call, device, key);
  // The last key's choice first: it is one cache line, where the table is three.
  const TuningChoice* last = d.last_choice.load(std::memory_order_acquire);
  if (last != nullptr && last->key == key) [[likely]]
    return last->config;
  const TuningChoice* c = d.tuned.find(key);
  if (c == nullptr) [[unlikely]]
    c = tune_new_key(f, d, call, device, key);
  d.last_choice.store(c, std::memory_order_release);
  return c->config;
}

std::optional<AutotuneChoice> known_choice(FunctionState& f, DecoratorState& d, const PreparedCall& call, int device) {
  const AutotuneSpec& a = *f.sig.decorators.autotune;
  auto choice = [&](int config, std::string source, double ms) {
    return AutotuneChoice{config, a.configs[static_cast<std::size_t>(config)].text, std::move(source), ms};
  };
  if (const int forced = d.forced_config.load(std::memory_order_relaxed); forced >= 0)
    return choice(forced, "forced", 0);
  if (a.configs.size() == 1) return choice(0, "single config", 0);
  if (!hot_settings().autotune.load(std::memory_order_relaxed)) return choice(0, "autotune off", 0);
  VariantKey key;
  tuning_key(f.sig, call, device, key);
  if (const TuningChoice* c = d.tuned.find(key)) return choice(c->config, c->source, c->milliseconds);
  if (!ActiveBackend::available()) return std::nullopt;
  const std::string device_name = ActiveBackend::device_name(device);
  if (auto stored = load_tuning(f.id, persisted_key(key), device_name, a.configs_digest,
                                hot_settings().offline.load(std::memory_order_relaxed))) {
    const int config = stored->entry.config;
    if (config >= 0 && static_cast<std::size_t>(config) < a.configs.size()) {
      return choice(config, stored->source == EntrySource::kBundle ? "bundle" : "cache", 0);
    }
  }
  return std::nullopt;
}

// Note [Persisted prunes]
// Triton's Autotuner runs prune_configs_by once per tuning key, when it tunes that key. Its
// result is stored like the key's choice (same key, the configs' digest, device kPruneRecord), so
// that a later process, offline or without a GPU to tune on, warms up the same configs without
// Python; a bundle recorded while pruning carries it too.
std::vector<int> candidate_configs(FunctionState& f, const PreparedCall& call, int device) {
  const AutotuneSpec& a = *f.sig.decorators.autotune;
  std::vector<int> all;
  for (std::size_t i = 0; i < a.configs.size(); ++i) all.push_back(static_cast<int>(i));
  if (!a.prune) return all;
  VariantKey key;
  tuning_key(f.sig, call, device, key);
  const bool offline = hot_settings().offline.load(std::memory_order_relaxed);
  auto in_range = [&](const std::vector<int>& kept) {
    return !kept.empty() && std::all_of(kept.begin(), kept.end(), [&](int i) {
      return i >= 0 && static_cast<std::size_t>(i) < a.configs.size();
    });
  };
  if (auto stored = load_tuning(f.id, persisted_key(key), kPruneRecord, a.configs_digest, offline);
      stored && in_range(stored->entry.kept)) {
    record_bundle_entry(f.id.bundle_dir, tuning_file_name(stored->entry.key, kPruneRecord, a.configs_digest),
                        serialize_tuning(stored->entry), f.sig.name);
    return stored->entry.kept;
  }
  if (offline) {
    throw Error(
        fmt::format("{}: prune_configs_by runs in Python, which offline mode does not use, and no cache or "
                    "bundle holds its result for key ({}); warm up or tune that key once with compiling on",
                    f.sig.name, tuning_key_text(f.sig, call)));
  }
  const std::string kept = compiler_bridge().prune_configs(f.location, a.decorator, arguments_json(f.sig, call));
  auto j = nlohmann::json::parse(kept, nullptr, false);
  std::vector<int> out;
  if (j.is_array()) {
    for (const auto& i : j) {
      if (i.is_number_unsigned() && i.get<uint64_t>() < a.configs.size())
        out.push_back(static_cast<int>(i.get<uint64_t>()));
    }
  }
  if (out.empty()) throw Error(fmt::format("{}: prune_configs_by kept no config", f.sig.name));
  Provenance provenance = f.provenance;
  provenance.environment = compiler_environment_digest();
  TuningEntry entry{EntryHeader{f.id.identity, f.id.portable, f.sig.name, std::move(provenance)},
                    persisted_key(key),
                    kPruneRecord,
                    a.configs_digest,
                    out.front(),
                    {},
                    out};
  store_tuning(f.id, entry);
  record_bundle_entry(f.id.bundle_dir, tuning_file_name(entry.key, kPruneRecord, entry.configs),
                      serialize_tuning(entry), f.sig.name);
  return out;
}

}  // namespace triton_jit::detail
