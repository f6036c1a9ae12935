#include "encoding/kernel_signature.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "common/hash.h"
#include "triton_jit/errors.h"

namespace triton_jit::detail {

ArgSlot slot_from_tagged(const nlohmann::json& tagged, KernelSignature& sig, std::string& error) {
  ArgSlot slot;
  if (!tagged.is_object() || tagged.size() != 1) {
    error = "a malformed value";
    return slot;
  }
  auto it = tagged.begin();  // iterators, not a binding to a temporary items() proxy
  const std::string& kind = it.key();
  const nlohmann::json& value = it.value();
  if (kind == "none") {
    slot.kind = ArgKind::kNone;
  } else if (kind == "bool" && value.is_boolean()) {
    slot.kind = ArgKind::kBool;
    slot.value.i = value.get<bool>() ? 1 : 0;
  } else if (kind == "int" && value.is_number_unsigned() && value.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) {
    slot.kind = ArgKind::kUInt;
    slot.value.u = value.get<uint64_t>();
  } else if (kind == "int" && value.is_number_integer()) {
    slot.kind = ArgKind::kInt;
    slot.value.i = value.get<int64_t>();
  } else if (kind == "int") {
    error = "an integer default outside the 64-bit range";
  } else if (kind == "float" && value.is_string()) {
    const std::string& text = value.get_ref<const std::string&>();
    char* end = nullptr;
    slot.kind = ArgKind::kFloat;
    slot.value.f = std::strtod(text.c_str(), &end);  // hexadecimal float: exact
    if (text.empty() || end != text.c_str() + text.size()) error = fmt::format("a malformed float '{}'", text);
  } else if ((kind == "str" || kind == "expr") && value.is_string()) {
    const std::string& stored = sig.string_storage.emplace_back(value.get<std::string>());
    slot.kind = kind == "str" ? ArgKind::kString : ArgKind::kExpression;
    slot.value.s = stored.data();
    slot.size = static_cast<uint32_t>(stored.size());
  } else {
    error = fmt::format("a default of a kind C++ cannot pass ({})",
                        value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  }
  return slot;
}

std::size_t param_index(const KernelSignature& sig, const std::string& name, const char* what) {
  for (std::size_t i = 0; i < sig.params.size(); ++i) {
    if (sig.params[i].name == name) return i;
  }
  throw Error(fmt::format("triton_jit: {}: '{}' is not a parameter of {}", what, name, sig.name));
}

KernelSignature parse_kernel_signature(std::string_view text) {
  KernelSignature sig;
  try {
    auto json = nlohmann::json::parse(text);
    sig.name = json.at("name").get<std::string>();
    sig.file = json.value("file", std::string());
    sig.triton_version = json.value("triton_version", std::string());
    for (const auto& p : json.at("params")) {
      ParamSpec spec;
      spec.name = p.at("name").get<std::string>();
      spec.is_constexpr = p.at("kind").get<std::string>() == "constexpr";
      spec.specialize = !p.at("do_not_specialize").get<bool>();
      spec.align = !p.at("do_not_specialize_on_alignment").get<bool>();
      if (!spec.is_constexpr) spec.annotation = parse_token(p.value("annotation", std::string()));
      if (p.contains("default")) {
        spec.has_default = true;
        spec.default_value = slot_from_tagged(p.at("default"), sig, spec.default_error);
      }
      sig.rules.push_back(ParamRule{spec.is_constexpr, spec.specialize, spec.align, spec.annotation});
      sig.params.push_back(std::move(spec));
    }
    sig.num_required = sig.params.size();
    while (sig.num_required > 0 && sig.params[sig.num_required - 1].has_default) --sig.num_required;
    parse_decorators(json, sig);
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    throw Error(fmt::format("triton_jit: malformed kernel description: {}", e.what()));
  }
  return sig;
}

}  // namespace triton_jit::detail
