#include "triton_jit/triton_jit_function.h"

#include <fmt/format.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>

#include "backend/active_backend.h"
#include "cache/persistent_cache.h"
#include "cache/variant_cache.h"
#include "compiler/compiler_bridge.h"
#include "common/log.h"
#include "compiler/paths.h"
#include "encoding/argument_encoder.h"
#include "encoding/kernel_signature.h"
#include "triton_jit/errors.h"

namespace triton_jit {

using detail::ActiveBackend;
using detail::EncodedCall;
using detail::KernelSignature;
using detail::ResolvedOptions;
using detail::VariantKey;

namespace {

constexpr int kMaxDevices = 64;

// A compiled variant. Immutable once published, except `loaded`, whose slots are filled once
// each (under the function's mutex) and read lock-free.
struct Variant {
  // What a launch reads comes first: the loaded kernels, then the key's hash and words.
  mutable std::atomic<const ActiveBackend::Kernel*> loaded[kMaxDevices] = {};
  const VariantKey key;
  impl::KernelMetadata metadata;
  std::string binary;
  std::string signature_text;
  std::string target;
  int num_kernel_params = 0;

  explicit Variant(const VariantKey& k) : key(k) {}
};

struct InFlight {
  explicit InFlight(const VariantKey& k) : key(k) {}
  const VariantKey key;
  bool done = false;  // guarded by the function's mutex
  const Variant* result = nullptr;
  std::exception_ptr error;
};

double compile_phase_ms(const std::string& metadata_json) {
  try {
    return nlohmann::json::parse(metadata_json).at("phase_seconds").value("compile", 0.0) * 1e3;
  } catch (const nlohmann::json::exception&) {
    return 0.0;
  }
}

impl::KernelMetadata parse_metadata(const std::string& kernel, const std::string& text) {
  impl::KernelMetadata m;
  try {
    auto j = nlohmann::json::parse(text);
    m.name = j.at("name").get<std::string>();
    m.num_warps = j.at("num_warps").get<int>();
    m.num_ctas = j.value("num_ctas", 1);
    m.shared = j.value("shared", 0);
    m.tmem_size = j.value("tmem_size", 0);
    m.global_scratch_size = j.value("global_scratch_size", 0);
    m.global_scratch_align = j.value("global_scratch_align", 1);
    m.profile_scratch_size = j.value("profile_scratch_size", 0);
    m.profile_scratch_align = j.value("profile_scratch_align", 1);
    m.launch_pdl = j.value("launch_pdl", false);
    m.launch_cooperative_grid = j.value("launch_cooperative_grid", false);
    m.arch = j.at("arch").get<std::string>();
    if (j.contains("ptx_version") && j["ptx_version"].is_number()) m.ptx_version = j["ptx_version"].get<int>();
    m.triton_version = j.value("triton_version", std::string());
  } catch (const nlohmann::json::exception& e) {
    throw CompileError(fmt::format("{}: malformed metadata from the compile script: {}", kernel, e.what()));
  }
  return m;
}

std::mutex& search_path_mutex() {
  static auto* m = new std::mutex();
  return *m;
}
std::vector<std::string>& user_search_path() {
  static auto* v = new std::vector<std::string>();  // guarded by search_path_mutex()
  return *v;
}

std::vector<std::string> current_search_path() {
  std::vector<std::string> path;
  {
    std::lock_guard<std::mutex> lock(search_path_mutex());
    path = user_search_path();
  }
  std::string env = detail::env_or("TRITON_JIT_KERNEL_PATH", "");
  for (std::size_t start = 0; start < env.size();) {
    std::size_t end = env.find(':', start);
    if (end == std::string::npos) end = env.size();
    if (end > start) path.push_back(env.substr(start, end - start));
    start = end + 1;
  }
  return path;
}

// Compile targets per device, read from the driver once.
std::atomic<uint32_t> g_device_targets[kMaxDevices];  // arch | specific << 16 | known << 31

Target device_target(int device) {
  uint32_t packed = g_device_targets[device].load(std::memory_order_relaxed);
  if (packed & 0x80000000u) [[likely]] return Target{static_cast<int>(packed & 0xFFFF), (packed & 0x10000u) != 0};
  Target t = ActiveBackend::device_target(device);
  g_device_targets[device].store(static_cast<uint32_t>(t.arch) | (t.arch_specific ? 0x10000u : 0u) | 0x80000000u,
                                 std::memory_order_relaxed);
  return t;
}

struct Hooks {
  LaunchHook enter;
  LaunchHook exit;
  void* user_data;
};
std::atomic<const Hooks*> g_hooks{nullptr};

bool stats_from_environment() {
  const char* v = std::getenv("TRITON_JIT_STATS");
  return v != nullptr && *v != '\0' && *v != '0';
}
std::atomic<bool> g_stats_enabled{stats_from_environment()};

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

bool offline_from_environment() {
  const char* v = std::getenv("TRITON_JIT_OFFLINE");
  return v != nullptr && *v != '\0' && *v != '0';
}
std::atomic<bool> g_offline{offline_from_environment()};

detail::Provenance provenance_of(const std::string& json_text) {
  detail::Provenance p;
  auto j = nlohmann::json::parse(json_text, nullptr, false);
  if (j.is_object()) {
    p.dependencies = j.value("dependencies", std::vector<std::string>{});
    p.triton_file = j.value("triton_file", std::string());
  }
  return p;
}

[[noreturn]] void throw_offline(const std::string& what, const std::string& kernel, const std::string& spec) {
  throw Error(fmt::format(
      "{}: {} is neither in the cache ('{}') nor in a bundle, and compiling is disabled (offline mode). "
      "Precompile it: run the same calls once with TRITON_JIT_OFFLINE unset and the same TRITON_JIT_CACHE_DIR, "
      "or list it in a manifest for triton_jit_aot (kernel '{}').",
      kernel, what, detail::PersistentCache::instance().directory(), spec));
}

int first_tensor_device(const ArgSlot* args, std::size_t n) noexcept {
  for (std::size_t i = 0; i < n; ++i) {
    if (args[i].kind == ArgKind::kPointer && args[i].device >= 0) return args[i].device;
  }
  return -1;
}

}  // namespace

struct TritonJITFunction::Impl {
  std::string id;  // in the persistent cache
  std::string spec;
  std::string name_arg;
  std::vector<std::string> search_path;
  KernelSignature sig;
  detail::VariantCache<Variant> cache;

  std::mutex mutex;
  std::condition_variable done_cv;
  std::vector<std::shared_ptr<InFlight>> in_flight;  // guarded by mutex

  std::atomic<uint64_t> hits{0};
  std::atomic<uint64_t> misses{0};
  std::atomic<uint64_t> compiles{0};
  std::atomic<uint64_t> compile_nanoseconds{0};
  std::atomic<uint64_t> load_nanoseconds{0};

  ResolvedOptions resolve(const LaunchConfig& c, Target target) const {
    ResolvedOptions o;
    o.arch = target.arch;
    o.arch_specific = target.arch_specific;
    o.num_warps = c.num_warps > 0 ? c.num_warps : (sig.defaults.num_warps > 0 ? sig.defaults.num_warps : 4);
    o.num_stages = c.num_stages > 0 ? c.num_stages : (sig.defaults.num_stages > 0 ? sig.defaults.num_stages : 3);
    o.num_ctas = c.num_ctas > 0 ? c.num_ctas : (sig.defaults.num_ctas > 0 ? sig.defaults.num_ctas : 1);
    o.maxnreg = c.maxnreg > 0 ? c.maxnreg : sig.defaults.maxnreg;
    o.enable_fp_fusion = c.enable_fp_fusion;
    o.launch_pdl = c.launch_pdl;
    o.launch_cooperative_grid = c.launch_cooperative_grid;
    if ((o.num_warps & (o.num_warps - 1)) != 0 || o.num_warps > 32 || c.num_warps < 0) [[unlikely]] {
      throw ValueError(fmt::format("{}: num_warps must be a power of two from 1 to 32, got {}", sig.name, c.num_warps));
    }
    if (o.num_ctas > 16 || c.num_ctas < 0 || c.num_stages < 0) [[unlikely]] {
      throw ValueError(fmt::format("{}: num_ctas must be 1 to 16 and num_stages positive, got {} and {}", sig.name,
                                   c.num_ctas, c.num_stages));
    }
    return o;
  }

  const Variant* find_or_compile(const ResolvedOptions& o, const VariantKey& key, const ArgSlot* args,
                                 std::size_t n) {
    misses.fetch_add(1, std::memory_order_relaxed);
    std::shared_ptr<InFlight> flight;
    bool leader = false;
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (const Variant* v = cache.find(key)) return v;
      for (const auto& f : in_flight) {
        if (f->key == key) flight = f;
      }
      if (!flight) {
        flight = std::make_shared<InFlight>(key);
        in_flight.push_back(flight);
        leader = true;
      }
    }
    if (!leader) {
      detail::run_without_gil([&] {
        std::unique_lock<std::mutex> lock(mutex);
        done_cv.wait(lock, [&] { return flight->done; });
      });
      if (flight->error) std::rethrow_exception(flight->error);
      return flight->result;
    }
    const Variant* result = nullptr;
    std::exception_ptr error;
    try {
      result = cache.insert(compile(o, key, args, n));
    } catch (...) {
      error = std::current_exception();
    }
    {
      std::lock_guard<std::mutex> lock(mutex);
      flight->done = true;
      flight->result = result;
      flight->error = error;
      std::erase(in_flight, flight);
    }
    done_cv.notify_all();
    if (error) std::rethrow_exception(error);
    return result;
  }

  std::unique_ptr<Variant> compile(const ResolvedOptions& o, const VariantKey& key, const ArgSlot* args,
                                   std::size_t n) {
    auto started = std::chrono::steady_clock::now();
    auto v = std::make_unique<Variant>(key);
    v->signature_text = detail::describe_variant(sig, key, args, n);
    v->target = fmt::format("cuda:{}{}", o.arch, o.arch_specific ? "a" : "");
    detail::CompiledBinary compiled;
    auto& disk = detail::PersistentCache::instance();
    if (auto stored = disk.load_variant(id, sig.name, key)) {
      v->binary = std::move(stored->binary);
      v->metadata = parse_metadata(sig.name, stored->metadata_json);
      v->num_kernel_params = detail::kernel_param_count(sig, key) + 2;
      detail::log(detail::LogLevel::kInfo, "{}: ({}) for {} from the cache in {:.2f} ms", sig.name, v->signature_text,
                  v->target, seconds_since(started) * 1e3);
      return v;
    }
    if (g_offline.load(std::memory_order_relaxed)) {
      throw_offline(fmt::format("the variant ({}) for {} with num_warps={}, num_stages={}, num_ctas={}",
                                v->signature_text, v->target, o.num_warps, o.num_stages, o.num_ctas),
                    sig.name, spec);
    }
    std::string request = detail::compile_request_json(sig, o, key, args, n);
    try {
      compiled = detail::compiler_bridge().compile(spec, sig.name, search_path, request);
    } catch (const CompileError& e) {
      throw CompileError(fmt::format("{}: Triton failed to compile the variant ({}) for {}:\n{}", sig.name,
                                     v->signature_text, v->target, e.what()));
    }
    disk.store_variant(id, sig.name, key, compiled.binary, compiled.metadata_json,
                       provenance_of(compiled.metadata_json));
    v->binary = std::move(compiled.binary);
    v->metadata = parse_metadata(sig.name, compiled.metadata_json);
    v->num_kernel_params = detail::kernel_param_count(sig, key);
    v->num_kernel_params += 2;  // global and profile scratch pointers
    compiles.fetch_add(1, std::memory_order_relaxed);
    const double seconds = seconds_since(started);
    compile_nanoseconds.fetch_add(static_cast<uint64_t>(seconds * 1e9), std::memory_order_relaxed);
    detail::log(detail::LogLevel::kInfo, "{}: compiled ({}) for {} in {:.1f} ms (Triton compile {:.1f} ms)", sig.name,
                v->signature_text, v->target, seconds * 1e3, compile_phase_ms(compiled.metadata_json));
    return v;
  }

  const ActiveBackend::Kernel* load(const Variant& v, int device) {
    std::lock_guard<std::mutex> lock(mutex);
    if (const auto* k = v.loaded[device].load(std::memory_order_acquire)) return k;
    auto started = std::chrono::steady_clock::now();
    const auto* k = ActiveBackend::load(impl::KernelImage{v.binary, &v.metadata}, device);
    v.loaded[device].store(k, std::memory_order_release);
    const double seconds = seconds_since(started);
    load_nanoseconds.fetch_add(static_cast<uint64_t>(seconds * 1e9), std::memory_order_relaxed);
    detail::log(detail::LogLevel::kInfo, "{}: loaded ({}) on device {} in {:.2f} ms", sig.name, v.signature_text,
                device, seconds * 1e3);
    return k;
  }

  VariantInfo info(const Variant& v) const {
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
    return i;
  }
};

TritonJITFunction& TritonJITFunction::get_instance(std::string_view path, std::string_view name) {
  using Registry = std::map<std::pair<std::string, std::string>, TritonJITFunction*>;
  static auto* registry = new Registry();  // guarded by registry_mutex; never destroyed
  static auto* registry_mutex = new std::mutex();
  std::unique_lock<std::mutex> lock(*registry_mutex, std::defer_lock);
  detail::run_without_gil([&] { lock.lock(); });
  auto key = std::make_pair(std::string(path), std::string(name));
  if (auto it = registry->find(key); it != registry->end()) return *it->second;

  auto impl = std::make_unique<Impl>();
  impl->spec = key.first;
  impl->name_arg = key.second;
  impl->search_path = current_search_path();
  impl->id = detail::function_id(impl->spec, impl->name_arg);
  auto started = std::chrono::steady_clock::now();
  auto& disk = detail::PersistentCache::instance();
  const std::string label = impl->name_arg.empty() ? impl->spec : impl->name_arg;
  if (auto stored = disk.load_signature(impl->id, label)) {
    impl->sig = detail::parse_kernel_signature(stored->describe_json);
  } else {
    if (g_offline.load(std::memory_order_relaxed)) throw_offline("its static signature", label, impl->spec);
    std::string described = detail::compiler_bridge().describe(impl->spec, impl->name_arg, impl->search_path);
    impl->sig = detail::parse_kernel_signature(described);
    disk.store_signature(impl->id, label, described, provenance_of(described));
  }
  detail::log(detail::LogLevel::kInfo, "{}: static signature of {} parameters from {} in {:.1f} ms", impl->sig.name,
              impl->sig.params.size(), impl->sig.file, seconds_since(started) * 1e3);
  if (impl->sig.params.size() > detail::kMaxParams) {
    throw ValueError(fmt::format("{}: has {} parameters; triton_jit supports up to {}", impl->sig.name,
                                 impl->sig.params.size(), detail::kMaxParams));
  }
  auto* fn = new TritonJITFunction(impl.release());
  registry->emplace(std::move(key), fn);
  return *fn;
}

void TritonJITFunction::launch(const LaunchConfig& config, const ArgSlot* args, std::size_t num_args) const {
  Impl& f = *impl_;
  // Note [Launch device]: LaunchConfig.device, else the device of the tensor arguments, else the
  // calling thread's current device. Asking the driver costs more than the rest of a cache hit
  // on the H200 VMs, so it is the last resort. The encoder checks every tensor against it.
  int device = config.device >= 0 ? config.device : first_tensor_device(args, num_args);
  if (device < 0) device = ActiveBackend::current_device();
  if (device >= kMaxDevices) [[unlikely]] throw ValueError(fmt::format("{}: device {} is beyond the supported {}", f.sig.name, device, kMaxDevices));
  const ResolvedOptions options = f.resolve(config, device_target(device));
  EncodedCall call;
  detail::encode_call(f.sig, options, args, num_args, device, call);
  const Variant* v = f.cache.find(call.key);
  if (v == nullptr) [[unlikely]] v = f.find_or_compile(options, call.key, args, num_args);
  const ActiveBackend::Kernel* k = v->loaded[device].load(std::memory_order_acquire);
  if (k == nullptr) [[unlikely]] k = f.load(*v, device);
  if (g_stats_enabled.load(std::memory_order_relaxed)) [[unlikely]] f.hits.fetch_add(1, std::memory_order_relaxed);
  const Hooks* hooks = g_hooks.load(std::memory_order_acquire);
  if (hooks == nullptr) [[likely]] {
    ActiveBackend::launch(*k, config, call.params, call.num_kernel_params, &call.cells[call.num_kernel_params]);
    return;
  }
  LaunchInfo info{f.sig.name.c_str(), v->signature_text.c_str(), config.grid, config.stream, device};
  if (hooks->enter) hooks->enter(info, hooks->user_data);
  ActiveBackend::launch(*k, config, call.params, call.num_kernel_params, &call.cells[call.num_kernel_params]);
  if (hooks->exit) hooks->exit(info, hooks->user_data);
}

VariantInfo TritonJITFunction::warmup(const LaunchConfig& config, const ArgSlot* args, std::size_t num_args) const {
  Impl& f = *impl_;
  // An explicit TRITON_JIT_TARGET wins (ahead-of-time builds); else the device's, else cuda:90.
  Target target = default_target();
  const char* explicit_target = std::getenv("TRITON_JIT_TARGET");
  if ((explicit_target == nullptr || *explicit_target == '\0') && ActiveBackend::available()) {
    target = device_target(config.device >= 0 ? config.device : ActiveBackend::current_device());
  }
  const ResolvedOptions options = f.resolve(config, target);
  auto call = std::make_unique<EncodedCall>();
  detail::encode_call(f.sig, options, args, num_args, /*device_check=*/-1, *call);
  const Variant* v = f.cache.find(call->key);
  if (v == nullptr) v = f.find_or_compile(options, call->key, args, num_args);
  return f.info(*v);
}

const std::string& TritonJITFunction::name() const noexcept { return impl_->sig.name; }
const std::string& TritonJITFunction::source_file() const noexcept { return impl_->sig.file; }

std::vector<ParamInfo> TritonJITFunction::params() const {
  std::vector<ParamInfo> out;
  for (const auto& p : impl_->sig.params) {
    std::string kind = p.is_constexpr                  ? "constexpr"
                       : !p.specialize                 ? "do_not_specialize"
                       : !p.align                      ? "do_not_specialize_on_alignment"
                                                       : "specialized";
    out.push_back(ParamInfo{p.name, kind, p.annotation ? detail::token_name(p.annotation) : "", p.has_default});
  }
  return out;
}

FunctionStats TritonJITFunction::stats() const noexcept {
  FunctionStats s;
  s.hits = impl_->hits.load(std::memory_order_relaxed);
  s.load_seconds = static_cast<double>(impl_->load_nanoseconds.load(std::memory_order_relaxed)) * 1e-9;
  s.variant_misses = impl_->misses.load(std::memory_order_relaxed);
  s.compiles = impl_->compiles.load(std::memory_order_relaxed);
  s.compile_seconds = static_cast<double>(impl_->compile_nanoseconds.load(std::memory_order_relaxed)) * 1e-9;
  return s;
}

void set_launch_hooks(LaunchHook enter, LaunchHook exit, void* user_data) noexcept {
  // Replaced hook sets are leaked, not freed: a launch in another thread may still read one.
  const Hooks* next = (enter == nullptr && exit == nullptr) ? nullptr : new (std::nothrow) Hooks{enter, exit, user_data};
  g_hooks.store(next, std::memory_order_release);
}

void set_stats_enabled(bool enabled) noexcept { g_stats_enabled.store(enabled, std::memory_order_relaxed); }

void set_cache_dir(std::string_view directory) { detail::PersistentCache::instance().set_directory(std::string(directory)); }
std::string cache_dir() { return detail::PersistentCache::instance().directory(); }
void set_offline(bool value) noexcept { g_offline.store(value, std::memory_order_relaxed); }
bool offline() noexcept { return g_offline.load(std::memory_order_relaxed); }
void register_bundle_entry(const char* relative_path, const void* data, std::size_t size) {
  detail::register_bundle_entry(relative_path, data, size);
}

void add_kernel_search_path(std::string_view directory) {
  std::lock_guard<std::mutex> lock(search_path_mutex());
  user_search_path().emplace_back(directory);
}

Target default_target() {
  std::string text = detail::env_or("TRITON_JIT_TARGET", "cuda:90");
  std::string_view arch = text;
  if (arch.starts_with("cuda:")) arch.remove_prefix(5);
  if (arch.starts_with("sm_")) arch.remove_prefix(3);
  Target t;
  t.arch_specific = !arch.empty() && arch.back() == 'a';
  if (t.arch_specific) arch.remove_suffix(1);
  char* end = nullptr;
  std::string digits(arch);
  long value = std::strtol(digits.c_str(), &end, 10);
  if (digits.empty() || *end != '\0' || value < 10 || value > 1000) {
    throw ValueError(fmt::format("TRITON_JIT_TARGET='{}' is not a CUDA target; expected e.g. cuda:90 or cuda:90a", text));
  }
  t.arch = static_cast<int>(value);
  return t;
}

bool cuda_available() noexcept { return ActiveBackend::available(); }

}  // namespace triton_jit
