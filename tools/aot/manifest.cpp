#include "manifest.h"

#include <fmt/format.h>

#include <optional>

#include <nlohmann/json.hpp>

namespace triton_jit::aot {
namespace {

// As deep as the runtime takes tuples, and as many values as one call from Python may pass.
constexpr int kMaxTupleDepth = 16;
constexpr std::size_t kMaxCallValues = 256;

using nlohmann::json;

struct Parser {
  const std::string& file;
  std::vector<std::unique_ptr<CompileOptions>>* owned = nullptr;  // where compile_options live

  [[noreturn]] void fail(const std::string& where, const std::string& what) const {
    throw ManifestError(fmt::format("{}: {}: {}", file, where, what));
  }

  void only_keys(const json& object, const std::string& where, std::initializer_list<const char*> keys) const {
    for (auto it = object.begin(); it != object.end(); ++it) {
      bool known = false;
      for (const char* k : keys) known = known || it.key() == k;
      if (!known) {
        std::string list;
        for (const char* k : keys) list += (list.empty() ? "" : ", ") + std::string(k);
        fail(where, fmt::format("unknown key '{}' (expected one of: {})", it.key().substr(0, 100), list));
      }
    }
  }

  std::string text(const json& object, const std::string& where, const char* key, bool required) const {
    auto it = object.find(key);
    if (it == object.end()) {
      if (required) fail(where, fmt::format("'{}' is missing", key));
      return "";
    }
    if (!it->is_string()) fail(where, fmt::format("'{}' must be a string", key));
    std::string value = it->get<std::string>();
    if (value.find('\0') != std::string::npos) fail(where, fmt::format("'{}' contains a NUL byte", key));
    return value;
  }

  int integer(const json& object, const std::string& where, const char* key, int fallback, bool (*valid)(int64_t),
              const char* expected) const {
    auto it = object.find(key);
    if (it == object.end()) return fallback;
    if (!it->is_number_integer()) fail(where, fmt::format("'{}' must be an integer ({})", key, expected));
    if (it->is_number_unsigned() && it->get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) {
      fail(where, fmt::format("'{}' is {}; expected {}", key, it->get<uint64_t>(), expected));
    }
    const int64_t v = it->get<int64_t>();
    if (!valid(v)) fail(where, fmt::format("'{}' is {}; expected {}", key, v, expected));
    return static_cast<int>(v);
  }

  bool boolean(const json& object, const std::string& where, const char* key, bool fallback) const {
    auto it = object.find(key);
    if (it == object.end()) return fallback;
    if (!it->is_boolean()) fail(where, fmt::format("'{}' must be true or false", key));
    return it->get<bool>();
  }

  // Options of the installed Triton by name; the compile checks names and types against it.
  const CompileOptions* compile_options(const json& j, const std::string& where) const {
    const std::string at = where + ".compile_options";
    if (!j.is_object()) fail(at, "must be an object of option names and values");
    auto made = std::make_unique<CompileOptions>();
    for (auto it = j.begin(); it != j.end(); ++it) {
      const std::string& name = it.key();
      try {
        if (it->is_boolean()) {
          made->set(name, it->get<bool>());
        } else if (it->is_number_integer() && !it->is_number_unsigned()) {
          made->set(name, static_cast<long long>(it->get<int64_t>()));
        } else if (it->is_number_unsigned() && it->get<uint64_t>() <= static_cast<uint64_t>(INT64_MAX)) {
          made->set(name, static_cast<long long>(it->get<uint64_t>()));
        } else if (it->is_number_float()) {
          made->set(name, it->get<double>());
        } else if (it->is_string()) {
          made->set(name, it->get<std::string>());
        } else {
          fail(at,
               fmt::format("'{}' must be a boolean, an integer (64-bit), a number or a string", name.substr(0, 100)));
        }
      } catch (const ValueError& e) {
        fail(at, e.what());
      }
    }
    if (made->empty()) return nullptr;
    owned->push_back(std::move(made));
    return owned->back().get();
  }

  LaunchConfig options(const json& j, const std::string& where) const {
    if (!j.is_object()) fail(where, "must be an object");
    only_keys(j, where,
              {"num_warps", "num_stages", "num_ctas", "maxnreg", "enable_fp_fusion", "launch_pdl",
               "launch_cooperative_grid", "compile_options"});
    LaunchConfig c;
    c.num_warps = integer(
        j, where, "num_warps", 0, [](int64_t v) { return v >= 1 && v <= 32 && (v & (v - 1)) == 0; },
        "1, 2, 4, 8, 16 or 32");
    c.num_stages = integer(
        j, where, "num_stages", 0, [](int64_t v) { return v >= 1 && v <= 64; }, "1 to 64");
    c.num_ctas = integer(
        j, where, "num_ctas", 0, [](int64_t v) { return v >= 1 && v <= 16 && (v & (v - 1)) == 0; }, "1, 2, 4, 8 or 16");
    c.maxnreg = integer(
        j, where, "maxnreg", 0, [](int64_t v) { return v == 0 || (v >= 16 && v <= 255); }, "0 (no limit) or 16 to 255");
    c.enable_fp_fusion = boolean(j, where, "enable_fp_fusion", true);
    c.launch_pdl = boolean(j, where, "launch_pdl", false);
    c.launch_cooperative_grid = boolean(j, where, "launch_cooperative_grid", false);
    if (auto extra = j.find("compile_options"); extra != j.end()) c.compile_options = compile_options(*extra, where);
    return c;
  }

  // One call's arguments: a signature's, or a tuning call's.
  std::vector<Argument> arguments(const json& list, const std::string& where, bool tuning) const {
    std::vector<Argument> out;
    std::size_t values = 0;
    for (std::size_t a = 0; a < list.size(); ++a) {
      out.push_back(argument(list[a], fmt::format("{}[{}]", where, a), tuning, 0, values));
    }
    return out;
  }

  Argument argument(const json& a, const std::string& where, bool tuning, int depth, std::size_t& values) const {
    if (++values > kMaxCallValues) {
      fail(where, fmt::format("a call holds at most {} values, the tuples' elements included", kMaxCallValues));
    }
    Argument out;
    if (a.is_array()) {
      if (depth >= kMaxTupleDepth) fail(where, fmt::format("tuples nest at most {} deep", kMaxTupleDepth));
      if (a.empty()) fail(where, "an empty list; a tuple argument holds at least one element");
      out.kind = Argument::Kind::kTuple;
      for (std::size_t e = 0; e < a.size(); ++e) {
        out.elements.push_back(argument(a[e], fmt::format("{}[{}]", where, e), tuning, depth + 1, values));
      }
      return out;
    }
    if (tuning && a.is_object() && a.contains("tensor")) return tensor(a, where);
    if (a.is_null()) {
      out.kind = Argument::Kind::kNone;
    } else if (a.is_boolean()) {
      out.kind = Argument::Kind::kBool;
      out.i = a.get<bool>() ? 1 : 0;
    } else if (a.is_number_unsigned()) {
      out.kind = a.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX) ? Argument::Kind::kUInt : Argument::Kind::kInt;
      out.u = a.get<uint64_t>();
      out.i = static_cast<int64_t>(out.u);
    } else if (a.is_number_integer()) {
      out.kind = Argument::Kind::kInt;
      out.i = a.get<int64_t>();
    } else if (a.is_number_float()) {
      out.kind = Argument::Kind::kFloat;
      out.f = a.get<double>();
    } else if (a.is_object()) {
      only_keys(a, where, {"str"});
      out.kind = Argument::Kind::kString;
      out.text = text(a, where, "str", true);
    } else if (a.is_string()) {
      type_or_string(a.get_ref<const std::string&>(), where, out);
      if (tuning && (out.kind == Argument::Kind::kPointer || out.kind == Argument::Kind::kScalarType)) {
        fail(where, fmt::format("'{}' is a type; a tuning call needs values: a number, or for a pointer "
                                "{{\"tensor\": \"fp16\", \"numel\": 1024}}",
                                a.get<std::string>().substr(0, 100)));
      }
    } else {
      fail(where, "must be a type, a value or a list (a tuple)");
    }
    return out;
  }

  // {"tensor": "fp16", "numel": 1024} or {"tensor": "fp16", "shape": [32, 32], "fill": "zero"}
  Argument tensor(const json& a, const std::string& where) const {
    only_keys(a, where, {"tensor", "numel", "shape", "fill"});
    Argument out;
    out.kind = Argument::Kind::kTensor;
    std::string type = text(a, where, "tensor", true);
    if (type.starts_with('*')) type.erase(0, 1);
    const std::optional<DType> dtype = dtype_named(type);
    if (!dtype)
      fail(where, fmt::format("'tensor' is '{}'; expected an element type such as fp16, bf16, fp32, i32",
                              type.substr(0, 100)));
    out.dtype = *dtype;
    constexpr uint64_t kMaxElements = uint64_t{1} << 40;
    const auto numel = a.find("numel");
    const auto shape = a.find("shape");
    if ((numel == a.end()) == (shape == a.end())) fail(where, "give one of 'numel' and 'shape'");
    if (numel != a.end()) {
      if (!numel->is_number_unsigned() || numel->get<uint64_t>() == 0 || numel->get<uint64_t>() > kMaxElements) {
        fail(where, "'numel' must be an integer from 1 to 2^40");
      }
      out.numel = numel->get<uint64_t>();
    } else {
      if (!shape->is_array() || shape->empty() || shape->size() > 8)
        fail(where, "'shape' must be a list of 1 to 8 sizes");
      out.numel = 1;
      for (const json& d : *shape) {
        if (!d.is_number_unsigned() || d.get<uint64_t>() == 0 || d.get<uint64_t>() > kMaxElements / out.numel) {
          fail(where, "'shape' must hold positive sizes of at most 2^40 elements in all");
        }
        out.numel *= d.get<uint64_t>();
      }
    }
    const std::string fill = text(a, where, "fill", false);
    if (!fill.empty() && fill != "random" && fill != "zero") {
      fail(where, fmt::format("'fill' is '{}'; expected 'random' or 'zero'", fill.substr(0, 100)));
    }
    out.random = fill != "zero";
    return out;
  }

  std::vector<GridExpression> grid(const json& g, const std::string& where) const {
    if (!g.is_array() || g.empty() || g.size() > 3) fail(where, "must be a list of one to three dimensions");
    std::vector<GridExpression> out;
    for (std::size_t d = 0; d < g.size(); ++d) {
      const std::string at = fmt::format("{}[{}]", where, d);
      if (g[d].is_number_unsigned()) {
        if (g[d].get<uint64_t>() > 0x7fffffffu) fail(at, "a grid dimension is at most 2^31 - 1");
        out.push_back(GridExpression::constant(g[d].get<int64_t>()));
      } else if (g[d].is_string()) {
        try {
          out.push_back(GridExpression::parse(g[d].get_ref<const std::string&>()));
        } catch (const std::invalid_argument& e) {
          fail(at, fmt::format("'{}': {}", g[d].get<std::string>().substr(0, 100), e.what()));
        }
      } else {
        fail(at, "must be a non-negative integer or an expression such as \"cdiv(n, BLOCK)\"");
      }
    }
    return out;
  }

  Tuning tuning(const json& t, const std::string& where, const LaunchConfig& kernel_options) const {
    if (!t.is_object()) fail(where, "must be an object with 'args' and 'grid'");
    only_keys(t, where, {"args", "grid", "options"});
    Tuning out;
    out.where = where;
    out.options = kernel_options;
    if (auto o = t.find("options"); o != t.end()) out.options = options(*o, where + ".options");
    auto args = t.find("args");
    if (args == t.end() || !args->is_array()) fail(where, "'args' must be a list of arguments");
    out.args = arguments(*args, where + ".args", /*tuning=*/true);
    auto g = t.find("grid");
    if (g == t.end()) fail(where, "'grid' is missing");
    out.grid = grid(*g, where + ".grid");
    return out;
  }

  // "*fp16:16" / "i32" / "fp32": a type; text that does not look like one: a constexpr string.
  void type_or_string(const std::string& s, const std::string& where, Argument& out) const {
    std::string_view t = s;
    const bool pointer = t.starts_with('*');
    if (pointer) t.remove_prefix(1);
    if (pointer && t.starts_with('k')) {
      out.is_const = true;
      t.remove_prefix(1);
    }
    if (t.ends_with(":16")) {
      out.aligned = true;
      t.remove_suffix(3);
    }
    const std::optional<DType> dtype = dtype_named(t);
    if (pointer) {
      if (!dtype) fail(where, fmt::format("'{}' is not a pointer type (e.g. '*fp32', '*bf16:16')", s.substr(0, 100)));
      out.kind = Argument::Kind::kPointer;
      out.dtype = *dtype;
      return;
    }
    if (!looks_like_type(t)) {
      out = Argument{};
      out.kind = Argument::Kind::kString;
      out.text = s;
      return;
    }
    const bool makeable = dtype && (*dtype == DType::kInt32 || *dtype == DType::kInt64 || *dtype == DType::kUInt64 ||
                                    *dtype == DType::kFloat32 || *dtype == DType::kBool);
    if (!makeable || (out.aligned && (*dtype == DType::kFloat32 || *dtype == DType::kBool))) {
      fail(where, fmt::format("'{}' is not a scalar type a C++ call passes (i32, i64, u64 with or without ':16', "
                              "fp32, u1); write {{\"str\": \"{}\"}} for a constexpr string",
                              s.substr(0, 100), s.substr(0, 100)));
    }
    out.kind = Argument::Kind::kScalarType;
    out.dtype = *dtype;
  }

  static bool looks_like_type(std::string_view t) {
    std::size_t prefix = t.starts_with("fp") || t.starts_with("bf")   ? 2
                         : (t.starts_with('i') || t.starts_with('u')) ? 1
                                                                      : 0;
    if (prefix == 0 || t.size() == prefix || t.size() > 12) return false;
    for (char c : t.substr(prefix)) {
      if ((c < '0' || c > '9') && (c < 'a' || c > 'z')) return false;
    }
    return t[prefix] >= '0' && t[prefix] <= '9';
  }

  static std::optional<DType> dtype_named(std::string_view name) {
    static constexpr std::pair<std::string_view, DType> kNames[] = {{"u1", DType::kBool},
                                                                    {"i8", DType::kInt8},
                                                                    {"i16", DType::kInt16},
                                                                    {"i32", DType::kInt32},
                                                                    {"i64", DType::kInt64},
                                                                    {"u8", DType::kUInt8},
                                                                    {"u16", DType::kUInt16},
                                                                    {"u32", DType::kUInt32},
                                                                    {"u64", DType::kUInt64},
                                                                    {"fp16", DType::kFloat16},
                                                                    {"bf16", DType::kBFloat16},
                                                                    {"fp32", DType::kFloat32},
                                                                    {"fp64", DType::kFloat64},
                                                                    {"fp8e4nv", DType::kFloat8E4M3FN},
                                                                    {"fp8e5", DType::kFloat8E5M2},
                                                                    {"fp8e4b8", DType::kFloat8E4M3FNUZ},
                                                                    {"fp8e5b16", DType::kFloat8E5M2FNUZ},
                                                                    {"fp8e4b15", DType::kFloat8E4B15}};
    for (const auto& [n, d] : kNames) {
      if (name == n) return d;
    }
    return std::nullopt;
  }
};

}  // namespace

Manifest parse_manifest(std::string_view text, const std::string& file) {
  Manifest m;
  Parser p{file, &m.compile_options};
  json root = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded()) p.fail("manifest", "not valid JSON");
  if (!root.is_object()) p.fail("manifest", "must be a JSON object with 'kernels'");
  p.only_keys(root, "manifest", {"target", "kernels"});
  const std::string target = p.text(root, "manifest", "target", false);
  if (!target.empty()) {
    try {
      m.target = parse_target(target);
    } catch (const Error&) {
      p.fail("manifest",
             fmt::format("'target' is '{}'; expected cuda:<arch> or hip:<gfx>, e.g. cuda:90, cuda:90a or hip:gfx942",
                         target.substr(0, 100)));
    }
  }
  auto kernels = root.find("kernels");
  if (kernels == root.end() || !kernels->is_array()) p.fail("manifest", "'kernels' must be a list");
  for (std::size_t k = 0; k < kernels->size(); ++k) {
    const json& entry = (*kernels)[k];
    Kernel kernel;
    kernel.where = fmt::format("kernels[{}]", k);
    if (!entry.is_object()) p.fail(kernel.where, "must be an object");
    p.only_keys(entry, kernel.where, {"kernel", "function", "options", "signatures", "tune"});
    kernel.kernel = p.text(entry, kernel.where, "kernel", true);
    if (kernel.kernel.empty()) p.fail(kernel.where, "'kernel' is empty");
    kernel.function = p.text(entry, kernel.where, "function", false);
    const bool module_spec = kernel.kernel.find(':') != std::string::npos && !kernel.kernel.ends_with(".py");
    if (kernel.function.empty() && !module_spec) p.fail(kernel.where, "'function' is missing");
    if (auto o = entry.find("options"); o != entry.end()) kernel.options = p.options(*o, kernel.where + ".options");
    if (auto tune = entry.find("tune"); tune != entry.end()) {
      if (!tune->is_array() || tune->empty()) p.fail(kernel.where, "'tune' must be a non-empty list of calls");
      for (std::size_t t = 0; t < tune->size(); ++t) {
        kernel.tunings.push_back(p.tuning((*tune)[t], fmt::format("{}.tune[{}]", kernel.where, t), kernel.options));
      }
    }
    static const json kNone = json::array();
    auto signatures = entry.find("signatures");
    const json& listed = signatures == entry.end() ? kNone : *signatures;
    if (!listed.is_array() || (listed.empty() && kernel.tunings.empty())) {
      p.fail(kernel.where, "'signatures' must be a non-empty list of argument lists (or give 'tune')");
    }
    for (std::size_t s = 0; s < listed.size(); ++s) {
      const json& signature = listed[s];
      const std::string where = fmt::format("{}.signatures[{}]", kernel.where, s);
      if (!signature.is_array()) p.fail(where, "must be a list of arguments");
      kernel.signatures.push_back(p.arguments(signature, where, /*tuning=*/false));
    }
    m.kernels.push_back(std::move(kernel));
  }
  return m;
}

namespace {

void append_slots(const Argument& a, const std::vector<DevicePointer>& tensors, std::size_t& next_tensor,
                  ArgumentBuilder& slots) {
  alignas(64) static unsigned char memory[256];  // addresses only: nothing is read or written
  switch (a.kind) {
    case Argument::Kind::kTuple: {
      slots.begin_tuple(static_cast<uint32_t>(a.elements.size()));
      for (const Argument& e : a.elements) append_slots(e, tensors, next_tensor, slots);
      break;
    }
    case Argument::Kind::kTensor:
      if (next_tensor >= tensors.size()) throw std::logic_error("to_slots: a tensor argument without memory");
      slots.add_slot(to_slot(tensors[next_tensor++]));
      break;
    case Argument::Kind::kNone:
      slots.add_slot(to_slot(std::nullopt));
      break;
    case Argument::Kind::kBool:
      slots.add_slot(to_slot(a.i != 0));
      break;
    case Argument::Kind::kInt:
      slots.add_slot(to_slot(a.i));
      break;
    case Argument::Kind::kUInt:
      slots.add_slot(to_slot(a.u));
      break;
    case Argument::Kind::kFloat:
      slots.add_slot(to_slot(a.f));
      break;
    case Argument::Kind::kString:
      slots.add_slot(to_slot(std::string_view(a.text)));
      break;
    case Argument::Kind::kPointer:
      slots.add_slot(to_slot(device_pointer(memory + (a.aligned ? 0 : 4), a.dtype)));
      break;
    case Argument::Kind::kScalarType:
      switch (a.dtype) {
        case DType::kInt32:
          slots.add_slot(to_slot(int64_t{a.aligned ? 16 : 3}));
          break;
        case DType::kInt64:
          slots.add_slot(to_slot(a.aligned ? int64_t{1} << 40 : (int64_t{1} << 40) + 1));
          break;
        case DType::kUInt64:
          slots.add_slot(to_slot(a.aligned ? (uint64_t{1} << 63) + 16 : (uint64_t{1} << 63) + 1));
          break;
        case DType::kFloat32:
          slots.add_slot(to_slot(1.5));
          break;
        default:
          slots.add_slot(to_slot(true));
          break;
      }
      break;
  }
}

void collect_leaves(const Argument& a, std::vector<const Argument*>& out) {
  if (a.kind != Argument::Kind::kTuple) {
    out.push_back(&a);
    return;
  }
  for (const Argument& e : a.elements) collect_leaves(e, out);
}

}  // namespace

std::vector<const Argument*> leaves(const std::vector<Argument>& arguments) {
  std::vector<const Argument*> out;
  for (const Argument& a : arguments) collect_leaves(a, out);
  return out;
}

ArgumentBuilder to_slots(const std::vector<Argument>& arguments, const std::vector<DevicePointer>& tensors) {
  ArgumentBuilder slots;
  std::size_t next_tensor = 0;
  for (const Argument& a : arguments) append_slots(a, tensors, next_tensor, slots);
  return slots;
}

}  // namespace triton_jit::aot
