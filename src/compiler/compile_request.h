// The compile request for one variant, as the compile script reads it:
// {"signature": [...], "constexprs": {...}, "attrs": {...}, "options": {...}, "target": "cuda:90"}.
#pragma once

#include <string>

#include "encoding/argument_encoder.h"

namespace triton_jit::detail {

// Throws TypeError naming the argument when a constexpr string is not valid UTF-8 (Python's
// str cannot hold it).
std::string compile_request_json(const KernelSignature& sig, const ResolvedOptions& options, const VariantKey& key,
                                 const CallArgs& args);

}  // namespace triton_jit::detail
