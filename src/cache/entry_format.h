// The bytes of one cache or bundle entry, and the typed headers of each kind. Everything read
// from disk or a bundle goes through here; nothing here throws on bad input (it is fuzzed:
// fuzz/entry_fuzzer.cpp).
//
//   TRITON_JIT_ENTRY 2 <kind>\n
//   <XXH3-128 of everything after this line, 32 hex digits>\n
//   <header: one line of JSON>\n
//   <payload>
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace triton_jit::detail {

inline constexpr std::size_t kMaxEntryBytes = std::size_t{1} << 30;

// A source file a compile read, and the digest of the exact text it read.
struct SourceDigest {
  std::string path;
  std::string digest;
  bool operator==(const SourceDigest&) const = default;
};

// What an entry was built from, to tell whether it is still valid.
struct Provenance {
  std::vector<SourceDigest> sources;  // the kernel's file and every file its compile depended on
  std::string triton_version;
  std::string triton_dir;          // the Triton package that compiled
  std::string triton_fingerprint;  // of that installation (see triton_fingerprint())
  std::string environment;         // digest of Triton's environment knobs
  // The values the kernel read that were computed at import, as the compile script reports them
  // (JSON: [[module, name, fingerprint], ...]; "[]" when every value is pinned by `sources`).
  // "" for an entry written before they were recorded: nothing says which values it was built with.
  std::string values;
};

// Fields every entry carries.
struct EntryHeader {
  std::string function;  // the function's identity: real path or module spec, and name
  std::string portable;  // the identity without the directory (what a bundle matches)
  std::string kernel;    // the kernel's name, for messages
  Provenance provenance;
};

struct SignatureEntry {
  EntryHeader header;
  std::string describe_json;
};

struct VariantEntry {
  EntryHeader header;
  std::vector<uint64_t> key;  // VariantKey words
  std::string target;
  std::string metadata_json;
  std::string binary;
  std::vector<std::pair<std::string, std::string>> ir;  // (stage, text): kept only when asked (keep_ir)
};

// An autotuner's choice for one key on one kind of device.
struct TuningEntry {
  EntryHeader header;
  std::vector<uint64_t> key;         // the tuning key's words
  std::string device;                // the device's name ("NVIDIA H200")
  std::string configs;               // digest of the configs it chose among
  int config = -1;                   // the choice
  std::vector<double> milliseconds;  // per config, as measured (infinity: it failed)
  // A prune's result instead of a choice (device kPruneRecord): the configs prune_configs_by kept,
  // best first; `config` is the first and `milliseconds` is empty.
  std::vector<int> kept;
};

// The device field of a stored prune result: not the name of any device.
inline constexpr const char* kPruneRecord = "prune_configs_by";

std::string serialize_signature(const SignatureEntry& entry);
std::string serialize_tuning(const TuningEntry& entry);
std::string serialize_variant(const VariantEntry& entry);

// Parse and check an entry; on failure `error` says why and nullopt is returned.
std::optional<SignatureEntry> parse_signature(std::string_view bytes, std::string& error);
std::optional<VariantEntry> parse_variant(std::string_view bytes, std::string& error);
std::optional<TuningEntry> parse_tuning(std::string_view bytes, std::string& error);

// The entry kind on its first line ("signature", "variant", ...), or "" when there is none.
std::string_view entry_kind(std::string_view bytes) noexcept;

}  // namespace triton_jit::detail
