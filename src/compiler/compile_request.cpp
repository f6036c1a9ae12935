#include "compiler/compile_request.h"

#include <fmt/format.h>

#include <bit>
#include <nlohmann/json.hpp>
#include <variant>

#include "common/target.h"
#include "encoding/variant_description.h"
#include "triton_jit/compile_options.h"
#include "triton_jit/errors.h"
#include "triton_jit/jit_function_arg.h"
#include "triton_jit/settings.h"

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
    case kVNone:
      return {{"none", nullptr}};
    case kVBool:
      return {{"bool", d.value != 0}};
    case kVInt:
      return {{"int", static_cast<int64_t>(d.value)}};
    case kVUInt:
      return {{"int", d.value}};
    case kVFloat:
      return {{"float", fmt::format("{:a}", std::bit_cast<double>(d.value))}};
    case kVFunction: {
      // Loaded by the compile script and passed to Triton as the function object.
      const auto& f = *static_cast<const JitFunctionArg*>(slot.value.p);
      return {{"jit_function",
               {{"file", f.file()}, {"module", f.module()}, {"name", f.name()}, {"search_path", f.search_path()}}}};
    }
    case kVString:
    case kVExpression: {
      std::string_view text(slot.value.s, slot.size);
      if (!valid_utf8(text)) {
        throw TypeError(fmt::format("{}: argument {} '{}' is a constexpr {} that is not valid UTF-8", sig.name, i,
                                    sig.params[i].name, d.value_kind == kVString ? "string" : "expression"));
      }
      return {{d.value_kind == kVString ? "str" : "expr", std::string(text)}};
    }
  }
  return nullptr;
}

json divisibility() { return json::array({json::array({"tt.divisibility", 16})}); }

}  // namespace

namespace {

std::string path_key(std::size_t param, const uint32_t* path, uint32_t depth) {
  std::string key = std::to_string(param);
  for (uint32_t d = 0; d < depth; ++d) key += "," + std::to_string(path[d]);
  return key;
}

json tagged_tuple(json items, std::string_view names) {
  json value = {{"tuple", std::move(items)}};
  if (!names.empty()) value["namedtuple"] = std::string(names);
  return value;
}

// A constexpr tuple's value, tagged, from its slots; string elements also get the attribute
// entry Triton parses for every string in a specialization (see compile_request_json).
json tuple_value(const KernelSignature& sig, std::size_t i, const ArgSlot* s, json& attrs) {
  json stack[kMaxTupleDepth + 1];
  uint32_t left[kMaxTupleDepth + 1];
  uint32_t path[kMaxTupleDepth + 1];
  std::string_view names[kMaxTupleDepth + 1];  // a namedtuple's "Name:field,field"
  int depth = -1;
  for (std::size_t pos = 0;; ++pos) {
    const ArgSlot& e = s[pos];
    json value;
    if (e.kind == ArgKind::kTuple) {
      if (depth + 1 >= kMaxTupleDepth)
        throw TypeError(fmt::format("{}: argument {} nests tuples deeper than 16", sig.name, i));
      ++depth;
      stack[depth] = json::array();
      left[depth] = e.size;
      path[depth] = 0;
      names[depth] = e.value.s == nullptr ? std::string_view() : std::string_view(e.value.s, e.extent);
      if (e.size > 0) continue;
      value = tagged_tuple(std::move(stack[depth]), names[depth]);
      --depth;
    } else {
      switch (e.kind) {
        case ArgKind::kNone:
          value = {{"none", nullptr}};
          break;
        case ArgKind::kBool:
          value = {{"bool", e.value.i != 0}};
          break;
        case ArgKind::kInt:
          value = {{"int", e.value.i}};
          break;
        case ArgKind::kUInt:
          value = {{"int", e.value.u}};
          break;
        case ArgKind::kFloat:
          value = {{"float", fmt::format("{:a}", e.value.f)}};
          break;
        case ArgKind::kString: {
          std::string_view text(e.value.s, e.size);
          if (!valid_utf8(text)) {
            throw TypeError(fmt::format("{}: argument {} '{}' holds a string that is not valid UTF-8", sig.name, i,
                                        sig.params[i].name));
          }
          attrs[path_key(i, path, static_cast<uint32_t>(depth + 1))] =
              text.find('D') == std::string_view::npos ? json::array() : divisibility();
          value = {{"str", std::string(text)}};
          break;
        }
        case ArgKind::kExpression:
          value = {{"expr", std::string(e.value.s, e.size)}};
          break;
        default:
          throw TypeError(fmt::format("{}: argument {} is a constexpr tuple holding a tensor", sig.name, i));
      }
    }
    // Append to the open tuple, closing those this completes.
    while (true) {
      if (depth < 0) return value;
      stack[depth].push_back(std::move(value));
      ++path[depth];
      if (--left[depth] > 0) break;
      value = tagged_tuple(std::move(stack[depth]), names[depth]);
      --depth;
    }
  }
}

}  // namespace

std::string compile_request_json(const KernelSignature& sig, const ResolvedOptions& o, const VariantKey& key,
                                 const CallArgs& args) {
  json signature = json::array();
  json constexprs = json::object();
  json attrs = json::object();
  auto attr_of = [&](const std::string& where, Attr a) {
    if (a == Attr::kEmpty) attrs[where] = json::array();
    if (a == Attr::kDivisible16) attrs[where] = divisibility();
  };
  for_each_param(sig, key, [&](std::size_t i, const DecodedParam& d) {
    if (d.token == kTupleToken) {
      // Nested types, and constexprs and attributes by path ("1,0"), as Triton keys them.
      // A namedtuple's names come from its slot: the key holds their digest only. The tuples'
      // slots and the tree's nodes are both in pre-order.
      std::vector<const ArgSlot*> nodes;
      const ArgSlot* slot = &args.param(sig, i);
      for (std::size_t left = 1; left > 0; ++slot) {
        --left;
        if (slot->kind == ArgKind::kTuple) {
          nodes.push_back(slot);
          left += slot->size;
        }
      }
      std::size_t next_node = 0;
      std::vector<json> open;
      std::vector<const ArgSlot*> open_nodes;
      json done;
      walk_tuple(key, d.tree, [&](const TupleStep& step) {
        if (step.kind == TupleStep::kBegin) {
          if (next_node >= nodes.size())
            throw ValueError(fmt::format("{}: argument {} is not the tuple of its key", sig.name, i));
          open.push_back(json::array());
          open_nodes.push_back(step.named ? nodes[next_node] : nullptr);
          ++next_node;
          return;
        }
        json item;
        if (step.kind == TupleStep::kEnd) {
          item = std::move(open.back());
          open.pop_back();
          if (const ArgSlot* named = open_nodes.back()) {
            item = json{{"namedtuple", std::string(named->value.s, named->extent)}, {"items", std::move(item)}};
          }
          open_nodes.pop_back();
        } else {
          const std::string where = path_key(i, step.path, step.depth);
          const TypeToken token = entry_token(step.entry);
          item = token_name(token);
          if (token == kConstexprToken) {
            constexprs[where] = entry_value_kind(step.entry) == kVNone
                                    ? json{{"none", nullptr}}
                                    : json{{"int", static_cast<int64_t>(step.value)}};
          }
          attr_of(where, entry_attr(step.entry));
        }
        if (open.empty()) {
          done = std::move(item);
        } else {
          open.back().push_back(std::move(item));
        }
      });
      signature.push_back(std::move(done));
      return;
    }
    signature.push_back(d.token == kTensorDescToken
                            ? descriptor_type_name(d.value, descriptor_layout(sig, d, args.param(sig, i)))
                            : token_name(d.token));
    if (d.token == kConstexprToken) {
      const ArgSlot& slot = args.param(sig, i);
      if (d.value_kind == kVTuple) {
        constexprs[std::to_string(i)] = tuple_value(sig, i, &slot, attrs);
        return;
      }
      constexprs[std::to_string(i)] = tagged_constexpr(sig, i, d, slot);
      // A function passed to a plain parameter went through Triton's specializer, whose key for
      // it (a hex digest, without 'D') is parsed as an attribute: an empty entry.
      if (d.value_kind == kVFunction && !sig.rules[i].is_constexpr) attrs[std::to_string(i)] = json::array();
      if (d.value_kind == kVString) {
        // Triton parses every string specialization key as an attribute, a constexpr string's
        // value included: an empty entry, or divisibility when the text contains 'D'.
        std::string_view text(slot.value.s, slot.size);
        attrs[std::to_string(i)] = text.find('D') == std::string_view::npos ? json::array() : divisibility();
      }
    }
    attr_of(std::to_string(i), d.attr);
  });
  json options = {{"num_warps", o.num_warps},   {"num_stages", o.num_stages},
                  {"num_ctas", o.num_ctas},     {"enable_fp_fusion", o.enable_fp_fusion},
                  {"launch_pdl", o.launch_pdl}, {"launch_cooperative_grid", o.launch_cooperative_grid}};
  if (o.maxnreg > 0) options["maxnreg"] = o.maxnreg;
  // The caller's options of the installed Triton, validated there (names and types).
  json extra = json::object();
  if (o.extra != nullptr) {
    for (const auto& [name, value] : o.extra->items()) {
      std::visit([&extra, &name](const auto& v) { extra[name] = v; }, value);
    }
  }
  json request = {{"signature", signature}, {"constexprs", constexprs},
                  {"attrs", attrs},         {"options", options},
                  {"extra_options", extra}, {"target", target_name(Target{o.arch, o.arch_specific, o.vendor})}};
  if (keep_ir()) request["keep_ir"] = true;
  return request.dump();
}

}  // namespace triton_jit::detail
