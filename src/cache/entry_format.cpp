#include "cache/entry_format.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <limits>

#include "common/hash.h"

namespace triton_jit::detail {
namespace {

using nlohmann::json;

constexpr std::string_view kMagic = "TRITON_JIT_ENTRY 2 ";

std::string frame(std::string_view kind, const json& header, std::string_view payload) {
  // error_handler_t::strict would throw on a path that is not UTF-8; such a path is replaced,
  // which only makes the entry stale (its source cannot be found again), never wrong.
  std::string body = header.dump(-1, ' ', false, json::error_handler_t::replace);
  body += '\n';
  body.append(payload);
  std::string out(kMagic);
  out.append(kind);
  out += '\n';
  out += digest(body).hex();
  out += '\n';
  out += body;
  return out;
}

// Splits and checks the frame; the header parsed, the payload a view into `bytes`.
bool unframe(std::string_view bytes, std::string_view kind, json& header, std::string_view& payload,
             std::string& error) {
  if (bytes.size() > kMaxEntryBytes) {
    error = "larger than any entry";
    return false;
  }
  if (entry_kind(bytes) != kind) {
    error = bytes.empty() ? "empty" : fmt::format("not a {} entry", kind);
    return false;
  }
  std::size_t first = bytes.find('\n');
  std::size_t second = bytes.find('\n', first + 1);
  if (second == std::string_view::npos || second - first - 1 != 32) {
    error = "no checksum";
    return false;
  }
  std::string_view checksum = bytes.substr(first + 1, 32);
  std::string_view body = bytes.substr(second + 1);
  if (digest(body).hex() != checksum) {
    error = "checksum mismatch";
    return false;
  }
  std::size_t end = body.find('\n');
  if (end == std::string_view::npos) {
    error = "no header";
    return false;
  }
  header = json::parse(body.substr(0, end), nullptr, /*allow_exceptions=*/false);
  if (header.is_discarded() || !header.is_object()) {
    error = "unreadable header";
    return false;
  }
  payload = body.substr(end + 1);
  return true;
}

// Typed reads of a header field: false (and `error` naming the field) when missing or mistyped.
class Fields {
 public:
  Fields(const json& object, std::string& error) : object_(object), error_(error) {}

  bool text(const char* name, std::string& out) {
    auto it = object_.find(name);
    if (it == object_.end() || !it->is_string()) return fail(name, "a string");
    out = it->get_ref<const std::string&>();
    return true;
  }
  bool size(const char* name, std::size_t& out) {
    auto it = object_.find(name);
    if (it == object_.end() || !it->is_number_unsigned()) return fail(name, "a size");
    const uint64_t v = it->get<uint64_t>();
    if (v > kMaxEntryBytes) return fail(name, "a size below 1 GiB");
    out = static_cast<std::size_t>(v);
    return true;
  }
  bool words(const char* name, std::vector<uint64_t>& out) {
    auto it = object_.find(name);
    if (it == object_.end() || !it->is_array() || it->size() > 4096) return fail(name, "an array of words");
    out.clear();
    for (const auto& w : *it) {
      if (!w.is_number_unsigned()) return fail(name, "an array of words");
      out.push_back(w.get<uint64_t>());
    }
    return true;
  }
  const json* object(const char* name) {
    auto it = object_.find(name);
    if (it == object_.end() || !it->is_object()) {
      fail(name, "an object");
      return nullptr;
    }
    return &*it;
  }
  const json* array(const char* name) {
    auto it = object_.find(name);
    if (it == object_.end() || !it->is_array()) {
      fail(name, "an array");
      return nullptr;
    }
    return &*it;
  }

 private:
  bool fail(const char* name, const char* expected) {
    error_ = fmt::format("header field '{}' is not {}", name, expected);
    return false;
  }
  const json& object_;
  std::string& error_;
};

json header_json(const EntryHeader& h) {
  json sources = json::array();
  for (const auto& s : h.provenance.sources) sources.push_back({{"path", s.path}, {"digest", s.digest}});
  return {{"function", h.function},
          {"portable", h.portable},
          {"kernel", h.kernel},
          {"sources", std::move(sources)},
          {"triton",
           {{"version", h.provenance.triton_version},
            {"dir", h.provenance.triton_dir},
            {"fingerprint", h.provenance.triton_fingerprint}}},
          {"environment", h.provenance.environment},
          {"values", h.provenance.values}};
}

bool read_header(const json& j, EntryHeader& h, std::string& error) {
  Fields f(j, error);
  if (!f.text("function", h.function) || !f.text("portable", h.portable) || !f.text("kernel", h.kernel) ||
      !f.text("environment", h.provenance.environment)) {
    return false;
  }
  if (j.contains("values") && !f.text("values", h.provenance.values)) return false;
  const json* triton = f.object("triton");
  if (triton == nullptr) return false;
  Fields t(*triton, error);
  if (!t.text("version", h.provenance.triton_version) || !t.text("dir", h.provenance.triton_dir) ||
      !t.text("fingerprint", h.provenance.triton_fingerprint)) {
    return false;
  }
  const json* sources = f.array("sources");
  if (sources == nullptr) return false;
  for (const auto& s : *sources) {
    if (!s.is_object()) {
      error = "header field 'sources' holds a non-object";
      return false;
    }
    Fields sf(s, error);
    SourceDigest d;
    if (!sf.text("path", d.path) || !sf.text("digest", d.digest)) return false;
    h.provenance.sources.push_back(std::move(d));
  }
  return true;
}

// The "ir" field of a variant: at most a few [stage name, size] pairs, each size below 1 GiB and
// their sum too. The names are views into `field`.
bool read_ir_stages(const json& field, std::vector<std::pair<std::string_view, std::size_t>>& stages,
                    std::size_t& total, std::string& error) {
  if (!field.is_array() || field.size() > 16) {
    error = "header field 'ir' is not an array of at most 16 stages";
    return false;
  }
  for (const auto& s : field) {
    if (!s.is_array() || s.size() != 2 || !s[0].is_string() || !s[1].is_number_unsigned() ||
        s[0].get_ref<const std::string&>().empty() || s[0].get_ref<const std::string&>().size() > 32 ||
        s[1].get<uint64_t>() > kMaxEntryBytes - total) {
      error = "header field 'ir' holds a stage that is not [name of 1 to 32 characters, size]";
      return false;
    }
    total += static_cast<std::size_t>(s[1].get<uint64_t>());
    stages.emplace_back(s[0].get_ref<const std::string&>(), static_cast<std::size_t>(s[1].get<uint64_t>()));
  }
  return true;
}

}  // namespace

std::string_view entry_kind(std::string_view bytes) noexcept {
  if (!bytes.starts_with(kMagic)) return {};
  std::size_t end = bytes.find('\n');
  if (end == std::string_view::npos) return {};
  return bytes.substr(kMagic.size(), end - kMagic.size());
}

std::string serialize_signature(const SignatureEntry& entry) {
  return frame("signature", header_json(entry.header), entry.describe_json);
}

std::string serialize_variant(const VariantEntry& entry) {
  json header = header_json(entry.header);
  header["key"] = entry.key;
  header["target"] = entry.target;
  header["metadata_size"] = entry.metadata_json.size();
  header["binary_size"] = entry.binary.size();
  std::string payload = entry.metadata_json;
  payload += entry.binary;
  if (!entry.ir.empty()) {
    json stages = json::array();
    for (const auto& [stage, text] : entry.ir) {
      stages.push_back(json::array({stage, text.size()}));
      payload += text;
    }
    header["ir"] = std::move(stages);
  }
  return frame("variant", header, payload);
}

std::string serialize_tuning(const TuningEntry& entry) {
  json header = header_json(entry.header);
  header["key"] = entry.key;
  header["device"] = entry.device;
  header["configs"] = entry.configs;
  json times = json::array();
  for (double ms : entry.milliseconds) times.push_back(std::isfinite(ms) ? json(ms) : json(nullptr));
  json body{{"config", entry.config}, {"milliseconds", times}};
  if (!entry.kept.empty()) body["kept"] = entry.kept;
  return frame("tuning", header, body.dump());
}

std::optional<SignatureEntry> parse_signature(std::string_view bytes, std::string& error) {
  try {
    json header;
    std::string_view payload;
    if (!unframe(bytes, "signature", header, payload, error)) return std::nullopt;
    SignatureEntry entry;
    if (!read_header(header, entry.header, error)) return std::nullopt;
    entry.describe_json.assign(payload);
    return entry;
  } catch (const std::exception& e) {  // allocation failures, nothing else is expected
    error = e.what();
    return std::nullopt;
  }
}

std::optional<VariantEntry> parse_variant(std::string_view bytes, std::string& error) {
  try {
    json header;
    std::string_view payload;
    if (!unframe(bytes, "variant", header, payload, error)) return std::nullopt;
    VariantEntry entry;
    if (!read_header(header, entry.header, error)) return std::nullopt;
    Fields f(header, error);
    std::size_t metadata_size = 0;
    std::size_t binary_size = 0;
    if (!f.words("key", entry.key) || !f.text("target", entry.target) || !f.size("metadata_size", metadata_size) ||
        !f.size("binary_size", binary_size)) {
      return std::nullopt;
    }
    // Each size is below 1 GiB (the whole entry is), so no sum can wrap.
    std::size_t ir_size = 0;
    std::vector<std::pair<std::string_view, std::size_t>> stages;
    if (auto it = header.find("ir"); it != header.end()) {
      if (!read_ir_stages(*it, stages, ir_size, error)) return std::nullopt;
    }
    if (payload.size() != metadata_size + binary_size + ir_size) {
      error = fmt::format("payload of {} bytes, header says {} + {} + {}", payload.size(), metadata_size, binary_size,
                          ir_size);
      return std::nullopt;
    }
    entry.metadata_json.assign(payload.substr(0, metadata_size));
    entry.binary.assign(payload.substr(metadata_size, binary_size));
    std::size_t at = metadata_size + binary_size;
    for (const auto& [stage, size] : stages) {
      entry.ir.emplace_back(std::string(stage), std::string(payload.substr(at, size)));
      at += size;
    }
    return entry;
  } catch (const std::exception& e) {
    error = e.what();
    return std::nullopt;
  }
}

}  // namespace triton_jit::detail

namespace triton_jit::detail {

std::optional<TuningEntry> parse_tuning(std::string_view bytes, std::string& error) {
  try {
    json header;
    std::string_view payload;
    if (!unframe(bytes, "tuning", header, payload, error)) return std::nullopt;
    TuningEntry entry;
    if (!read_header(header, entry.header, error)) return std::nullopt;
    Fields f(header, error);
    if (!f.words("key", entry.key) || !f.text("device", entry.device) || !f.text("configs", entry.configs)) {
      return std::nullopt;
    }
    json body = json::parse(payload, nullptr, /*allow_exceptions=*/false);
    if (!body.is_object() || !body.contains("config") || !body["config"].is_number_unsigned() ||
        !body.contains("milliseconds") || !body["milliseconds"].is_array() || body["milliseconds"].size() > 4096) {
      error = "the choice does not parse";
      return std::nullopt;
    }
    const uint64_t config = body["config"].get<uint64_t>();
    if (auto kept = body.find("kept"); kept != body.end()) {  // a prune's result
      if (!kept->is_array() || kept->empty() || kept->size() > 4096) {
        error = "the kept configs do not parse";
        return std::nullopt;
      }
      for (const auto& k : *kept) {
        if (!k.is_number_unsigned() || k.get<uint64_t>() >= 4096) {
          error = "the kept configs do not parse";
          return std::nullopt;
        }
        entry.kept.push_back(static_cast<int>(k.get<uint64_t>()));
      }
      if (config != static_cast<uint64_t>(entry.kept.front()) || !body["milliseconds"].empty()) {
        error = "the kept configs do not parse";
        return std::nullopt;
      }
    } else if (config >= body["milliseconds"].size()) {
      error = "the choice does not parse";
      return std::nullopt;
    }
    entry.config = static_cast<int>(config);
    for (const auto& ms : body["milliseconds"]) {
      if (!ms.is_null() && !ms.is_number()) {
        error = "the choice does not parse";
        return std::nullopt;
      }
      entry.milliseconds.push_back(ms.is_null() ? std::numeric_limits<double>::infinity() : ms.get<double>());
    }
    return entry;
  } catch (const std::exception& e) {
    error = e.what();
    return std::nullopt;
  }
}

}  // namespace triton_jit::detail
