#include "variants/variant_builder.h"

#include <fmt/format.h>

#include <fmt/ranges.h>

#include <chrono>
#include <map>
#include <nlohmann/json.hpp>

#include "cache/bundle.h"
#include "common/fork_guard.h"
#include "common/hash.h"
#include "common/log.h"
#include "common/settings.h"
#include "common/target.h"
#include "compiler/compile_request.h"
#include "compiler/compiled_kernel.h"
#include "encoding/variant_description.h"
#include "triton_jit/errors.h"
#include "variants/function_identity.h"
#include "variants/tensor_descriptors.h"

namespace triton_jit::detail {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

bool offline_now() { return hot_settings().offline.load(std::memory_order_relaxed); }

[[noreturn]] void throw_offline(const std::string& kernel, const std::string& what, const std::string& spec) {
  throw Error(fmt::format(
      "{}: {} is neither in the cache ('{}') nor in a bundle, and compiling is disabled (offline mode). "
      "Precompile it: run the same calls once with TRITON_JIT_OFFLINE unset and the same TRITON_JIT_CACHE_DIR, "
      "or list it in a manifest for triton_jit_aot (kernel '{}').",
      kernel, what, cache_root(), spec));
}

// The compile script's own timing of Triton's compile, in ms (0 when absent).
double triton_compile_ms(std::string_view metadata_json) {
  auto j = nlohmann::json::parse(metadata_json, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || !j.contains("phase_seconds") || !j["phase_seconds"].is_object()) return 0;
  const auto& phases = j["phase_seconds"];
  return phases.contains("compile") && phases["compile"].is_number() ? phases["compile"].get<double>() * 1e3 : 0;
}

std::string triton_dir_of(std::string_view json_text) {
  auto j = nlohmann::json::parse(json_text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return "";
  auto it = j.find("triton_dir");
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

Provenance provenance_of(const std::vector<SourceText>& sources, const std::string& triton_version,
                         const std::string& triton_dir, std::string environment) {
  Provenance p;
  for (const auto& s : sources) p.sources.push_back(SourceDigest{s.path, digest(s.text).hex()});
  p.triton_version = triton_version;
  p.triton_dir = triton_dir;
  p.triton_fingerprint = triton_fingerprint(triton_dir);
  p.environment = std::move(environment);
  return p;
}

// A compile must have read the sources this process read for the signature; else the two
// describe different kernels.
void check_same_sources(const FunctionState& f, const Provenance& compiled) {
  for (const auto& c : compiled.sources) {
    for (const auto& s : f.provenance.sources) {
      if (s.path == c.path && s.digest != c.digest) {
        throw Error(
            fmt::format("{}: '{}' changed after this process read its signature; restart the process to use "
                        "the new source (nothing was compiled from it)",
                        f.sig.name, c.path));
      }
    }
  }
}

// Note [Values computed at import]
// A compile records, with the texts of its sources, the values the kernel read that those texts
// do not decide (triton_jit_values.py sorts them: an environment variable, a file, the machine,
// a function of an unrecorded module), with a fingerprint of each. Triton's runtime compiles
// again when a global it used changes; so an entry recording such values serves a later process
// only after that process imported the kernel's module and found the same fingerprints (once per
// function, when its signature is loaded; variants and tuning results must then carry the same
// values, see values_reason()). An entry that records none needs no Python. Offline nothing can
// be imported: a bundle's entry is trusted, since whoever made the bundle vouches for it; a cache
// entry is refused.
std::vector<std::string> value_names(const std::string& values_json, const std::string& other_json) {
  auto entries = [](const std::string& text) {
    std::map<std::string, std::string> out;
    auto j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (!j.is_array()) return out;
    for (const auto& item : j) {
      if (item.is_array() && item.size() == 3 && item[0].is_string() && item[1].is_string() && item[2].is_string()) {
        out[item[0].get<std::string>() + ":" + item[1].get<std::string>()] = item[2].get<std::string>();
      }
    }
    return out;
  };
  const auto mine = entries(values_json), other = entries(other_json);
  std::vector<std::string> names;
  for (const auto& [name, fingerprint] : mine) {
    auto it = other.find(name);
    if (it == other.end() || it->second != fingerprint) names.push_back(name);
  }
  for (const auto& [name, fingerprint] : other) {
    if (!mine.contains(name)) names.push_back(name);
  }
  return names;
}

bool imported_values_hold(const FunctionState& f, const LoadedSignature& stored, std::string_view spec) {
  const std::string& recorded = stored.entry.header.provenance.values;
  if (recorded == "[]") {
    // Note [Globals changed at run time]: a program may have changed what its module's text says.
    if (offline_now() || !python_host()) return true;
    const std::string now = compiler_bridge().host_values(f.location);
    if (now.empty() || now == recorded) return true;
    log(LogLevel::kInfo, "{}: cached signature does not hold the values this program set ({})", f.id.label,
        fmt::join(value_names(recorded, now), ", "));
    return false;
  }
  if (offline_now()) {
    if (stored.source == EntrySource::kBundle) return true;
    throw Error(fmt::format(
        "{}: its cached signature was built with values computed when its module was imported ({}), which only "
        "importing the module can check, and importing is disabled (offline mode). Put the kernel in a bundle "
        "(triton_jit_aot, kernel '{}'), whose entries are trusted offline, or run once with TRITON_JIT_OFFLINE unset.",
        f.id.label,
        recorded.empty() ? std::string("the entry predates their recording")
                         : fmt::format("{}", fmt::join(value_names(recorded, "[]"), ", ")),
        spec));
  }
  const std::string now = compiler_bridge().imported_values(f.location);
  if (now == recorded) return true;
  log(LogLevel::kInfo, "{}: cached signature is out of date (values computed at import changed: {})", f.id.label,
      recorded.empty() ? std::string("not recorded") : fmt::format("{}", fmt::join(value_names(recorded, now), ", ")));
  return false;
}

void record(const FunctionState& f, const VariantKey& key, const VariantEntry& entry) {
  record_bundle_entry(f.id.bundle_dir, variant_file_name(key, entry.header.provenance.environment),
                      serialize_variant(entry), f.sig.name);
}

void record(const FunctionState& f, const SignatureEntry& entry) {
  record_bundle_entry(f.id.bundle_dir, "signature", serialize_signature(entry), f.sig.name);
}

void abandon_in_flight(void* arg) {
  auto* f = static_cast<FunctionState*>(arg);
  // Forked child: the threads that owned these compiles and waited for them are gone.
  f->building.abandon();
}

std::unique_ptr<Variant> make_variant(FunctionState& f, const ResolvedOptions& o, const VariantKey& key,
                                      const CallArgs& args) {
  auto v = std::make_unique<Variant>(key);
  v->signature_text = describe_variant(f.sig, key, args);
  v->target = target_name(Target{o.arch, o.arch_specific, o.vendor});
  v->num_kernel_params = kernel_param_count(f.sig, key);  // scratch pointers are added from the metadata
  return v;
}

// Bundle or disk; an entry whose content fails its check is dropped (and removed from disk).
std::unique_ptr<Variant> stored_variant(FunctionState& f, const ResolvedOptions& o, const VariantKey& key,
                                        const CallArgs& args) {
  auto started = Clock::now();
  auto stored = load_variant(f.id, key, offline_now());
  if (!stored) return nullptr;
  if (stored->entry.ir.empty() && keep_ir() && !offline_now()) {
    log(LogLevel::kInfo, "{}: the stored variant ({}) has no IR texts and keep_ir is on: compiling it again",
        f.sig.name, describe_variant(f.sig, key, args));
    return nullptr;
  }
  auto v = make_variant(f, o, key, args);
  try {
    v->metadata = check_compiled(f.sig.name, stored->entry.metadata_json, stored->entry.binary,
                                 Target{o.arch, o.arch_specific, o.vendor});
    v->num_kernel_params += v->metadata.scratch_params + descriptor_param_count(f.sig, key, v->metadata);
  } catch (const CompileError& e) {
    if (stored->source == EntrySource::kDisk) discard_variant(f.id, key, e.what());
    return nullptr;
  }
  record(f, key, stored->entry);
  v->binary = std::move(stored->entry.binary);
  v->ir = std::move(stored->entry.ir);
  log(LogLevel::kInfo, "{}: ({}) for {} from the {} in {:.2f} ms", f.sig.name, v->signature_text, v->target,
      stored->source == EntrySource::kBundle ? "bundle" : "cache", seconds_since(started) * 1e3);
  return v;
}

std::unique_ptr<Variant> compiled_variant(FunctionState& f, const ResolvedOptions& o, const VariantKey& key,
                                          const CallArgs& args) {
  auto started = Clock::now();
  auto v = make_variant(f, o, key, args);
  if (offline_now()) {
    throw_offline(f.sig.name,
                  fmt::format("the variant ({}) for {} with num_warps={}, num_stages={}, num_ctas={}",
                              v->signature_text, v->target, o.num_warps, o.num_stages, o.num_ctas),
                  f.location.file.empty() ? f.location.module : f.location.file);
  }
  const std::string request = compile_request_json(f.sig, o, key, args);
  const std::string environment = compiler_environment_digest();
  CompiledBinary compiled;
  try {
    compiled = compiler_bridge().compile(f.location, request);
  } catch (const CompileError& e) {
    throw CompileError(fmt::format("{}: Triton failed to compile the variant ({}) for {}:\n{}", f.sig.name,
                                   v->signature_text, v->target, e.what()));
  }
  // Validate, then persist: a malformed result must not reach later processes.
  v->metadata =
      check_compiled(f.sig.name, compiled.metadata_json, compiled.binary, Target{o.arch, o.arch_specific, o.vendor});
  v->num_kernel_params += v->metadata.scratch_params + descriptor_param_count(f.sig, key, v->metadata);
  const double triton_ms = triton_compile_ms(compiled.metadata_json);
  Provenance provenance =
      provenance_of(compiled.sources, v->metadata.triton_version, triton_dir_of(compiled.metadata_json), environment);
  check_same_sources(f, provenance);
  provenance.values = f.provenance.values;
  VariantEntry entry{EntryHeader{f.id.identity, f.id.portable, f.sig.name, std::move(provenance)},
                     std::vector<uint64_t>(key.words, key.words + key.size),
                     v->target,
                     std::move(compiled.metadata_json),
                     std::move(compiled.binary),
                     std::move(compiled.ir)};
  store_variant(f.id, key, entry);
  record(f, key, entry);
  v->binary = std::move(entry.binary);
  v->ir = std::move(entry.ir);
  f.compiles.fetch_add(1, std::memory_order_relaxed);
  const double seconds = seconds_since(started);
  f.compile_nanoseconds.fetch_add(static_cast<uint64_t>(seconds * 1e9), std::memory_order_relaxed);
  log(LogLevel::kInfo, "{}: compiled ({}) for {} in {:.1f} ms (Triton compile {:.1f} ms)", f.sig.name,
      v->signature_text, v->target, seconds * 1e3, triton_ms);
  return v;
}

}  // namespace

void build_function(FunctionState& f, std::string_view spec, std::string_view name) {
  auto started = Clock::now();
  ResolvedFunction resolved = resolve_function(spec, name, kernel_search_path());
  f.id = std::move(resolved.id);
  f.location = std::move(resolved.location);
  bool have_signature = false;
  if (auto stored = load_signature(f.id, offline_now())) {
    try {
      f.sig = parse_kernel_signature(stored->entry.describe_json);
      have_signature = true;
    } catch (const Error& e) {
      if (stored->source == EntrySource::kDisk) discard_signature(f.id, e.what());
    }
    if (have_signature && !imported_values_hold(f, *stored, spec)) have_signature = false;
    if (have_signature) {
      record(f, stored->entry);
      f.provenance = std::move(stored->entry.header.provenance);
    }
  }
  if (!have_signature) {
    if (offline_now()) throw_offline(f.id.label, "its static signature", std::string(spec));
    Described described = compiler_bridge().describe(f.location);
    try {
      f.sig = parse_kernel_signature(described.json);
    } catch (const Error& e) {
      throw CompileError(fmt::format("{}: the compile script described it wrongly: {}", f.id.label, e.what()));
    }
    f.provenance = provenance_of(described.sources, f.sig.triton_version, triton_dir_of(described.json), "");
    f.provenance.values = std::move(described.values);
    const SignatureEntry entry{EntryHeader{f.id.identity, f.id.portable, f.sig.name, f.provenance},
                               std::move(described.json)};
    store_signature(f.id, entry);
    record(f, entry);
  }
  f.id.values = f.provenance.values;
  if (f.sig.params.size() > kMaxParams) {
    throw ValueError(fmt::format("{}: has {} parameters; triton_jit supports up to {}", f.sig.name, f.sig.params.size(),
                                 kMaxParams));
  }
  log(LogLevel::kInfo, "{}: static signature of {} parameters from {} in {:.1f} ms", f.sig.name, f.sig.params.size(),
      f.sig.file, seconds_since(started) * 1e3);
}

void guard_function_across_fork(FunctionState& f) {
  guard_across_fork(f.mutex, LockLevel::kFunction);
  on_fork_child(&abandon_in_flight, &f);
}

namespace {

// A constexpr parameter named like a launch option (Gluon kernels declare `num_warps:
// gl.constexpr`): Triton sets both from one keyword. A C++ call passes the argument and the
// option apart, so they must agree; checked on a miss (a variant is keyed by both).
void check_option_named_params(const FunctionState& f, const ResolvedOptions& o, const CallArgs& args) {
  const struct {
    const char* name;
    int value;
  } options[] = {{"num_warps", o.num_warps}, {"num_stages", o.num_stages}, {"num_ctas", o.num_ctas}};
  for (const auto& option : options) {
    for (std::size_t i = 0; i < f.sig.params.size(); ++i) {
      if (f.sig.params[i].name != option.name || !f.sig.params[i].is_constexpr) continue;
      const ArgSlot& s = args.param(f.sig, i);
      if (s.kind == ArgKind::kInt && s.value.i != option.value) {
        throw ValueError(
            fmt::format("{}: parameter '{}' is {} and the launch option {} is {}: a parameter named "
                        "like a launch option is that option too (as Triton takes one keyword for "
                        "both); pass the same value to both",
                        f.sig.name, option.name, s.value.i, option.name, option.value));
      }
    }
  }
}

}  // namespace

const Variant* find_or_build_variant(FunctionState& f, const ResolvedOptions& o, const VariantKey& key,
                                     const CallArgs& args) {
  f.misses.fetch_add(1, std::memory_order_relaxed);
  check_option_named_params(f, o, args);
  return f.building.run(
      f.mutex, key, [&] { return f.cache.find(key); },
      [&] {
        std::unique_ptr<Variant> built = stored_variant(f, o, key, args);
        return built ? std::move(built) : compiled_variant(f, o, key, args);
      },
      [&](std::unique_ptr<Variant> built) { return f.cache.insert(std::move(built)); });
}

const ActiveBackend::Kernel* load_on_device(FunctionState& f, const Variant& v, int device) {
  return with_function_lock(f, [&]() -> const ActiveBackend::Kernel* {
    if (const auto* k = v.loaded[device].load(std::memory_order_acquire)) return k;
    auto started = Clock::now();
    const auto* k = ActiveBackend::load(impl::KernelImage{v.binary, &v.metadata}, device);
    v.loaded[device].store(k, std::memory_order_release);
    const double seconds = seconds_since(started);
    f.load_nanoseconds.fetch_add(static_cast<uint64_t>(seconds * 1e9), std::memory_order_relaxed);
    log(LogLevel::kInfo, "{}: loaded ({}) on device {} in {:.2f} ms", f.sig.name, v.signature_text, device,
        seconds * 1e3);
    return k;
  });
}

}  // namespace triton_jit::detail
