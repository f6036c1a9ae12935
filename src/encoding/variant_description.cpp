#include "encoding/variant_description.h"

#include <fmt/format.h>

#include <bit>

#include "triton_jit/jit_function_arg.h"

namespace triton_jit::detail {

int kernel_param_count(const KernelSignature& sig, const VariantKey& key) {
  int count = 0;
  for_each_param(sig, key, [&](std::size_t, const DecodedParam& d) {
    if (d.token == kTupleToken) {
      walk_tuple(key, d.tree,
                 [&](const TupleStep& step) { count += step.leaf && entry_token(step.entry) != kConstexprToken; });
    } else {
      count += d.token != kConstexprToken && d.token != kTensorDescToken;  // descriptors: see expand_descriptors
    }
  });
  return count;
}

namespace {

std::string constexpr_text(const DecodedParam& d, const ArgSlot& slot) {
  switch (d.value_kind) {
    case kVNone:
      return "None";
    case kVBool:
      return d.value ? "True" : "False";
    case kVInt:
      return std::to_string(static_cast<int64_t>(d.value));
    case kVUInt:
      return std::to_string(d.value);
    case kVFloat: {
      // As Python writes it: 2.0, not fmt's 2.
      std::string text = fmt::format("{}", std::bit_cast<double>(d.value));
      if (text.find_first_of(".en") == std::string::npos) text += ".0";
      return text;
    }
    case kVString:
      return fmt::format("'{}'", std::string_view(slot.value.s, slot.size));
    case kVExpression:
      return std::string(slot.value.s, slot.size);
    case kVFunction:
      return static_cast<const JitFunctionArg*>(slot.value.p)->label();
  }
  return "?";
}

}  // namespace

int descriptor_rank(uint64_t word) noexcept { return static_cast<int>((word >> 8) & 0xFF); }

std::string descriptor_type_name(uint64_t word, std::string_view layout) {
  std::string dims;
  for (int k = 0; k < descriptor_rank(word); ++k) {
    dims += (k ? ", " : "") + std::to_string(1u << ((word >> (16 + 5 * k)) & 31));
  }
  if (!layout.empty())
    return fmt::format("tensordesc<{}[{}],{}>", dtype_name(static_cast<DType>(word & 0xFF)), dims, layout);
  return fmt::format("tensordesc<{}[{}]>", dtype_name(static_cast<DType>(word & 0xFF)), dims);
}

std::string_view descriptor_layout(const KernelSignature&, const DecodedParam& d, const ArgSlot& slot) {
  if (d.value_kind != kDescriptorWithLayout || slot.kind != ArgKind::kTensorDescriptor) return {};
  return static_cast<const TensorDescriptor*>(slot.value.p)->layout;
}

std::string describe_variant(const KernelSignature& sig, const VariantKey& key, const CallArgs& args) {
  std::string text;
  auto leaf_text = [](uint16_t entry, uint64_t value) -> std::string {
    if (entry_token(entry) == kConstexprToken)
      return entry_value_kind(entry) == kVNone ? "None" : std::to_string(value);
    return token_name(entry_token(entry)) + (entry_attr(entry) == Attr::kDivisible16 ? ":16" : "");
  };
  for_each_param(sig, key, [&](std::size_t i, const DecodedParam& d) {
    if (!text.empty()) text += ", ";
    text += sig.params[i].name;
    if (d.token == kTupleToken) {
      text += ": ";
      bool first = true;
      walk_tuple(key, d.tree, [&](const TupleStep& step) {
        if (step.kind == TupleStep::kEnd) {
          text += ")";
          first = false;
          return;
        }
        if (!first) text += ", ";
        first = step.kind == TupleStep::kBegin;
        text += step.kind == TupleStep::kBegin ? "(" : leaf_text(step.entry, step.value);
      });
    } else if (d.token == kConstexprToken && d.value_kind == kVTuple) {
      text += "=(tuple)";
    } else if (d.token == kConstexprToken) {
      text += "=" + constexpr_text(d, args.param(sig, i));
    } else if (d.token == kTensorDescToken) {
      text += ": " + descriptor_type_name(d.value, descriptor_layout(sig, d, args.param(sig, i)));
    } else {
      text += ": " + token_name(d.token);
      if (d.attr == Attr::kDivisible16) text += ":16";
    }
  });
  return text;
}

}  // namespace triton_jit::detail
