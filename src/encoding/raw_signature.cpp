#include "encoding/raw_signature.h"

#include <fmt/format.h>

#include <charconv>
#include <cstring>
#include <new>

#include "common/hash.h"
#include "encoding/type_token.h"
#include "triton_jit/errors.h"

namespace triton_jit::detail {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// Splits at the commas outside parentheses; an unbalanced text is an error of the caller.
bool split_top_level(std::string_view text, std::vector<std::string_view>& parts) {
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '(') {
      ++depth;
    } else if (text[i] == ')') {
      if (--depth < 0) return false;
    } else if (text[i] == ',' && depth == 0) {
      parts.push_back(trim(text.substr(start, i - start)));
      start = i + 1;
    }
  }
  if (depth != 0) return false;
  parts.push_back(trim(text.substr(start)));
  return true;
}

std::string from_hex(std::string_view hex, bool& ok) {
  std::string out;
  ok = hex.size() % 2 == 0;
  for (std::size_t i = 0; ok && i < hex.size(); i += 2) {
    unsigned value = 0;
    auto [ptr, ec] = std::from_chars(hex.data() + i, hex.data() + i + 2, value, 16);
    ok = ec == std::errc() && ptr == hex.data() + i + 2;
    out += static_cast<char>(value);
  }
  return out;
}

struct Parser {
  const KernelSignature& sig;
  RawSignature& out;

  [[noreturn]] void fail(std::size_t position, std::string_view token, std::string_view why) const {
    const std::size_t index = param_of(position);
    const std::string name = index < sig.params.size() ? fmt::format(" ('{}')", sig.params[index].name) : "";
    throw ValueError(fmt::format("{}: launch_with_raw_args: parameter {}{} of the signature is '{}': {}", sig.name,
                                 position, name, token.substr(0, 200), why));
  }

  // The kernel parameter the call's `position`-th argument fills: a decorated kernel's caller
  // passes only what no decorator sets.
  std::size_t param_of(std::size_t position) const {
    if (sig.decorated()) return position < sig.user_params.size() ? sig.user_params[position] : sig.params.size();
    return position;
  }

  // Bounded before it recurses: a tuple deeper than the encoder takes, or more values than a raw
  // launch holds, is refused at the level that exceeds it, whatever the text's nesting.
  void parse(std::string_view token, std::size_t position, bool constexpr_param, int depth = 0) {
    if (token.empty()) fail(position, token, "an empty token");
    RawParam p;
    p.position = position;
    if (token.front() == '(') {
      if (token.back() != ')') fail(position, token, "a tuple must end with ')'");
      if (depth >= kMaxTupleDepth) {
        fail(position, token, fmt::format("tuples nest deeper than {} levels", kMaxTupleDepth));
      }
      std::vector<std::string_view> elements;
      const std::string_view inner = trim(token.substr(1, token.size() - 2));
      if (!inner.empty() && !split_top_level(inner, elements)) fail(position, token, "unbalanced parentheses");
      if (out.params.size() + 1 + elements.size() > kMaxRawSlots) {
        fail(position, token, fmt::format("more than {} values with its tuples' elements", kMaxRawSlots));
      }
      p.kind = RawParam::Kind::kTupleStart;
      p.elements = static_cast<uint32_t>(elements.size());
      out.params.push_back(p);
      out.nested = true;
      for (std::string_view element : elements) parse(element, position, constexpr_param, depth + 1);
      return;
    }
    if (token.starts_with("@jit:")) {
      // "@jit:<where, hex>:<name, hex>:<key>", as JitFunctionArg::signature_token() writes it
      const std::string_view rest = token.substr(5);
      const std::size_t first = rest.find(':'),
                        second = rest.find(':', first == std::string_view::npos ? 0 : first + 1);
      bool ok_where = false, ok_name = false;
      if (first == std::string_view::npos || second == std::string_view::npos) {
        fail(position, token, "a function token is @jit:<path, hex>:<name, hex>:<key>");
      }
      const std::string where = from_hex(rest.substr(0, first), ok_where);
      const std::string name = from_hex(rest.substr(first + 1, second - first - 1), ok_name);
      if (!ok_where || !ok_name) fail(position, token, "its path or name is not hexadecimal");
      out.functions.emplace_back(where, name);
      p.literal = to_slot(out.functions.back());
      out.params.push_back(p);
      return;
    }
    if (token == "nullopt" || token == "None") {
      out.params.push_back(p);  // a kNone literal
      return;
    }
    if (token == "true" || token == "True" || token == "false" || token == "False") {
      p.literal = ArgTraits<bool>::to_slot(token[0] == 't' || token[0] == 'T');
      out.params.push_back(p);
      return;
    }
    if (parse_type(token, p)) {
      out.params.push_back(p);
      if (p.kind != RawParam::Kind::kLiteral) ++out.passed;
      return;
    }
    if (parse_number(token, p)) {
      out.params.push_back(p);
      return;
    }
    if (!constexpr_param) {
      fail(position, token,
           "not a type (\"*fp32\", \"i64:16\"), a value (\"1024\", \"0.5\", \"true\", \"nullopt\") "
           "or a tuple; a string is a value only for a tl.constexpr parameter");
    }
    out.strings.emplace_back(token);
    p.literal = to_slot(std::string_view(out.strings.back()));
    out.params.push_back(p);
  }

  bool parse_type(std::string_view token, RawParam& p) {
    std::string_view base = token;
    uint8_t claim = 0;
    if (base.ends_with(":16")) {
      claim = 16;
      base.remove_suffix(3);
    } else if (base.ends_with(":1")) {
      claim = 1;
      base.remove_suffix(2);
    }
    // libtriton_jit names bool "i1" (Triton's canonical name is "u1")
    TypeToken type = base == "i1"    ? scalar_token(DType::kBool)
                     : base == "*i1" ? pointer_token(DType::kBool, false)
                                     : parse_token(base);
    if (type == kNoToken || type == kConstexprToken) return false;
    const DType dtype = token_dtype(type);
    if (is_pointer(type)) {
      if (claim == 1) fail(p.position, token, "a pointer cannot be specialised to 1; ':16' claims 16-byte alignment");
      p.kind = RawParam::Kind::kPointer;
      p.dtype = dtype;
      p.claim = claim;
      return true;
    }
    if (dtype == DType::kFloat16 || dtype == DType::kBFloat16 || (dtype >= DType::kFloat8E4M3FN)) {
      fail(p.position, token, "a 16- or 8-bit float scalar cannot be passed (Triton passes a float as fp32)");
    }
    const bool real = dtype == DType::kFloat32 || dtype == DType::kFloat64;
    if (claim != 0 && (real || dtype == DType::kBool)) fail(p.position, token, "only integers take ':16' or ':1'");
    if (claim == 1) {  // the value 1, fixed by the text: Triton makes it a constexpr
      p.literal = ArgTraits<int64_t>::to_slot(1);
      return true;
    }
    p.kind = RawParam::Kind::kScalar;
    p.dtype = dtype;
    p.claim = claim;
    return true;
  }

  static bool parse_number(std::string_view token, RawParam& p) {
    const char* end = token.data() + token.size();
    int64_t i = 0;
    if (auto [ptr, ec] = std::from_chars(token.data(), end, i); ec == std::errc() && ptr == end) {
      p.literal = ArgTraits<int64_t>::to_slot(i);
      return true;
    }
    uint64_t u = 0;
    if (auto [ptr, ec] = std::from_chars(token.data(), end, u); ec == std::errc() && ptr == end) {
      p.literal = ArgTraits<uint64_t>::to_slot(u);
      return true;
    }
    double d = 0;
    if (auto [ptr, ec] = std::from_chars(token.data(), end, d); ec == std::errc() && ptr == end) {
      p.literal = ArgTraits<double>::to_slot(d);
      return true;
    }
    return false;
  }
};

template <class T>
T read(const void* address) noexcept {
  T value;
  std::memcpy(&value, address, sizeof(T));  // ParameterBuffer aligns values, but nothing promises it
  return value;
}

[[noreturn]] __attribute__((noinline, cold)) void throw_claim(const KernelSignature& sig, const RawSignature& s,
                                                              const RawParam& p, std::string_view what) {
  const std::size_t index =
      sig.decorated() ? (p.position < sig.user_params.size() ? sig.user_params[p.position] : sig.params.size())
                      : p.position;
  const std::string name = index < sig.params.size() ? fmt::format(" ('{}')", sig.params[index].name) : "";
  throw ValueError(fmt::format("{}: launch_with_raw_args: parameter {}{}: the signature '{}' claims {}", sig.name,
                               p.position, name, s.text.substr(0, 300), what));
}

}  // namespace

RawSignature parse_raw_signature(std::string_view text, const KernelSignature& sig) {
  RawSignature out;
  out.text = std::string(text);
  out.hash = hash64(text.data(), text.size());
  std::vector<std::string_view> tokens;
  if (!split_top_level(text, tokens)) {
    throw ValueError(fmt::format("{}: launch_with_raw_args: the signature '{}' has unbalanced parentheses", sig.name,
                                 text.substr(0, 300)));
  }
  const std::size_t limit = sig.decorated() ? sig.user_params.size() : sig.params.size();
  if (text.empty()) tokens.clear();
  if (tokens.size() > limit || tokens.size() > kMaxRawSlots) {
    throw ValueError(
        fmt::format("{}: launch_with_raw_args: the signature has {} parameters, the kernel takes at most "
                    "{}{}",
                    sig.name, tokens.size(), limit, sig.decorated() ? " (its decorators set the others)" : ""));
  }
  Parser parser{sig, out};
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    const std::size_t index = parser.param_of(i);
    parser.parse(tokens[i], i, index < sig.params.size() && sig.params[index].is_constexpr);
  }
  if (out.params.size() > kMaxRawSlots) {
    throw ValueError(
        fmt::format("{}: launch_with_raw_args: the signature has {} values with its tuples' elements; a "
                    "raw launch takes at most {}",
                    sig.name, out.params.size(), kMaxRawSlots));
  }
  return out;
}

void raw_slots(const RawSignature& s, const KernelSignature& sig, void* const* args, ArgSlot* out) {
  // `out` is raw storage: each slot is constructed in it (no zeroing of a large array per call)
  std::size_t next = 0;
  for (const RawParam& p : s.params) {
    ArgSlot slot = p.literal;
    switch (p.kind) {
      case RawParam::Kind::kLiteral:
        break;
      case RawParam::Kind::kTupleStart:
        slot = ArgSlot{};
        slot.kind = ArgKind::kTuple;
        slot.size = p.elements;
        break;
      case RawParam::Kind::kPointer: {
        const void* pointer = read<const void*>(args[next++]);
        if (p.claim == 16 && reinterpret_cast<uintptr_t>(pointer) % 16 != 0) [[unlikely]] {
          throw_claim(sig, s, p, fmt::format("16-byte alignment, but the pointer is {}", pointer));
        }
        slot = to_slot(device_pointer(pointer, p.dtype));
        break;
      }
      case RawParam::Kind::kScalar: {
        const void* at = args[next++];
        switch (p.dtype) {
          case DType::kBool:
            slot = ArgTraits<bool>::to_slot(read<uint8_t>(at) != 0);
            break;
          case DType::kInt8:
            slot = ArgTraits<int8_t>::to_slot(read<int8_t>(at));
            break;
          case DType::kInt16:
            slot = ArgTraits<int16_t>::to_slot(read<int16_t>(at));
            break;
          case DType::kInt32:
            slot = ArgTraits<int32_t>::to_slot(read<int32_t>(at));
            break;
          case DType::kInt64:
            slot = ArgTraits<int64_t>::to_slot(read<int64_t>(at));
            break;
          case DType::kUInt8:
            slot = ArgTraits<uint8_t>::to_slot(read<uint8_t>(at));
            break;
          case DType::kUInt16:
            slot = ArgTraits<uint16_t>::to_slot(read<uint16_t>(at));
            break;
          case DType::kUInt32:
            slot = ArgTraits<uint32_t>::to_slot(read<uint32_t>(at));
            break;
          case DType::kUInt64:
            slot = ArgTraits<uint64_t>::to_slot(read<uint64_t>(at));
            break;
          case DType::kFloat32:
            slot = ArgTraits<float>::to_slot(read<float>(at));
            break;
          default:
            slot = ArgTraits<double>::to_slot(read<double>(at));
            break;  // fp64: the parser took no other
        }
        if (p.claim == 16 && (slot.value.u % 16) != 0) [[unlikely]] {
          throw_claim(sig, s, p,
                      fmt::format("divisibility by 16, but the value is {}", slot.kind == ArgKind::kUInt
                                                                                 ? fmt::format("{}", slot.value.u)
                                                                                 : fmt::format("{}", slot.value.i)));
        }
        break;
      }
    }
    new (out++) ArgSlot(slot);
  }
}

}  // namespace triton_jit::detail
