#include "common/settings.h"

#include <algorithm>
#include <filesystem>
#include <mutex>
#include <new>

#include "common/env.h"
#include "common/fork_guard.h"
#include "common/hash.h"
#include "common/target.h"
#include "triton_jit/config.h"

extern char** environ;

namespace triton_jit::detail {
namespace {

struct ColdSettings {
  std::mutex mutex;
  bool cache_dir_set = false;            // guarded by mutex
  std::string cache_dir;                 // guarded by mutex
  std::vector<std::string> search_path;  // guarded by mutex
};

ColdSettings& cold() {
  static auto* s = [] {
    auto* made = new ColdSettings();  // never destroyed
    guard_across_fork(made->mutex, LockLevel::kLeaf);
    return made;
  }();
  return *s;
}

std::string default_cache_root() {
  if (auto dir = env_or("TRITON_JIT_CACHE_DIR", ""); !dir.empty()) return dir;
  if (auto xdg = env_or("XDG_CACHE_HOME", ""); !xdg.empty())
    return (std::filesystem::path(xdg) / "triton_jit").string();
  if (auto home = env_or("HOME", ""); !home.empty())
    return (std::filesystem::path(home) / ".cache" / "triton_jit").string();
  return "";
}

// Their start values, from the environment, at load.
const bool kFromEnvironment = [] {
  g_hot_settings.stats.store(env_flag("TRITON_JIT_STATS"), std::memory_order_relaxed);
  g_hot_settings.offline.store(env_flag("TRITON_JIT_OFFLINE"), std::memory_order_relaxed);
  g_hot_settings.keep_ir.store(env_flag("TRITON_JIT_KEEP_IR"), std::memory_order_relaxed);
  const std::string autotune = env_or("TRITON_JIT_AUTOTUNE", "on");
  g_hot_settings.autotune.store(autotune != "off" && autotune != "0" && autotune != "false", std::memory_order_relaxed);
  const std::string fallback = env_or("TRITON_JIT_AUTOTUNE_FALLBACK", "error");
  int index = -1;
  if (fallback == "first") {
    index = 0;
  } else if (!fallback.empty() && fallback.find_first_not_of("0123456789") == std::string::npos &&
             fallback.size() < 6) {
    index = std::stoi(fallback);
  }
  g_hot_settings.autotune_fallback.store(index, std::memory_order_relaxed);
  return true;
}();

}  // namespace

// Constant-initialised and never destroyed (only atomics): launches may run during static
// destruction, and reading it costs no initialisation check.
constinit HotSettings g_hot_settings;

std::string cache_root() {
  ColdSettings& s = cold();
  std::lock_guard<std::mutex> lock(s.mutex);
  return s.cache_dir_set ? s.cache_dir : default_cache_root();
}

std::vector<std::string> kernel_search_path() {
  std::vector<std::string> path;
  {
    ColdSettings& s = cold();
    std::lock_guard<std::mutex> lock(s.mutex);
    path = s.search_path;
  }
  const std::string env = env_or("TRITON_JIT_KERNEL_PATH", "");
  for (std::size_t start = 0; start < env.size();) {
    std::size_t end = env.find(':', start);
    if (end == std::string::npos) end = env.size();
    if (end > start) path.push_back(env.substr(start, end - start));
    start = end + 1;
  }
  return path;
}

std::string compiler_environment_digest() {
  std::vector<std::string_view> entries;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    std::string_view entry(*e);
    // Triton's knobs that change what it compiles: the TRITON_ ones, MLIR's and LLVM's, and the
    // few it reads without a prefix (ptxas options, line info from IR locations, AMDGCN switches).
    bool relevant = entry.starts_with("TRITON_") || entry.starts_with("MLIR_") || entry.starts_with("LLVM_") ||
                    entry.starts_with("AMDGCN_") || entry.starts_with("PTXAS_OPTIONS=") ||
                    entry.starts_with("DISABLE_PTXAS_OPT=") || entry.starts_with("USE_IR_LOC=");
    bool irrelevant = entry.starts_with("TRITON_JIT_") || entry.starts_with("TRITON_CACHE_DIR=") ||
                      entry.starts_with("TRITON_HOME=") || entry.starts_with("TRITON_DUMP_DIR=") ||
                      entry.starts_with("TRITON_OVERRIDE_DIR=") || entry.starts_with("TRITON_PRINT_AUTOTUNING=");
    if (relevant && !irrelevant) entries.push_back(entry);
  }
  std::sort(entries.begin(), entries.end());
  Hasher h;
  for (auto e : entries) h.add(e);
  return h.finish().hex();
}

}  // namespace triton_jit::detail

namespace triton_jit {

void set_launch_hooks(LaunchHook enter, LaunchHook exit, void* user_data) noexcept {
  // Replaced hook sets are leaked, not freed: a launch in another thread may still read one.
  const detail::LaunchHooks* next =
      (enter == nullptr && exit == nullptr) ? nullptr : new (std::nothrow) detail::LaunchHooks{enter, exit, user_data};
  detail::hot_settings().hooks.store(next, std::memory_order_release);
}

void set_stats_enabled(bool enabled) noexcept {
  detail::hot_settings().stats.store(enabled, std::memory_order_relaxed);
}

void set_keep_ir(bool keep) noexcept { detail::hot_settings().keep_ir.store(keep, std::memory_order_relaxed); }
bool keep_ir() noexcept { return detail::hot_settings().keep_ir.load(std::memory_order_relaxed); }

void set_cache_dir(std::string_view directory) {
  auto& s = detail::cold();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.cache_dir_set = true;
  s.cache_dir = std::string(directory);
}

std::string cache_dir() { return detail::cache_root(); }

void set_offline(bool value) noexcept { detail::hot_settings().offline.store(value, std::memory_order_relaxed); }
bool offline() noexcept { return detail::hot_settings().offline.load(std::memory_order_relaxed); }

void add_kernel_search_path(std::string_view directory) {
  auto& s = detail::cold();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.search_path.emplace_back(directory);
}

ScratchAllocator* set_scratch_allocator(ScratchAllocator* allocator) noexcept {
  return detail::hot_settings().scratch.exchange(allocator, std::memory_order_acq_rel);
}

ScratchAllocator* scratch_allocator() noexcept {
  return detail::hot_settings().scratch.load(std::memory_order_acquire);
}

void set_autotune_enabled(bool enabled) noexcept {
  detail::hot_settings().autotune.store(enabled, std::memory_order_relaxed);
}

void set_autotune_fallback(int config) noexcept {
  detail::hot_settings().autotune_fallback.store(config < 0 ? -1 : config, std::memory_order_relaxed);
}

Target default_target() {
  const std::string text = detail::env_or("TRITON_JIT_TARGET", TRITON_JIT_DEFAULT_TARGET);
  return detail::require_target(text, "TRITON_JIT_TARGET");
}

}  // namespace triton_jit
