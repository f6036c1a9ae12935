#include "cache/entry_store.h"

#include <sys/stat.h>

#include <map>
#include <mutex>
#include <set>

#include "build_paths.h"
#include "cache/bundle.h"
#include "cache/private_dir.h"
#include "common/fork_guard.h"
#include "common/hash.h"
#include "common/log.h"
#include "common/settings.h"

// Note [Cache identity]
// A disk entry lives under v2/<digest of the function's identity and of this library's compile
// scripts>/ and is used only if
//  - its header names the same identity (real path of the file, or module spec and search
//    path, and the function's name): two files called k.py, or a symlink that moved, never
//    share entries, and swapped entries are caught;
//  - (variants) its key words equal the call's key, and the file name mixes in Triton's knobs;
//  - every source the compile read still has the digest of the exact text it compiled (see
//    the compile script's snapshots), the Triton installation is the same, and Triton's
//    environment knobs are unchanged.
// Bundle entries live under <digest of the portable identity>/ (a bundle moves between
// machines) and are matched on it; their sources usually are not deployed. When the kernel's
// file is present and differs from what the bundle was built from, the bundle is stale: a
// warning says so, and it is used only offline.

namespace triton_jit::detail {
namespace {

constexpr const char* kLayout = "v2";

struct Memo {
  std::mutex mutex;
  std::map<std::string, std::string> sources;  // guarded by mutex
  std::map<std::string, std::string> tritons;  // guarded by mutex
};
Memo& memo() {
  static auto* m = [] {
    auto* made = new Memo();  // never destroyed
    guard_across_fork(made->mutex, LockLevel::kLeaf);
    return made;
  }();
  return *m;
}

// A warning about the cache directory, once per process and text (it would repeat per entry).
void warn_once(const std::string& text) {
  static auto* seen = new std::set<std::string>();  // guarded by memo().mutex
  {
    std::lock_guard<std::mutex> lock(memo().mutex);
    if (!seen->insert(text).second) return;
  }
  log(LogLevel::kWarn, "{}", text);
}

std::optional<PrivateDir> function_dir(const FunctionIdentity& id, bool create) {
  const std::string dir = cache_root();
  if (dir.empty()) return std::nullopt;
  std::string why;
  auto root = PrivateDir::open_root(dir, why, create);
  if (!root) {
    if (!why.empty()) warn_once("cache directory " + why + "; compiled variants are not kept");
    return std::nullopt;
  }
  auto layout = root->sub(kLayout, create);
  if (!layout) return std::nullopt;
  return layout->sub(id.disk_dir, create);
}

// Reads a disk entry; nullopt on a miss. Broken files are removed here.
std::optional<std::string> read_disk(const FunctionIdentity& id, const std::string& file) {
  auto dir = function_dir(id, /*create=*/false);
  if (!dir) return std::nullopt;
  std::string bytes;
  switch (dir->read(file, bytes, kMaxEntryBytes)) {
    case PrivateDir::Read::kOk:
      break;
    case PrivateDir::Read::kMissing:
      return std::nullopt;
    case PrivateDir::Read::kForeign:
      log(LogLevel::kWarn, "{}: cache entry '{}' belongs to another user; refusing to load it", id.label,
          dir->path_of(file));
      return std::nullopt;
    case PrivateDir::Read::kNotRegular:
    case PrivateDir::Read::kTooLarge:
      log(LogLevel::kWarn, "{}: cache entry '{}' is not a regular file of a sane size; removing it and compiling again",
          id.label, dir->path_of(file));
      dir->remove(file);
      return std::nullopt;
    case PrivateDir::Read::kError:
      return std::nullopt;
  }
  return bytes;
}

void remove_damaged(const FunctionIdentity& id, const std::string& file, const std::string& why) {
  auto dir = function_dir(id, /*create=*/false);
  if (!dir) return;
  log(LogLevel::kWarn, "{}: cache entry '{}' is damaged ({}); removing it and compiling again", id.label,
      dir->path_of(file), why);
  dir->remove(file);
}

// Whether a bundle entry may serve this process: its kernel's file, when present here, must be
// the one it was built from.
bool bundle_usable(const FunctionIdentity& id, const EntryHeader& header, bool offline, const std::string& where) {
  if (id.file.empty() || header.provenance.sources.empty()) return true;
  const std::string now = source_digest(id.file);
  if (now.empty() || now == header.provenance.sources.front().digest) return true;
  static auto* warned = new std::map<std::string, bool>();  // guarded by memo().mutex
  {
    std::lock_guard<std::mutex> lock(memo().mutex);
    if ((*warned)[id.identity]) return offline;
    (*warned)[id.identity] = true;
  }
  log(LogLevel::kWarn, "{}: the bundled variants ({}) were built from another version of '{}'; {}", id.label, where,
      id.file, offline ? "using them anyway (offline mode)" : "compiling from the file instead");
  return offline;
}

bool write_entry(const FunctionIdentity& id, const std::string& file, const std::string& bytes) {
  auto dir = function_dir(id, /*create=*/true);
  if (!dir) return false;
  if (!dir->write(file, bytes)) {
    log(LogLevel::kWarn, "{}: could not write '{}'; the variant is kept in memory only", id.label, dir->path_of(file));
    return false;
  }
  return true;
}

}  // namespace

FunctionIdentity make_identity(std::string identity, std::string portable, std::string label, std::string file) {
  FunctionIdentity id;
  // The compile scripts decide what a signature holds: a cache made with other scripts (another
  // version of the library) is kept apart rather than read with this version's meaning.
  id.disk_dir = digest(identity + "\n" TRITON_JIT_SCRIPTS_DIGEST).hex();
  id.bundle_dir = digest(portable).hex();
  id.identity = std::move(identity);
  id.portable = std::move(portable);
  id.label = std::move(label);
  id.file = std::move(file);
  return id;
}

std::string source_digest(const std::string& path) {
  Memo& m = memo();
  {
    std::lock_guard<std::mutex> lock(m.mutex);
    if (auto it = m.sources.find(path); it != m.sources.end()) return it->second;
  }
  std::string d = hash_file(path);
  std::lock_guard<std::mutex> lock(m.mutex);
  return m.sources.emplace(path, std::move(d)).first->second;
}

std::string triton_fingerprint(const std::string& triton_dir) {
  Memo& m = memo();
  {
    std::lock_guard<std::mutex> lock(m.mutex);
    if (auto it = m.tritons.find(triton_dir); it != m.tritons.end()) return it->second;
  }
  Hasher h;
  h.add(triton_dir).add(hash_file(triton_dir + "/__init__.py"));
  struct stat st {};
  if (::stat((triton_dir + "/_C/libtriton.so").c_str(), &st) == 0) {
    h.add(std::to_string(st.st_size)).add(std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec));
  }
  std::string fingerprint = h.finish().hex();
  std::lock_guard<std::mutex> lock(m.mutex);
  return m.tritons.emplace(triton_dir, std::move(fingerprint)).first->second;
}

std::string variant_file_name(const VariantKey& key, const std::string& environment) {
  Hasher h;
  h.add(std::string_view(reinterpret_cast<const char*>(key.words), key.size * sizeof(uint64_t))).add(environment);
  return h.finish().hex() + ".variant";
}

std::string stale_reason(const Provenance& p, bool check_environment) {
  for (const auto& s : p.sources) {
    if (source_digest(s.path) != s.digest) return fmt::format("'{}' changed", s.path);
  }
  if (triton_fingerprint(p.triton_dir) != p.triton_fingerprint) return "the Triton installation changed";
  if (check_environment && compiler_environment_digest() != p.environment) {
    return "Triton's environment variables changed";
  }
  return "";
}

namespace {

// Why an entry built with other values computed at import than the signature's may not serve
// ("" when it may).
std::string values_reason(const FunctionIdentity& id, const Provenance& p) {
  if (p.values == id.values) return "";
  return p.values.empty() ? "it predates the recording of values computed at import"
                          : "it was built with other values computed at import";
}

}  // namespace

std::optional<LoadedSignature> load_signature(const FunctionIdentity& id, bool offline) {
  const std::string file = "signature";
  std::string error;
  if (auto bytes = find_bundle_entry(id.bundle_dir + "/" + file)) {
    auto entry = parse_signature(*bytes, error);
    if (!entry) {
      log(LogLevel::kWarn, "{}: bundle entry '{}/{}' is damaged ({}); ignoring it", id.label, id.bundle_dir, file,
          error);
    } else if (entry->header.portable != id.portable) {
      log(LogLevel::kWarn, "{}: bundle entry '{}/{}' belongs to '{}'; ignoring it", id.label, id.bundle_dir, file,
          entry->header.portable);
    } else if (bundle_usable(id, entry->header, offline, "signature")) {
      return LoadedSignature{std::move(*entry), EntrySource::kBundle};
    }
  }
  auto bytes = read_disk(id, file);
  if (!bytes) return std::nullopt;
  auto entry = parse_signature(*bytes, error);
  if (!entry) {
    remove_damaged(id, file, error);
    return std::nullopt;
  }
  if (entry->header.function != id.identity) {
    remove_damaged(id, file, fmt::format("it belongs to '{}'", entry->header.function));
    return std::nullopt;
  }
  if (std::string why = stale_reason(entry->header.provenance, false); !why.empty()) {
    log(LogLevel::kInfo, "{}: cached signature is out of date ({})", id.label, why);
    return std::nullopt;
  }
  return LoadedSignature{std::move(*entry), EntrySource::kDisk};
}

std::optional<LoadedVariant> load_variant(const FunctionIdentity& id, const VariantKey& key, bool offline) {
  const std::string environment = compiler_environment_digest();
  const std::string file = variant_file_name(key, environment);
  const std::vector<uint64_t> words(key.words, key.words + key.size);
  std::string error;
  if (auto bytes = find_bundle_entry(id.bundle_dir + "/" + file)) {
    auto entry = parse_variant(*bytes, error);
    if (!entry) {
      log(LogLevel::kWarn, "{}: bundle entry '{}/{}' is damaged ({}); ignoring it", id.label, id.bundle_dir, file,
          error);
    } else if (entry->header.portable != id.portable || entry->key != words) {
      log(LogLevel::kWarn, "{}: bundle entry '{}/{}' belongs to another kernel or variant; ignoring it", id.label,
          id.bundle_dir, file);
    } else if (std::string why = values_reason(id, entry->header.provenance); !why.empty()) {
      log(LogLevel::kInfo, "{}: bundle entry '{}/{}' does not serve ({})", id.label, id.bundle_dir, file, why);
    } else if (bundle_usable(id, entry->header, offline, "variant")) {
      return LoadedVariant{std::move(*entry), EntrySource::kBundle};
    }
  }
  auto bytes = read_disk(id, file);
  if (!bytes) return std::nullopt;
  auto entry = parse_variant(*bytes, error);
  if (!entry) {
    remove_damaged(id, file, error);
    return std::nullopt;
  }
  if (entry->header.function != id.identity) {
    remove_damaged(id, file, fmt::format("it belongs to '{}'", entry->header.function));
    return std::nullopt;
  }
  if (entry->key != words) {
    remove_damaged(id, file, "it holds another variant");
    return std::nullopt;
  }
  if (std::string why = stale_reason(entry->header.provenance, true);
      !why.empty() || !(why = values_reason(id, entry->header.provenance)).empty()) {
    log(LogLevel::kInfo, "{}: cached variant is out of date ({})", id.label, why);
    return std::nullopt;
  }
  return LoadedVariant{std::move(*entry), EntrySource::kDisk};
}

std::string tuning_file_name(const std::vector<uint64_t>& key, const std::string& device, const std::string& configs) {
  Hasher h;
  h.add(std::string_view(reinterpret_cast<const char*>(key.data()), key.size() * sizeof(uint64_t)))
      .add(device)
      .add(configs);
  return h.finish().hex() + ".tuning";
}

std::optional<LoadedTuning> load_tuning(const FunctionIdentity& id, const std::vector<uint64_t>& key,
                                        const std::string& device, const std::string& configs, bool offline) {
  const std::string file = tuning_file_name(key, device, configs);
  std::string error;
  auto matches = [&](const TuningEntry& e) { return e.key == key && e.device == device && e.configs == configs; };
  if (auto bytes = find_bundle_entry(id.bundle_dir + "/" + file)) {
    auto entry = parse_tuning(*bytes, error);
    if (!entry) {
      log(LogLevel::kWarn, "{}: bundle entry '{}/{}' is damaged ({}); ignoring it", id.label, id.bundle_dir, file,
          error);
    } else if (entry->header.portable != id.portable || !matches(*entry)) {
      log(LogLevel::kWarn, "{}: bundle entry '{}/{}' belongs to another kernel or key; ignoring it", id.label,
          id.bundle_dir, file);
    } else if (std::string why = values_reason(id, entry->header.provenance); !why.empty()) {
      log(LogLevel::kInfo, "{}: bundle entry '{}/{}' does not serve ({})", id.label, id.bundle_dir, file, why);
    } else if (bundle_usable(id, entry->header, offline, "tuning")) {
      return LoadedTuning{std::move(*entry), EntrySource::kBundle};
    }
  }
  auto bytes = read_disk(id, file);
  if (!bytes) return std::nullopt;
  auto entry = parse_tuning(*bytes, error);
  if (!entry) {
    remove_damaged(id, file, error);
    return std::nullopt;
  }
  if (entry->header.function != id.identity || !matches(*entry)) {
    remove_damaged(id, file, "it belongs to another kernel or key");
    return std::nullopt;
  }
  if (std::string why = stale_reason(entry->header.provenance, true);
      !why.empty() || !(why = values_reason(id, entry->header.provenance)).empty()) {
    log(LogLevel::kInfo, "{}: cached tuning is out of date ({})", id.label, why);
    return std::nullopt;
  }
  return LoadedTuning{std::move(*entry), EntrySource::kDisk};
}

bool store_tuning(const FunctionIdentity& id, const TuningEntry& entry) {
  return write_entry(id, tuning_file_name(entry.key, entry.device, entry.configs), serialize_tuning(entry));
}

void discard_signature(const FunctionIdentity& id, const std::string& why) { remove_damaged(id, "signature", why); }

void discard_variant(const FunctionIdentity& id, const VariantKey& key, const std::string& why) {
  remove_damaged(id, variant_file_name(key, compiler_environment_digest()), why);
}

bool store_signature(const FunctionIdentity& id, const SignatureEntry& entry) {
  return write_entry(id, "signature", serialize_signature(entry));
}

bool store_variant(const FunctionIdentity& id, const VariantKey& key, const VariantEntry& entry) {
  return write_entry(id, variant_file_name(key, entry.header.provenance.environment), serialize_variant(entry));
}

}  // namespace triton_jit::detail

namespace triton_jit {

void register_bundle_entry(const char* relative_path, const void* data, std::size_t size) {
  detail::add_bundle_entry(relative_path, data, size);
}

}  // namespace triton_jit
