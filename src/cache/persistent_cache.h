// The persistent variant cache: compiled variants and static signatures on disk, and bundles
// embedded in a program, so that a warm or deployed process needs no Python.
//
// Layout: <dir>/v1/<function id>/signature and <dir>/v1/<function id>/<variant hash>.variant.
// Each file is a magic line, a JSON header line and (for variants) the cubin. A disk entry is
// trusted only if its checksum holds and the files it was built from (the kernel's source and
// every file of the JIT functions it calls, Triton itself) and Triton's environment knobs are
// unchanged; otherwise it is a miss, and a damaged entry is removed and rebuilt with a warning.
// Bundle entries are trusted on their checksum alone: they are what was deployed.
// See Note [Persistent cache safety] in persistent_cache.cpp.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "encoding/variant_key.h"

namespace triton_jit::detail {

struct FileHash {
  std::string path;
  std::string hash;  // hex FNV-1a 64 of the content
};

struct StoredSignature {
  std::string describe_json;
};

struct StoredVariant {
  std::string binary;
  std::string metadata_json;
};

// What a compile or describe recorded about its inputs, from the compile script.
struct Provenance {
  std::vector<std::string> dependencies;  // source files, absolute
  std::string triton_file;                // triton/__init__.py of the Triton that compiled
};

// The id of a function in the cache: from the file (or module) name and the function name,
// not the directory, so that a bundle made on one machine serves another.
std::string function_id(const std::string& spec, const std::string& name);

// Thread-safe; every method is a cold path.
class PersistentCache {
 public:
  static PersistentCache& instance();

  std::optional<StoredSignature> load_signature(const std::string& id, const std::string& kernel);
  void store_signature(const std::string& id, const std::string& kernel, const std::string& describe_json,
                       const Provenance& provenance);

  std::optional<StoredVariant> load_variant(const std::string& id, const std::string& kernel, const VariantKey& key);
  void store_variant(const std::string& id, const std::string& kernel, const VariantKey& key,
                     const std::string& binary, const std::string& metadata_json, const Provenance& provenance);

  // The directory in use ("" when disabled).
  std::string directory();
  void set_directory(const std::string& dir);

 private:
  PersistentCache() = default;
};

// In-memory bundle entries, keyed by their path relative to v1/ ("<id>/signature").
void register_bundle_entry(const std::string& relative_path, const void* data, std::size_t size);

// The fingerprint of the environment variables Triton's compiler reads (TRITON_*, MLIR_*, LLVM_*
// apart from triton_jit's own and the cache locations).
std::string compiler_environment();

std::string hash_file(const std::string& path);  // "" when unreadable
uint64_t fnv1a(const void* data, std::size_t size, uint64_t seed = 0xCBF29CE484222325ull);

}  // namespace triton_jit::detail
