#include "cache/persistent_cache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/log.h"

extern char** environ;

// Note [Persistent cache safety]
// - Writes go to a temporary file in the entry's directory, then rename(2): a reader sees the
//   old entry, the new one, or none, never a partial one. Two processes compiling the same
//   variant both rename a complete entry; the last one stays, and both are valid.
// - Every entry carries a checksum of its payload; a header that does not parse, a checksum that
//   does not match or a cubin of the wrong size is logged, removed and rebuilt, never loaded.
// - The cache directory is created private (0700). A directory writable by others, or an entry
//   owned by another user, is refused with a message: loading someone else's cubin would run
//   their code.

namespace triton_jit::detail {
namespace fs = std::filesystem;

namespace {

constexpr const char* kSignatureMagic = "TRITON_JIT_SIGNATURE 1";
constexpr const char* kVariantMagic = "TRITON_JIT_VARIANT 1";

std::string hex(uint64_t v) {
  char buffer[17];
  std::snprintf(buffer, sizeof(buffer), "%016llx", static_cast<unsigned long long>(v));
  return buffer;
}

struct Bundle {
  std::mutex mutex;
  std::map<std::string, std::string_view> entries;  // guarded by mutex; data owned by the program
};
Bundle& bundle() {
  static auto* b = new Bundle();  // never destroyed: registration runs during static initialisation
  return *b;
}

std::optional<std::string_view> bundle_entry(const std::string& relative) {
  Bundle& b = bundle();
  std::lock_guard<std::mutex> lock(b.mutex);
  auto it = b.entries.find(relative);
  if (it == b.entries.end()) return std::nullopt;
  return it->second;
}

std::string default_directory() {
  if (const char* dir = std::getenv("TRITON_JIT_CACHE_DIR"); dir != nullptr && *dir != '\0') return dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && *xdg != '\0') {
    return (fs::path(xdg) / "triton_jit").string();
  }
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    return (fs::path(home) / ".cache" / "triton_jit").string();
  }
  return "";
}

struct State {
  std::mutex mutex;
  std::string requested;  // guarded by mutex
  std::string checked;    // guarded by mutex: the usable directory, "" when refused
  bool resolved = false;  // guarded by mutex
};
State& state() {
  static auto* s = new State();
  return *s;
}

// Creates dir (private) if needed and checks it is ours and not writable by others.
std::string usable_directory(const std::string& dir) {
  if (dir.empty()) return "";
  std::error_code ec;
  if (!fs::exists(dir, ec)) {
    fs::create_directories(fs::path(dir).parent_path(), ec);
    if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
      log(LogLevel::kWarn, "cache directory '{}' could not be created ({}); compiled variants are not kept", dir,
          std::strerror(errno));
      return "";
    }
  }
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    log(LogLevel::kWarn, "cache directory '{}' is not a directory; compiled variants are not kept", dir);
    return "";
  }
  if (st.st_uid != ::geteuid()) {
    log(LogLevel::kWarn, "cache directory '{}' belongs to another user (uid {}); refusing to use it", dir, st.st_uid);
    return "";
  }
  if ((st.st_mode & S_IWOTH) != 0) {
    log(LogLevel::kWarn, "cache directory '{}' is writable by everyone; refusing to use it", dir);
    return "";
  }
  fs::create_directories(fs::path(dir) / "v1", ec);
  return dir;
}

bool read_file(const std::string& path, std::string& out, bool& foreign) {
  foreign = false;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    ::close(fd);
    return false;
  }
  if (st.st_uid != ::geteuid()) {
    foreign = true;
    ::close(fd);
    return false;
  }
  out.resize(static_cast<std::size_t>(st.st_size));
  std::size_t done = 0;
  while (done < out.size()) {
    ssize_t n = ::read(fd, out.data() + done, out.size() - done);
    if (n <= 0) break;
    done += static_cast<std::size_t>(n);
  }
  ::close(fd);
  out.resize(done);
  return true;
}

bool write_atomically(const fs::path& path, const std::string& content) {
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  std::string temporary = path.string() + ".tmp." + std::to_string(::getpid()) + "." +
                          hex(reinterpret_cast<uintptr_t>(&content));
  int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return false;
  std::size_t done = 0;
  while (done < content.size()) {
    ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n <= 0) break;
    done += static_cast<std::size_t>(n);
  }
  bool ok = done == content.size() && ::fsync(fd) == 0;
  ok = ::close(fd) == 0 && ok;
  if (!ok || ::rename(temporary.c_str(), path.c_str()) != 0) {
    ::unlink(temporary.c_str());
    return false;
  }
  return true;
}

// Splits "<magic>\n<header>\n<payload>"; false when the layout is broken.
bool split_entry(std::string_view text, const char* magic, nlohmann::json& header, std::string_view& payload) {
  std::size_t first = text.find('\n');
  if (first == std::string_view::npos || text.substr(0, first) != magic) return false;
  std::size_t second = text.find('\n', first + 1);
  if (second == std::string_view::npos) return false;
  header = nlohmann::json::parse(text.substr(first + 1, second - first - 1), nullptr, /*allow_exceptions=*/false);
  if (header.is_discarded() || !header.is_object()) return false;
  payload = text.substr(second + 1);
  return true;
}

nlohmann::json provenance_json(const Provenance& p) {
  nlohmann::json deps = nlohmann::json::array();
  for (const auto& path : p.dependencies) deps.push_back({{"path", path}, {"hash", hash_file(path)}});
  return {{"dependencies", deps},
          {"triton", {{"path", p.triton_file}, {"hash", hash_file(p.triton_file)}}},
          {"environment", hex(fnv1a(compiler_environment().data(), compiler_environment().size()))}};
}

// Empty when the inputs recorded in `header` are unchanged; else what changed.
std::string stale_reason(const nlohmann::json& header) {
  for (const auto& dep : header.at("dependencies")) {
    const std::string path = dep.at("path").get<std::string>();
    if (hash_file(path) != dep.at("hash").get<std::string>()) return fmt::format("'{}' changed", path);
  }
  const auto& triton = header.at("triton");
  if (hash_file(triton.at("path").get<std::string>()) != triton.at("hash").get<std::string>()) {
    return "the Triton installation changed";
  }
  const std::string env = compiler_environment();
  if (hex(fnv1a(env.data(), env.size())) != header.at("environment").get<std::string>()) {
    return "Triton's environment variables changed";
  }
  return "";
}

void remove_damaged(const std::string& path, const std::string& kernel, const char* why) {
  log(LogLevel::kWarn, "{}: cache entry '{}' is damaged ({}); removing it and compiling again", kernel, path, why);
  ::unlink(path.c_str());
}

enum class Source { kBundle, kDisk };

// Reads an entry from the bundle or the disk. `validate` checks the parsed header and payload and
// returns "" when good, or why it is damaged.
template <class Validate>
std::optional<std::pair<nlohmann::json, std::string>> read_entry(const std::string& relative, const std::string& dir,
                                                                   const std::string& kernel, const char* magic,
                                                                   Validate&& validate) {
  std::string storage;
  std::string_view text;
  Source source;
  std::string path;
  if (auto entry = bundle_entry(relative)) {
    text = *entry;
    source = Source::kBundle;
    path = "bundle:" + relative;
  } else {
    if (dir.empty()) return std::nullopt;
    path = (fs::path(dir) / "v1" / relative).string();
    bool foreign = false;
    if (!read_file(path, storage, foreign)) {
      if (foreign) log(LogLevel::kWarn, "{}: cache entry '{}' belongs to another user; refusing to load it", kernel, path);
      return std::nullopt;
    }
    text = storage;
    source = Source::kDisk;
  }
  nlohmann::json header;
  std::string_view payload;
  std::string damage;
  try {
    damage = split_entry(text, magic, header, payload) ? validate(header, payload) : "unreadable header";
  } catch (const nlohmann::json::exception& e) {
    damage = e.what();
  }
  if (!damage.empty()) {
    if (source == Source::kDisk) {
      remove_damaged(path, kernel, damage.c_str());
    } else {
      log(LogLevel::kWarn, "{}: bundle entry '{}' is damaged ({}); ignoring it", kernel, relative, damage);
    }
    return std::nullopt;
  }
  if (source == Source::kDisk) {
    std::string reason = stale_reason(header);
    if (!reason.empty()) {
      log(LogLevel::kInfo, "{}: cache entry '{}' is out of date ({})", kernel, path, reason);
      return std::nullopt;
    }
  }
  log(LogLevel::kDebug, "{}: loaded '{}'", kernel, path);
  return std::make_pair(std::move(header), std::string(payload));
}

// One file per (variant, compiler environment): switching a Triton knob back and forth finds
// both builds instead of overwriting one with the other.
std::string variant_file(const VariantKey& key) {
  const std::string env = compiler_environment();
  return hex(key.hash ^ fnv1a(env.data(), env.size())) + ".variant";
}

}  // namespace

uint64_t fnv1a(const void* data, std::size_t size, uint64_t seed) {
  const auto* bytes = static_cast<const unsigned char*>(data);
  uint64_t h = seed;
  for (std::size_t i = 0; i < size; ++i) h = (h ^ bytes[i]) * 0x100000001B3ull;
  return h;
}

std::string hash_file(const std::string& path) {
  if (path.empty()) return "";
  std::ifstream in(path, std::ios::binary);
  if (!in) return "";
  std::ostringstream content;
  content << in.rdbuf();
  const std::string text = content.str();
  return hex(fnv1a(text.data(), text.size()));
}

std::string compiler_environment() {
  std::vector<std::string> entries;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    std::string_view entry(*e);
    bool relevant = entry.starts_with("TRITON_") || entry.starts_with("MLIR_") || entry.starts_with("LLVM_");
    bool ours = entry.starts_with("TRITON_JIT_") || entry.starts_with("TRITON_CACHE_DIR=") ||
                entry.starts_with("TRITON_HOME=") || entry.starts_with("TRITON_DUMP_DIR=") ||
                entry.starts_with("TRITON_OVERRIDE_DIR=");
    if (relevant && !ours) entries.emplace_back(entry);
  }
  std::sort(entries.begin(), entries.end());
  std::string joined;
  for (const auto& e : entries) joined += e + '\n';
  return joined;
}

std::string function_id(const std::string& spec, const std::string& name) {
  std::string base = spec;
  if (auto colon = base.find(':'); colon != std::string::npos && base.find('/') == std::string::npos) {
    base = base.substr(0, colon);  // "package.module:function"
  } else {
    base = fs::path(spec).filename().string();
  }
  std::string text = base + '\0' + name;
  return hex(fnv1a(text.data(), text.size()));
}

PersistentCache& PersistentCache::instance() {
  static auto* cache = new PersistentCache();
  return *cache;
}

std::string PersistentCache::directory() {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!s.resolved) {
    s.checked = usable_directory(s.requested.empty() ? default_directory() : s.requested);
    s.resolved = true;
  }
  return s.checked;
}

void PersistentCache::set_directory(const std::string& dir) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.requested = dir;
  s.resolved = false;
}

std::optional<StoredSignature> PersistentCache::load_signature(const std::string& id, const std::string& kernel) {
  auto entry = read_entry(id + "/signature", directory(), kernel, kSignatureMagic,
                          [](const nlohmann::json& header, std::string_view payload) -> std::string {
                            if (header.at("checksum").get<std::string>() != hex(fnv1a(payload.data(), payload.size()))) {
                              return "checksum mismatch";
                            }
                            return "";
                          });
  if (!entry) return std::nullopt;
  return StoredSignature{std::move(entry->second)};
}

void PersistentCache::store_signature(const std::string& id, const std::string& kernel,
                                      const std::string& describe_json, const Provenance& provenance) {
  std::string dir = directory();
  if (dir.empty()) return;
  nlohmann::json header = provenance_json(provenance);
  header["kernel"] = kernel;
  header["checksum"] = hex(fnv1a(describe_json.data(), describe_json.size()));
  std::string content = std::string(kSignatureMagic) + "\n" + header.dump() + "\n" + describe_json;
  fs::path path = fs::path(dir) / "v1" / id / "signature";
  if (!write_atomically(path, content)) log(LogLevel::kWarn, "{}: could not write '{}'", kernel, path.string());
}

std::optional<StoredVariant> PersistentCache::load_variant(const std::string& id, const std::string& kernel,
                                                           const VariantKey& key) {
  auto entry = read_entry(id + "/" + variant_file(key), directory(), kernel, kVariantMagic,
                          [&key](const nlohmann::json& header, std::string_view payload) -> std::string {
                            const auto& words = header.at("key");
                            if (words.size() != key.size) return "key of another variant";
                            for (uint32_t i = 0; i < key.size; ++i) {
                              if (words[i].get<uint64_t>() != key.words[i]) return "key of another variant";
                            }
                            const auto metadata_size = header.at("metadata_size").get<std::size_t>();
                            const auto binary_size = header.at("binary_size").get<std::size_t>();
                            if (payload.size() != metadata_size + binary_size) return "truncated";
                            if (header.at("checksum").get<std::string>() != hex(fnv1a(payload.data(), payload.size()))) {
                              return "checksum mismatch";
                            }
                            return "";
                          });
  if (!entry) return std::nullopt;
  const auto metadata_size = entry->first.at("metadata_size").get<std::size_t>();
  return StoredVariant{entry->second.substr(metadata_size), entry->second.substr(0, metadata_size)};
}

void PersistentCache::store_variant(const std::string& id, const std::string& kernel, const VariantKey& key,
                                    const std::string& binary, const std::string& metadata_json,
                                    const Provenance& provenance) {
  std::string dir = directory();
  if (dir.empty()) return;
  nlohmann::json header = provenance_json(provenance);
  header["kernel"] = kernel;
  header["key"] = std::vector<uint64_t>(key.words, key.words + key.size);
  header["metadata_size"] = metadata_json.size();
  header["binary_size"] = binary.size();
  std::string payload = metadata_json + binary;
  header["checksum"] = hex(fnv1a(payload.data(), payload.size()));
  std::string content = std::string(kVariantMagic) + "\n" + header.dump() + "\n" + payload;
  fs::path path = fs::path(dir) / "v1" / id / variant_file(key);
  if (!write_atomically(path, content)) log(LogLevel::kWarn, "{}: could not write '{}'", kernel, path.string());
}

void register_bundle_entry(const std::string& relative_path, const void* data, std::size_t size) {
  Bundle& b = bundle();
  std::lock_guard<std::mutex> lock(b.mutex);
  b.entries[relative_path] = std::string_view(static_cast<const char*>(data), size);
}

}  // namespace triton_jit::detail
