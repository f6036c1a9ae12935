#include "decorators/decorators.h"

#include <fmt/format.h>

#include <bit>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>

#include "common/hash.h"
#include "common/log.h"
#include "common/settings.h"
#include "decorators/autotuner.h"
#include "triton_jit/errors.h"
#include "triton_jit/jit_function_arg.h"

// Note [Decorated calls]
// Triton binds a call's positional arguments to the kernel's parameters in order and lets the
// decorators set the rest: @triton.autotune a config's values and options, @triton.heuristics
// computed values, each decorator seeing what the ones outside it set. A C++ call passes the
// parameters no decorator sets, in order; the decorators then run from the outermost in, on an
// array of every parameter followed by the options an autotuner passes inward. A call that
// passes every parameter bypasses them (what callers had to do before decorators ran in C++).
// The hit path: copy the slots, run each heuristic program, hash the tuning key and find it in
// a lock-free table, copy the config's values. Tuning itself is in autotuner.cpp.

namespace triton_jit::detail {
namespace {

[[noreturn]] __attribute__((noinline, cold)) void throw_decorated_count(const KernelSignature& sig, std::size_t given) {
  std::string names;
  for (std::size_t p : sig.user_params) names += (names.empty() ? "" : ", ") + sig.params[p].name;
  std::string tuned, computed;
  if (sig.decorators.autotune) {
    std::vector<bool> listed(sig.params.size(), false);
    for (const auto& c : sig.decorators.autotune->configs) {
      for (const auto& [param, value] : c.kwargs) {
        if (!listed[param]) tuned += (tuned.empty() ? "" : ", ") + sig.params[param].name;
        listed[param] = true;
      }
    }
  }
  for (const auto& h : sig.decorators.heuristics) computed += (computed.empty() ? "" : ", ") + h.name;
  std::string set_by;
  if (!tuned.empty()) set_by += tuned + " come from @triton.autotune";
  if (!computed.empty()) set_by += (set_by.empty() ? "" : " and ") + computed + " from @triton.heuristics";
  const std::string range = sig.num_required_user == sig.user_params.size()
                                ? std::to_string(sig.user_params.size())
                                : fmt::format("{} to {}", sig.num_required_user, sig.user_params.size());
  throw TypeError(
      fmt::format("{}: expected {} arguments ({}), got {}; {} (pass all {} parameters to set them yourself)", sig.name,
                  range, names, given, set_by, sig.params.size()));
}

const ArgSlot& default_of(const KernelSignature& sig, std::size_t p) {
  const ParamSpec& spec = sig.params[p];
  if (!spec.default_error.empty()) [[unlikely]] {
    throw TypeError(fmt::format("{}: argument {} '{}' must be passed from C++: its Python default is {}", sig.name, p,
                                spec.name, spec.default_error));
  }
  return spec.default_value;
}

// Values Python returns (strings) must outlive the call: kept for the process.
const char* intern(std::string text) {
  static auto* mutex = new std::mutex();
  static auto* strings = new std::deque<std::string>();
  std::lock_guard<std::mutex> lock(*mutex);
  for (const auto& s : *strings) {
    if (s == text) return s.data();
  }
  return strings->emplace_back(std::move(text)).data();
}

nlohmann::json tagged(const ArgSlot& s) {
  switch (s.kind) {
    case ArgKind::kNone:
      return {{"none", nullptr}};
    case ArgKind::kBool:
      return {{"bool", s.value.i != 0}};
    case ArgKind::kInt:
      return {{"int", s.value.i}};
    case ArgKind::kUInt:
      return {{"int", s.value.u}};
    case ArgKind::kFloat:
      return {{"float", fmt::format("{:a}", s.value.f)}};
    case ArgKind::kString:
      return {{"str", std::string(s.value.s, s.size)}};
    case ArgKind::kExpression:
      return {{"expr", std::string(s.value.s, s.size)}};
    case ArgKind::kJitFunction: {
      const auto& f = *static_cast<const JitFunctionArg*>(s.value.p);
      return {{"jit_function",
               {{"file", f.file()}, {"module", f.module()}, {"name", f.name()}, {"search_path", f.search_path()}}}};
    }
    case ArgKind::kPointer:
      return {{"tensor", dtype_name(s.dtype)},
              {"element_size", scalar_size(s.dtype)},
              {"address", reinterpret_cast<uintptr_t>(s.value.p)}};
    default:
      return {{"missing", true}};
  }
}

// `why`: what the program could not do for this call (NeedsPython), "" for a heuristic the
// compile script could not translate (h.untranslated says why).
ArgSlot python_heuristic(FunctionState& f, DecoratorState& d, const HeuristicSpec& h, const PreparedCall& call,
                         const std::string& why = "") {
  const std::string& reason = why.empty() ? h.untranslated : why;
  if (hot_settings().offline.load(std::memory_order_relaxed)) {
    throw Error(fmt::format("{}: heuristic '{}' needs Python ({}), and Python is not used in offline mode", f.sig.name,
                            h.name, reason));
  }
  if (!d.python_heuristics_noted.exchange(true)) {
    log(LogLevel::kInfo, "{}: heuristic '{}' runs in Python {}: {}", f.sig.name, h.name,
        why.empty() ? "on every call" : "for calls like this one", reason);
  }
  const std::string result =
      compiler_bridge().evaluate_heuristic(f.location, h.decorator, h.name, arguments_json(f.sig, call));
  auto value = nlohmann::json::parse(result, nullptr, false);
  ArgSlot slot;
  if (!value.is_object() || value.size() != 1)
    throw Error(fmt::format("{}: heuristic '{}' returned {}", f.sig.name, h.name, result));
  const std::string kind = value.begin().key();
  const auto& v = value.begin().value();
  if (kind == "none") {
    slot.kind = ArgKind::kNone;
  } else if (kind == "bool") {
    slot.kind = ArgKind::kBool;
    slot.value.i = v.get<bool>() ? 1 : 0;
  } else if (kind == "int" && v.is_number_integer() && !(v.is_number_unsigned() && v.get<uint64_t>() > INT64_MAX)) {
    slot.kind = ArgKind::kInt;
    slot.value.i = v.get<int64_t>();
  } else if (kind == "float") {
    slot.kind = ArgKind::kFloat;
    slot.value.f = std::strtod(v.get<std::string>().c_str(), nullptr);
  } else if (kind == "str") {
    slot.kind = ArgKind::kString;
    const std::string text = v.get<std::string>();
    slot.size = static_cast<uint32_t>(text.size());
    slot.value.s = intern(text);
  } else {
    throw TypeError(
        fmt::format("{}: heuristic '{}' returned {}, which a constexpr cannot hold", f.sig.name, h.name, v.dump()));
  }
  return slot;
}

// A heuristic that sets a launch option (num_warps, num_stages, num_ctas, maxnreg).
void set_option(const KernelSignature& sig, const HeuristicSpec& h, PreparedCall& call) {
  const ArgSlot& v = call.slots[h.param];
  if (v.kind != ArgKind::kInt || v.value.i < 0 || v.value.i > 1024) {
    throw ValueError(fmt::format("{}: heuristic '{}' must give a small non-negative integer", sig.name, h.name));
  }
  const int value = static_cast<int>(v.value.i);
  switch (h.param - sig.params.size()) {
    case 0:
      call.config.num_warps = value;
      break;
    case 1:
      call.config.num_stages = value;
      break;
    case 2:
      call.config.num_ctas = value;
      break;
    default:
      call.config.maxnreg = value;
      break;
  }
}

}  // namespace

Binding bind_decorated(const KernelSignature& sig, const ArgSlot* args, std::size_t n, PreparedCall& call) {
  const std::size_t np = sig.params.size();
  const std::size_t nu = sig.user_params.size();
  Binding binding;
  if (n >= sig.num_required_user && n <= nu) [[likely]] {
    // Slots the decorators fill are left unset: each step writes them before anything reads
    // them (a heuristic reading a parameter set by a later decorator reads None, as none is set).
    for (std::size_t p : sig.decorator_params) std::construct_at(&call.slots[p]);
    for (std::size_t i = 0; i < kOptionSlots; ++i) std::construct_at(&call.slots[np + i]);
    const std::size_t* user = sig.user_params.data();
    for (std::size_t i = 0; i < n; ++i) std::construct_at(&call.slots[user[i]], args[i]);
    for (std::size_t i = n; i < nu; ++i) std::construct_at(&call.slots[user[i]], default_of(sig, user[i]));
    binding = Binding::kDecorated;
  } else if (n >= sig.num_required && n <= np) {
    for (std::size_t i = 0; i < np; ++i) std::construct_at(&call.slots[i], i < n ? args[i] : default_of(sig, i));
    for (std::size_t i = np; i < np + kOptionSlots; ++i) std::construct_at(&call.slots[i]);
    binding = Binding::kExplicit;
  } else {
    throw_decorated_count(sig, n);
  }
  return binding;
}

void apply_config(const KernelSignature& sig, int index, PreparedCall& call) {
  const AutotuneConfig& c = sig.decorators.autotune->configs[static_cast<std::size_t>(index)];
  call.launch_hook = c.pre_hook.writes_memory() ? &c.pre_hook : nullptr;
  for (const auto& [param, value] : c.kwargs) call.slots[param] = value;
  LaunchConfig& lc = call.config;
  if (c.options.num_warps > 0) lc.num_warps = c.options.num_warps;
  if (c.options.num_stages > 0) lc.num_stages = c.options.num_stages;
  if (c.options.num_ctas > 0) lc.num_ctas = c.options.num_ctas;
  if (c.options.maxnreg > 0) lc.maxnreg = c.options.maxnreg;
  std::memcpy(&call.slots[sig.params.size()], c.option_slots, sizeof(c.option_slots));
  if (c.pre_hook.sets_block_shapes()) [[unlikely]]
    c.pre_hook.set_block_shapes(call.slots, call.descriptors, sig.name);
}

void write_hooked(const KernelSignature& sig, const HookProgram& hook, const PreparedCall& call) {
  const Stream stream = call.config.stream;
  hook.for_each_write(call.slots, sig.name, [&](const HookProgram::Action& a) {
    const ArgSlot& to = call.slots[a.param];
    const char* what = a.kind == HookProgram::Kind::kZero ? "zero_()" : "copy_()";
    if (to.kind != ArgKind::kPointer) {
      throw TypeError(
          fmt::format("{}: {} calls {} on argument '{}', which is not a tensor", sig.name, hook.label(), what, a.name));
    }
    if (to.extent == 0) {
      throw ValueError(
          fmt::format("{}: {} calls {} on argument '{}', whose size is unknown: pass a tensor, or "
                      "triton_jit::device_pointer(ptr, dtype, device, bytes)",
                      sig.name, hook.label(), what, a.name));
    }
    // Note [Hooks write only their tensor]
    // A translated zero_ or copy_ writes bytes: the extent a tensor spans. That is the tensor's
    // elements only when they fill it (dense); a strided view's span holds the caller's elements
    // between its own, which torch's zero_ leaves alone. And torch's copy_ converts each element
    // to the destination's dtype and broadcasts or refuses other shapes, which bytes cannot. So a
    // write the bytes would get wrong is refused, naming the argument; it is never approximated.
    if ((to.size & kLayoutKnown) != 0 && (to.size & kLayoutDense) == 0) {
      throw ValueError(
          fmt::format("{}: {} calls {} on argument '{}', a strided view whose elements do not fill the "
                      "memory it spans; writing that span would change the elements between them. Pass "
                      "a contiguous tensor (.contiguous() is a copy: the kernel must write into the "
                      "tensor the caller reads)",
                      sig.name, hook.label(), what, a.name));
    }
    if (a.kind == HookProgram::Kind::kZero) {
      ActiveBackend::fill_zero(const_cast<void*>(to.value.p), to.extent, stream);
      return;
    }
    const ArgSlot& from = call.slots[a.source];
    const std::string& from_name = sig.params[a.source].name;
    if (from.kind != ArgKind::kPointer) {
      throw TypeError(fmt::format("{}: {} copies into argument '{}' from argument '{}', which is not a tensor",
                                  sig.name, hook.label(), a.name, from_name));
    }
    if (from.dtype != to.dtype) {
      throw TypeError(
          fmt::format("{}: {} copies argument '{}' ({}) into argument '{}' ({}): torch's copy_ converts "
                      "each element, a translated hook copies bytes, so their dtypes must be the same",
                      sig.name, hook.label(), from_name, dtype_name(from.dtype), a.name, dtype_name(to.dtype)));
    }
    const bool both_known = (to.size & from.size & kLayoutKnown) != 0;
    const bool same_layout = both_known ? ((to.size & from.size & kLayoutContiguous) != 0 &&
                                           to.size >> kLayoutShapeShift == from.size >> kLayoutShapeShift)
                                        : (to.size | from.size) == 0;
    if (!same_layout || from.extent != to.extent) {
      throw ValueError(
          fmt::format("{}: {} copies argument '{}' into argument '{}', which differ in shape, size or "
                      "layout; a translated hook copies only between contiguous tensors of one shape "
                      "(torch's copy_ would broadcast or raise)",
                      sig.name, hook.label(), from_name, a.name));
    }
    ActiveBackend::copy(const_cast<void*>(to.value.p), from.value.p, to.extent, stream);
  });
}

// The argument at slots[pos] of nested slots, a tuple with its elements; pos moves past it.
nlohmann::json tagged_nested(const ArgSlot* slots, std::size_t& pos) {
  const ArgSlot& s = slots[pos++];
  if (s.kind != ArgKind::kTuple) return tagged(s);
  nlohmann::json items = nlohmann::json::array();
  for (uint32_t k = 0; k < s.size; ++k) items.push_back(tagged_nested(slots, pos));
  if (s.value.s == nullptr) return {{"tuple", std::move(items)}};
  return {{"namedtuple", std::string(s.value.s, s.extent)}, {"tuple", std::move(items)}};
}

std::string arguments_json(const KernelSignature& sig, const PreparedCall& call) {
  nlohmann::json arguments = nlohmann::json::array();
  const std::size_t np = sig.params.size();
  if (call.tuples.slots != nullptr) {  // Note [Decorators over tuples]: Python sees a tuple's elements
    std::vector<ArgSlot> nested(kMaxNestedSlots);
    const std::size_t n = nest_tuples(sig, call.slots, call.tuples.slots, call.tuples.count, nested.data());
    for (std::size_t pos = 0; pos < n;) arguments.push_back(tagged_nested(nested.data(), pos));
  } else {
    for (std::size_t i = 0; i < np; ++i) arguments.push_back(tagged(call.slots[i]));
  }
  for (std::size_t i = np; i < np + kOptionSlots; ++i) arguments.push_back(tagged(call.slots[i]));
  return arguments.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

void run_decorators(FunctionState& f, DecoratorState& d, PreparedCall& call, std::size_t first_step, int device,
                    std::size_t end_step) {
  const KernelSignature& sig = f.sig;
  const std::size_t end = std::min(end_step, sig.decorators.steps.size());
  for (std::size_t s = first_step; s < end; ++s) {
    const DecoratorStep& step = sig.decorators.steps[s];
    if (step.autotune) {
      apply_config(sig, choose_config(f, d, call, device), call);
      continue;
    }
    for (std::size_t k = step.first; k < step.first + step.count; ++k) {
      const HeuristicSpec& h = sig.decorators.heuristics[k];
      if (!h.program) {
        call.slots[h.param] = python_heuristic(f, d, h, call);
      } else {
        try {
          call.slots[h.param] = h.program->evaluate(call.slots, sig.name, h.name);
        } catch (const NeedsPython& e) {
          call.slots[h.param] = python_heuristic(f, d, h, call, e.what());
        }
      }
      if (h.param >= sig.params.size()) [[unlikely]]
        set_option(sig, h, call);
    }
  }
}

}  // namespace triton_jit::detail
