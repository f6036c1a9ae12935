// libtriton_jit's raw launches: a signature text with one token per parameter the call passes
// ("*fp32:16,i64,1024,nullopt,(i32,i64)") and the addresses of the values the text does not fix.
// A text is parsed once into a RawSignature; raw_slots() then turns one call's addresses into the
// ArgSlots every other call form produces, so that the variant is chosen as for any call (by
// Triton's rules, from the values) and a claim in the text that a value contradicts is an error.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "common/limits.h"
#include "encoding/kernel_signature.h"
#include "triton_jit/arguments.h"
#include "triton_jit/jit_function_arg.h"

namespace triton_jit::detail {

struct RawParam {
  enum class Kind : uint8_t {
    kPointer,     // an address of a pointer
    kScalar,      // an address of a scalar of `dtype`
    kLiteral,     // fixed by the text: `literal` (nothing passed)
    kTupleStart,  // `elements` parameters follow, as one tuple
  };
  Kind kind = Kind::kLiteral;
  DType dtype = DType::kInvalid;
  uint8_t claim = 0;  // 16: the text claims 16-byte alignment / divisibility by 16
  uint32_t elements = 0;
  std::size_t position = 0;  // the call's parameter it belongs to (messages)
  ArgSlot literal;
};

struct RawSignature {
  std::string text;
  uint64_t hash = 0;
  std::vector<RawParam> params;          // in slot order: a tuple's elements follow its start
  std::size_t passed = 0;                // the addresses a call gives (before any scratch pointers)
  bool nested = false;                   // holds a tuple
  std::deque<std::string> strings;       // backs string literals
  std::deque<JitFunctionArg> functions;  // functions named by their signature tokens
  const RawSignature* next = nullptr;    // RawSignatureList's link
};

// Parses `text` for the kernel `sig` (its parameter count and which parameters are constexpr:
// a token that is neither a type nor a value is a string only for a constexpr). Throws ValueError
// naming `function`, the position and the token.
RawSignature parse_raw_signature(std::string_view text, const KernelSignature& sig);

// Constructs the call's slots (s.params.size() of them) in the raw storage at `out` from the
// addresses in `args`.
// Throws ValueError naming the parameter whose value contradicts the text's claim.
void raw_slots(const RawSignature& s, const KernelSignature& sig, void* const* args, ArgSlot* out);

}  // namespace triton_jit::detail
