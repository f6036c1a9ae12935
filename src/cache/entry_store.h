// The persistent cache and bundles, as the variant builder sees them: load an entry only when it
// belongs to this function and everything it was built from is unchanged; store one only after
// it was validated. See Note [Cache identity].
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cache/entry_format.h"
#include "encoding/variant_key.h"

namespace triton_jit::detail {

// Who a function is, for the cache. Built by the runtime before anything is compiled.
struct FunctionIdentity {
  std::string identity;    // "file:<real path>::<function>" or "module:<spec>[<search path>]::<function>"
  std::string portable;    // "<file name>::<function>" or "module:<spec>::<function>": what bundles match
  std::string label;       // the function's name as the user gave it, for messages
  std::string file;        // the resolved real path of a file spec, "" for a module spec
  std::string disk_dir;    // digest of identity
  std::string bundle_dir;  // digest of portable
  // The values computed at import (Provenance::values) that this process's signature was checked
  // against; variants and tuning results built with others are not served. Set once, before the
  // function is published.
  std::string values;
};
FunctionIdentity make_identity(std::string identity, std::string portable, std::string label, std::string file);

// The digest of a source file as this process first read it; "" when unreadable. Memoised so
// that one process sees one version of each file. Thread-safe.
std::string source_digest(const std::string& path);

// A fingerprint of the Triton installation in `triton_dir` (its __init__.py and compiled
// library), computed without Python. Memoised. Thread-safe.
std::string triton_fingerprint(const std::string& triton_dir);

// The entry file name of a variant: its key and Triton's environment knobs.
std::string variant_file_name(const VariantKey& key, const std::string& environment);

enum class EntrySource { kBundle, kDisk };

struct LoadedTuning {
  TuningEntry entry;
  EntrySource source;
};

struct LoadedSignature {
  SignatureEntry entry;
  EntrySource source;
};
struct LoadedVariant {
  VariantEntry entry;
  EntrySource source;
};

// Thread-safe; every function is a cold path. Damaged or foreign entries are removed (when they
// are ours) with a warning, and reported as misses.
std::optional<LoadedSignature> load_signature(const FunctionIdentity& id, bool offline);
std::optional<LoadedVariant> load_variant(const FunctionIdentity& id, const VariantKey& key, bool offline);
std::optional<LoadedTuning> load_tuning(const FunctionIdentity& id, const std::vector<uint64_t>& key,
                                        const std::string& device, const std::string& configs, bool offline);
// False when nothing was written (no usable cache directory, or the write failed); logged.
bool store_signature(const FunctionIdentity& id, const SignatureEntry& entry);
bool store_variant(const FunctionIdentity& id, const VariantKey& key, const VariantEntry& entry);
bool store_tuning(const FunctionIdentity& id, const TuningEntry& entry);
// The entry file name of a tuning result.
std::string tuning_file_name(const std::vector<uint64_t>& key, const std::string& device, const std::string& configs);

// Removes a disk entry that loaded but failed a later check (its metadata or signature do not
// parse), with a warning naming `why`.
void discard_signature(const FunctionIdentity& id, const std::string& why);
void discard_variant(const FunctionIdentity& id, const VariantKey& key, const std::string& why);

// Why an entry's provenance no longer holds ("" when it holds). Signatures do not depend on
// Triton's environment knobs, variants do.
std::string stale_reason(const Provenance& provenance, bool check_environment);

}  // namespace triton_jit::detail
