#include "compiler/compile_request.h"

#include <fmt/format.h>

#include <bit>
#include <nlohmann/json.hpp>

#include "common/target.h"
#include "triton_jit/errors.h"

namespace triton_jit::detail {
namespace {

using nlohmann::json;

bool valid_utf8(std::string_view text) {
  static constexpr uint32_t kSmallest[] = {0, 0, 0x80, 0x800, 0x10000};  // by sequence length: no overlongs
  std::size_t i = 0;
  while (i < text.size()) {
    const auto c = static_cast<unsigned char>(text[i]);
    std::size_t length;
    uint32_t cp;
    if (c < 0x80) {
      ++i;
      continue;
    } else if ((c & 0xE0) == 0xC0) {
      length = 2, cp = c & 0x1Fu;
    } else if ((c & 0xF0) == 0xE0) {
      length = 3, cp = c & 0x0Fu;
    } else if ((c & 0xF8) == 0xF0) {
      length = 4, cp = c & 0x07u;
    } else {
      return false;
    }
    if (i + length > text.size()) return false;
    for (std::size_t k = 1; k < length; ++k) {
      const auto cc = static_cast<unsigned char>(text[i + k]);
      if ((cc & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3Fu);
    }
    if (cp < kSmallest[length] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    i += length;
  }
  return true;
}

json tagged_constexpr(const KernelSignature& sig, std::size_t i, const DecodedParam& d, const ArgSlot& slot) {
  switch (d.value_kind) {
    case kVNone: return {{"none", nullptr}};
    case kVBool: return {{"bool", d.value != 0}};
    case kVInt: return {{"int", static_cast<int64_t>(d.value)}};
    case kVUInt: return {{"int", d.value}};
    case kVFloat: return {{"float", fmt::format("{:a}", std::bit_cast<double>(d.value))}};
    case kVString: {
      std::string_view text(slot.value.s, slot.size);
      if (!valid_utf8(text)) {
        throw TypeError(fmt::format("{}: argument {} '{}' is a constexpr string that is not valid UTF-8", sig.name, i,
                                    sig.params[i].name));
      }
      return {{"str", std::string(text)}};
    }
  }
  return nullptr;
}

json divisibility() { return json::array({json::array({"tt.divisibility", 16})}); }

}  // namespace

std::string compile_request_json(const KernelSignature& sig, const ResolvedOptions& o, const VariantKey& key,
                                 const ArgSlot* args, std::size_t n) {
  json signature = json::array();
  json constexprs = json::object();
  json attrs = json::object();
  for_each_param(sig, key, [&](std::size_t i, const DecodedParam& d) {
    signature.push_back(token_name(d.token));
    if (d.token == kConstexprToken) {
      const ArgSlot& slot = argument_or_default(sig, args, n, i);
      constexprs[std::to_string(i)] = tagged_constexpr(sig, i, d, slot);
      if (d.value_kind == kVString) {
        // Triton parses every string specialization key as an attribute, a constexpr string's
        // value included: an empty entry, or divisibility when the text contains 'D'.
        std::string_view text(slot.value.s, slot.size);
        attrs[std::to_string(i)] = text.find('D') == std::string_view::npos ? json::array() : divisibility();
      }
    }
    if (d.attr == Attr::kEmpty) attrs[std::to_string(i)] = json::array();
    if (d.attr == Attr::kDivisible16) attrs[std::to_string(i)] = divisibility();
  });
  json options = {{"num_warps", o.num_warps},
                  {"num_stages", o.num_stages},
                  {"num_ctas", o.num_ctas},
                  {"enable_fp_fusion", o.enable_fp_fusion},
                  {"launch_pdl", o.launch_pdl},
                  {"launch_cooperative_grid", o.launch_cooperative_grid}};
  if (o.maxnreg > 0) options["maxnreg"] = o.maxnreg;
  json request = {{"signature", signature},
                  {"constexprs", constexprs},
                  {"attrs", attrs},
                  {"options", options},
                  {"target", target_name(Target{o.arch, o.arch_specific})}};
  return request.dump();
}

}  // namespace triton_jit::detail
