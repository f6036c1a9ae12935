#include "encoding/decorator_specs.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "common/hash.h"
#include "encoding/kernel_signature.h"
#include "triton_jit/errors.h"

namespace triton_jit::detail {
namespace {

std::string value_text(const ArgSlot& s) {
  switch (s.kind) {
    case ArgKind::kNone:
      return "None";
    case ArgKind::kBool:
      return s.value.i ? "True" : "False";
    case ArgKind::kInt:
      return std::to_string(s.value.i);
    case ArgKind::kUInt:
      return std::to_string(s.value.u);
    case ArgKind::kFloat:
      return fmt::format("{}", s.value.f);
    case ArgKind::kString:
      return fmt::format("'{}'", std::string_view(s.value.s, s.size));
    case ArgKind::kExpression:
      return std::string(s.value.s, s.size);
    default:
      return "?";
  }
}

void parse_autotune(const nlohmann::json& d, std::size_t index, KernelSignature& sig) {
  if (sig.decorators.autotune) throw Error(fmt::format("triton_jit: {}: more than one @triton.autotune", sig.name));
  AutotuneSpec a;
  a.decorator = index;
  for (const auto& name : d.at("key")) {
    const std::string key = name.get<std::string>();
    a.key_names.push_back(key);
    for (std::size_t i = 0; i < sig.params.size(); ++i) {
      if (sig.params[i].name == key) a.key_params.push_back(i);
    }
  }
  // What a hook may name: the parameters, then the options an autotuner passes inward.
  std::vector<std::string> names;
  for (const auto& p : sig.params) names.push_back(p.name);
  for (const char* option : {"num_warps", "num_stages", "num_ctas", "maxnreg"}) names.emplace_back(option);
  auto hook = [&](const nlohmann::json& at, const char* field, std::string label) {
    return at.contains(field) && !at[field].is_null() ? HookProgram::parse(at[field], names, std::move(label))
                                                      : HookProgram{};
  };
  for (const auto& c : d.at("configs")) {
    AutotuneConfig config;
    config.pre_hook = hook(c, "pre_hook", fmt::format("configs[{}].pre_hook", a.configs.size()));
    config.options.num_warps = c.value("num_warps", 0);
    config.options.num_stages = c.value("num_stages", 0);
    config.options.num_ctas = c.value("num_ctas", 0);
    if (c.contains("maxnreg") && !c["maxnreg"].is_null()) config.options.maxnreg = c["maxnreg"].get<int>();
    for (auto it = c.at("kwargs").begin(); it != c.at("kwargs").end(); ++it) {
      std::string error;
      ArgSlot value = slot_from_tagged(it.value(), sig, error);
      if (!error.empty())
        throw Error(fmt::format("triton_jit: {}: config value '{}' is {}", sig.name, it.key(), error));
      config.kwargs.emplace_back(param_index(sig, it.key(), "an autotune config"), value);
      config.text += (config.text.empty() ? "" : ", ") + it.key() + "=" + value_text(value);
    }
    const int values[kOptionSlots] = {config.options.num_warps > 0 ? config.options.num_warps : 4,
                                      config.options.num_stages > 0 ? config.options.num_stages : 3,
                                      config.options.num_ctas > 0 ? config.options.num_ctas : 1,
                                      config.options.maxnreg};
    for (std::size_t k = 0; k < kOptionSlots; ++k) {
      if (values[k] == 0) continue;  // maxnreg unset: None
      config.option_slots[k].kind = ArgKind::kInt;
      config.option_slots[k].value.i = values[k];
    }
    config.text += fmt::format("{}num_warps={}, num_stages={}", config.text.empty() ? "" : ", ",
                               config.options.num_warps, config.options.num_stages);
    if (config.options.num_ctas > 1) config.text += fmt::format(", num_ctas={}", config.options.num_ctas);
    if (config.options.maxnreg > 0) config.text += fmt::format(", maxnreg={}", config.options.maxnreg);
    a.configs.push_back(std::move(config));
  }
  if (a.configs.empty()) throw Error(fmt::format("triton_jit: {}: an autotuner without configs", sig.name));
  for (const auto& name : d.value("reset_to_zero", std::vector<std::string>{})) {
    a.reset_to_zero.push_back(param_index(sig, name, "reset_to_zero"));
  }
  for (const auto& name : d.value("restore_value", std::vector<std::string>{})) {
    a.restore_value.push_back(param_index(sig, name, "restore_value"));
  }
  a.prune = d.value("prune", false) || d.value("perf_model", false);
  a.warmup_ms = d.value("warmup_ms", 25.0);
  a.rep_ms = d.value("rep_ms", 100.0);
  if (!(a.warmup_ms >= 0 && a.warmup_ms <= 60000 && a.rep_ms > 0 && a.rep_ms <= 60000)) {
    throw Error(fmt::format("{}: autotune warmup={} ms, rep={} ms: expected 0 to 60000 and 0 to 60000 (not 0)",
                            sig.name, a.warmup_ms, a.rep_ms));
  }
  a.hooks = d.value("hooks", std::vector<std::string>{});
  a.pre_hook = hook(d, "pre_hook", "the autotuner's pre_hook");
  a.post_hook = hook(d, "post_hook", "the autotuner's post_hook");
  a.configs_digest = digest(d.at("configs").dump()).hex();
  sig.decorators.autotune = std::move(a);
  sig.decorators.steps.push_back(DecoratorStep{true, 0, 0});
}

void parse_heuristics(const nlohmann::json& d, std::size_t index, KernelSignature& sig) {
  DecoratorStep step{false, sig.decorators.heuristics.size(), 0};
  for (const auto& v : d.at("values")) {
    HeuristicSpec h;
    h.decorator = index;
    h.name = v.at("name").get<std::string>();
    // A heuristic may set a launch option (num_warps, ...): the option slots follow the parameters.
    static const char* kOptions[kOptionSlots] = {"num_warps", "num_stages", "num_ctas", "maxnreg"};
    const auto option = std::find(std::begin(kOptions), std::end(kOptions), h.name);
    h.param = option != std::end(kOptions) ? sig.params.size() + static_cast<std::size_t>(option - std::begin(kOptions))
                                           : param_index(sig, h.name, "a heuristic");
    const auto& program = v.at("program");
    if (!program.is_null()) h.program = HeuristicProgram::parse(program, sig.params.size() + kOptionSlots);
    if (v.contains("untranslated") && v["untranslated"].is_string())
      h.untranslated = v["untranslated"].get<std::string>();
    // A kernel parameter named like that option (FlagGems' attention declares `num_warps:
    // tl.constexpr`) takes the same value: Triton passes the heuristic's result as one keyword,
    // which binds the parameter and sets the option.
    const bool also_param =
        option != std::end(kOptions) &&
        std::any_of(sig.params.begin(), sig.params.end(), [&](const ParamSpec& p) { return p.name == h.name; });
    if (also_param) {
      HeuristicSpec as_param = h;
      as_param.param = param_index(sig, h.name, "a heuristic");
      sig.decorators.heuristics.push_back(std::move(as_param));
      ++step.count;
    }
    sig.decorators.heuristics.push_back(std::move(h));
    ++step.count;
  }
  sig.decorators.steps.push_back(step);
}

}  // namespace

void parse_decorators(const nlohmann::json& json, KernelSignature& sig) {
  auto it = json.find("decorators");
  if (it == json.end() || it->is_null()) return;
  for (std::size_t i = 0; i < it->size(); ++i) {
    const auto& d = (*it)[i];
    const std::string kind = d.at("kind").get<std::string>();
    if (kind == "autotune") {
      parse_autotune(d, i, sig);
    } else if (kind == "heuristics") {
      parse_heuristics(d, i, sig);
    } else {
      throw Error(fmt::format("triton_jit: {}: unknown decorator '{}'", sig.name, kind));
    }
  }
  if (sig.decorators.steps.empty()) return;
  std::vector<bool> set(sig.params.size(), false);
  for (const auto& h : sig.decorators.heuristics) {
    if (h.param < sig.params.size()) set[h.param] = true;
  }
  if (sig.decorators.autotune) {
    for (const auto& c : sig.decorators.autotune->configs) {
      for (const auto& [param, value] : c.kwargs) set[param] = true;
    }
    // A single config is not a choice: its options are the kernel's defaults.
    if (sig.decorators.autotune->configs.size() == 1) sig.defaults = sig.decorators.autotune->configs[0].options;
  }
  for (std::size_t i = 0; i < sig.params.size(); ++i) (set[i] ? sig.decorator_params : sig.user_params).push_back(i);
  sig.num_required_user = sig.user_params.size();
  while (sig.num_required_user > 0 && sig.params[sig.user_params[sig.num_required_user - 1]].has_default) {
    --sig.num_required_user;
  }
}

}  // namespace triton_jit::detail
