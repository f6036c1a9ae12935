// Turns a call's argument slots into Triton's specialisation key, parameter bytes and the text of
// the signature, as Triton's Python runtime would. Longer than 400 lines because it is one rule
// table: every kind of argument (tensor, integer by value, float, bool, None, string, fixed C++
// type, tuple) against every annotation, kept together so that it can be read against Triton's
// own specialiser (and the parity tests check it against that).
#include "encoding/argument_encoder.h"

#include <fmt/format.h>

#include <bit>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "common/hash.h"
#include "triton_jit/errors.h"
#include "triton_jit/jit_function_arg.h"

// Note [Parity with Triton's specializer]
// Triton's Python runtime turns each argument into (type, key) with native_specialize_impl:
//   None -> constexpr; bool -> u1; float -> fp32; int == 1 -> constexpr 1 (unless
//   do_not_specialize); other ints -> i32 if they fit, i64, or u64 in [2^63, 2^64); a pointer
//   -> "*<dtype>"; ints and pointers get key "D" when divisible by 16 (unless
//   do_not_specialize_on_alignment: key "") and no key at all under do_not_specialize.
// A parameter annotated with a type keeps that type; u1 and floating annotations are never
// specialised, others keep the value's key (a folded 1 then has no attribute at all).
// Keys that are strings become attributes: "D" -> tt.divisibility 16, "" -> no attribute but
// an entry. We reproduce the same (type, attribute) pair, and the parity tests compare it with
// Triton's own answer for the same values.

namespace triton_jit::detail {
namespace {

const char* kind_name(const ArgSlot& s) {
  switch (s.kind) {
    case ArgKind::kNone:
      return "None";
    case ArgKind::kBool:
      return "a bool";
    case ArgKind::kInt:
    case ArgKind::kUInt:
      return "an integer";
    case ArgKind::kFloat:
      return "a float";
    case ArgKind::kPointer:
      return "a pointer (tensor)";
    case ArgKind::kString:
      return "a string";
    case ArgKind::kUnsupported:
      return "an unsupported value";
    case ArgKind::kTuple:
      return "a tuple";
    case ArgKind::kTensorDescriptor:
      return "a tensor descriptor";
    case ArgKind::kJitFunction:
      return "a @triton.jit function";
    case ArgKind::kExpression:
      return "a constexpr expression";
  }
  return "an unknown value";
}

[[noreturn]] __attribute__((noinline, cold)) void throw_type(const KernelSignature& sig, std::size_t i,
                                                             const std::string& what) {
  throw TypeError(fmt::format("{}: argument {} '{}' {}", sig.name, i, sig.params[i].name, what));
}

[[noreturn]] __attribute__((noinline, cold)) void throw_value(const KernelSignature& sig, std::size_t i,
                                                              const std::string& what) {
  throw ValueError(fmt::format("{}: argument {} '{}' {}", sig.name, i, sig.params[i].name, what));
}

[[noreturn]] __attribute__((noinline, cold)) void throw_count(const KernelSignature& sig, std::size_t given) {
  std::string names;
  for (const auto& p : sig.params) names += (names.empty() ? "" : ", ") + p.name;
  if (sig.num_required == sig.params.size()) {
    throw TypeError(fmt::format("{}: expected {} arguments ({}), got {}", sig.name, sig.params.size(), names, given));
  }
  throw TypeError(fmt::format("{}: expected {} to {} arguments ({}), got {}", sig.name, sig.num_required,
                              sig.params.size(), names, given));
}

[[noreturn]] __attribute__((noinline, cold)) void throw_device(const KernelSignature& sig, std::size_t i,
                                                               const ArgSlot& s, int device) {
  std::string got = s.device == kHostDevice    ? "a CPU tensor"
                    : s.device == kOtherDevice ? "a tensor of another device type"
                                               : fmt::format("a tensor on CUDA device {}", s.device);
  throw_value(sig, i, fmt::format("expected a CUDA tensor on device {}, got {}", device, got));
}

bool is_integer(const ArgSlot& s) { return s.kind == ArgKind::kInt || s.kind == ArgKind::kUInt; }

// Low bits of an integer slot, identical for the signed and unsigned views.
uint64_t int_bits(const ArgSlot& s) { return s.value.u; }

bool fits_i32(const ArgSlot& s) {
  return s.kind == ArgKind::kInt && s.value.i >= std::numeric_limits<int32_t>::min() &&
         s.value.i <= std::numeric_limits<int32_t>::max();
}

Attr alignment_attr(const ParamRule& p, uint64_t bits) {
  return (p.align && (bits & 15) == 0) ? Attr::kDivisible16 : Attr::kEmpty;
}

// alignment_attr where the parameter is specialized, else kNone; without branches, since the
// value's low bits are as likely one way as the other.
Attr specialized_attr(const ParamRule& p, uint64_t bits) {
  const unsigned specialized = p.specialize;
  const unsigned divisible = specialized & static_cast<unsigned>(p.align) & static_cast<unsigned>((bits & 15) == 0);
  static_assert(static_cast<unsigned>(Attr::kEmpty) == 1 && static_cast<unsigned>(Attr::kDivisible16) == 2);
  return static_cast<Attr>(specialized + divisible);
}

uint16_t float_to_half_bits(float f) {
  // Round-to-nearest-even conversion, handling subnormals, infinities and NaN.
  uint32_t x = std::bit_cast<uint32_t>(f);
  uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t mantissa = x & 0x7FFFFFu;
  int32_t exponent = static_cast<int32_t>((x >> 23) & 0xFF);
  if (exponent == 0xFF) return static_cast<uint16_t>(sign | 0x7C00u | (mantissa ? 0x200u : 0u));
  int32_t half_exp = exponent - 127 + 15;
  if (half_exp >= 0x1F) return static_cast<uint16_t>(sign | 0x7C00u);
  if (half_exp <= 0) {
    if (half_exp < -10) return static_cast<uint16_t>(sign);
    mantissa |= 0x800000u;
    uint32_t shift = static_cast<uint32_t>(14 - half_exp);
    uint32_t half_m = mantissa >> shift;
    uint32_t rest = mantissa & ((1u << shift) - 1);
    uint32_t halfway = 1u << (shift - 1);
    if (rest > halfway || (rest == halfway && (half_m & 1u))) ++half_m;
    return static_cast<uint16_t>(sign | half_m);
  }
  uint32_t half = sign | (static_cast<uint32_t>(half_exp) << 10) | (mantissa >> 13);
  uint32_t rest = mantissa & 0x1FFFu;
  if (rest > 0x1000u || (rest == 0x1000u && (half & 1u))) ++half;  // may carry into the exponent: correct
  return static_cast<uint16_t>(half);
}

uint16_t float_to_bf16_bits(float f) {
  uint32_t x = std::bit_cast<uint32_t>(f);
  if ((x & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);  // quiet NaN
  x += 0x7FFFu + ((x >> 16) & 1u);
  return static_cast<uint16_t>(x >> 16);
}

double slot_as_double(const KernelSignature& sig, std::size_t i, const ArgSlot& s, DType target) {
  switch (s.kind) {
    case ArgKind::kFloat:
      return s.value.f;
    case ArgKind::kInt:
    case ArgKind::kBool:
      return static_cast<double>(s.value.i);
    case ArgKind::kUInt:
      return static_cast<double>(s.value.u);
    default:
      throw_type(sig, i, fmt::format("expected a number for type {}, got {}", dtype_name(target), kind_name(s)));
  }
}

template <class T>
void store_int(const KernelSignature& sig, std::size_t i, const ArgSlot& s, DType dt, uint64_t& cell) {
  bool ok;
  if (s.kind == ArgKind::kUInt) {
    ok = std::numeric_limits<T>::max() >= s.value.u;
  } else if constexpr (std::is_signed_v<T>) {
    ok = s.value.i >= std::numeric_limits<T>::min() && s.value.i <= std::numeric_limits<T>::max();
  } else {
    ok = s.value.i >= 0 && static_cast<uint64_t>(s.value.i) <= std::numeric_limits<T>::max();
  }
  if (!ok) [[unlikely]] {
    std::string value = s.kind == ArgKind::kUInt ? std::to_string(s.value.u) : std::to_string(s.value.i);
    throw_value(sig, i, fmt::format("value {} does not fit the parameter type {}", value, dtype_name(dt)));
  }
  T v = static_cast<T>(s.kind == ArgKind::kUInt ? s.value.u : static_cast<uint64_t>(s.value.i));
  std::memcpy(&cell, &v, sizeof(T));
}

// Writes the parameter bytes of a scalar of kernel type `dt`.
void store_scalar(const KernelSignature& sig, std::size_t i, const ArgSlot& s, DType dt, uint64_t& cell) {
  cell = 0;
  if (is_float_dtype(dt)) {
    double d = slot_as_double(sig, i, s, dt);
    if (dt == DType::kFloat64) {
      std::memcpy(&cell, &d, 8);
    } else if (dt == DType::kFloat32) {
      float f = static_cast<float>(d);
      std::memcpy(&cell, &f, 4);
    } else {
      uint16_t h =
          dt == DType::kFloat16 ? float_to_half_bits(static_cast<float>(d)) : float_to_bf16_bits(static_cast<float>(d));
      std::memcpy(&cell, &h, 2);
    }
    return;
  }
  if (!is_integer(s) && s.kind != ArgKind::kBool) [[unlikely]] {
    throw_type(sig, i, fmt::format("expected an integer or bool for type {}, got {}", dtype_name(dt), kind_name(s)));
  }
  switch (dt) {
    case DType::kBool: {
      if (s.kind == ArgKind::kUInt || s.value.i < 0 || s.value.i > 1) [[unlikely]] {
        throw_value(sig, i, "expected 0 or 1 for type u1");
      }
      cell = static_cast<uint64_t>(s.value.i);
      return;
    }
    case DType::kInt8:
      return store_int<int8_t>(sig, i, s, dt, cell);
    case DType::kInt16:
      return store_int<int16_t>(sig, i, s, dt, cell);
    case DType::kInt32:
      return store_int<int32_t>(sig, i, s, dt, cell);
    case DType::kInt64:
      return store_int<int64_t>(sig, i, s, dt, cell);
    case DType::kUInt8:
      return store_int<uint8_t>(sig, i, s, dt, cell);
    case DType::kUInt16:
      return store_int<uint16_t>(sig, i, s, dt, cell);
    case DType::kUInt32:
      return store_int<uint32_t>(sig, i, s, dt, cell);
    case DType::kUInt64:
      return store_int<uint64_t>(sig, i, s, dt, cell);
    default:
      throw_type(sig, i, fmt::format("cannot pass a scalar of type {}", dtype_name(dt)));
  }
}

// A constexpr value (declared, or folded like None and the integer 1): its entry, and its value
// in the next constexpr word.
uint16_t put_constexpr(const KernelSignature& sig, std::size_t i, const ArgSlot& s, VariantKey& key, uint32_t& cw) {
  uint8_t kind;
  uint64_t value;
  switch (s.kind) {
    case ArgKind::kNone:
      kind = kVNone;
      value = 0;
      break;
    case ArgKind::kBool:
      kind = kVBool;
      value = static_cast<uint64_t>(s.value.i);
      break;
    case ArgKind::kInt:
      kind = kVInt;
      value = s.value.u;
      break;
    case ArgKind::kUInt:
      kind = kVUInt;
      value = s.value.u;
      break;
    case ArgKind::kFloat:
      kind = kVFloat;
      value = std::bit_cast<uint64_t>(s.value.f);
      break;
    case ArgKind::kString:
    case ArgKind::kExpression: {
      // 128 bits: a string's key words must not collide with another string's.
      const Digest d = digest(s.value.s, s.size);
      key.words[cw++] = d.high;
      key.words[cw++] = d.low;
      return param_entry(kConstexprToken, Attr::kNone, s.kind == ArgKind::kString ? kVString : kVExpression);
    }
    case ArgKind::kJitFunction: {
      const auto& k = static_cast<const JitFunctionArg*>(s.value.p)->key();
      key.words[cw++] = k[0];
      key.words[cw++] = k[1];
      return param_entry(kConstexprToken, Attr::kNone, kVFunction);
    }
    default:
      throw_type(sig, i,
                 fmt::format("is a constexpr and takes an int, float, bool, string, None or a constexpr "
                             "expression, got {}",
                             kind_name(s)));
  }
  key.words[cw++] = value;
  return param_entry(kConstexprToken, Attr::kNone, kind);
}

}  // namespace

const ArgSlot& argument_or_default(const KernelSignature& sig, const ArgSlot* args, std::size_t n, std::size_t i) {
  if (i < n) return args[i];
  const ParamSpec& p = sig.params[i];
  if (!p.default_error.empty()) [[unlikely]] {
    throw_type(sig, i, fmt::format("must be passed from C++: its Python default is {}", p.default_error));
  }
  return p.default_value;
}

namespace {

void put_header(const ResolvedOptions& o, VariantKey& key) {
  key.words[0] = static_cast<uint64_t>(o.arch) | (uint64_t{o.arch_specific} << 16) |
                 (uint64_t{o.vendor == Vendor::kHip} << 17) | (static_cast<uint64_t>(o.num_warps) << 24) |
                 (static_cast<uint64_t>(o.num_stages) << 32) | (static_cast<uint64_t>(o.num_ctas) << 40) |
                 (uint64_t{o.enable_fp_fusion} << 48) | (uint64_t{o.launch_pdl} << 49) |
                 (uint64_t{o.launch_cooperative_grid} << 50);
  key.words[1] = static_cast<uint64_t>(o.maxnreg) | (o.extra_digest << 8);
}

// One value of a non-constexpr parameter (or an element of a tuple passed to one): its kernel
// type, attribute and parameter bytes (in `cell`), per Note [Parity with Triton's specializer].
// Returns its key entry; `is_param` is false when it was folded into a constexpr (None, 1), whose
// value then went to the key's tail.
__attribute__((always_inline)) inline uint16_t encode_value(const KernelSignature& sig, std::size_t i,
                                                            const ParamRule& p, const ArgSlot& s, int device_check,
                                                            VariantKey& key, uint32_t& cw, uint64_t& cell,
                                                            bool& is_param) {
  is_param = true;
  // The common case first: no annotation, and a value typed by its kind (an integer, a pointer to
  // its tensor's dtype), as Python passes it. The same rules as the switch below, fewer tests.
  if (p.annotation == kNoToken) [[likely]] {
    if (s.kind == ArgKind::kInt && s.dtype == DType::kInvalid) [[likely]] {
      const int64_t v = s.value.i;
      if (p.specialize && v == 1) [[unlikely]] {
        is_param = false;
        return put_constexpr(sig, i, s, key, cw);
      }
      const Attr attr = specialized_attr(p, static_cast<uint64_t>(v));
      if (v == static_cast<int32_t>(v)) [[likely]] {  // fits_i32, with the kind known
        cell = static_cast<uint32_t>(static_cast<int32_t>(v));
        return param_entry(scalar_token(DType::kInt32), attr);
      }
      cell = s.value.u;
      return param_entry(scalar_token(DType::kInt64), attr);
    }
    if (s.kind == ArgKind::kPointer && s.dtype != DType::kInvalid) [[likely]] {
      if (device_check >= 0 && s.device != kUnknownDevice && s.device != device_check) [[unlikely]]
        throw_device(sig, i, s, device_check);
      cell = reinterpret_cast<uint64_t>(s.value.p);
      return param_entry(pointer_token(s.dtype, false), specialized_attr(p, cell));
    }
  }
  if (s.kind == ArgKind::kUnsupported) [[unlikely]] {
    throw_type(sig, i, fmt::format("has dtype {}, which Triton does not accept", s.value.s));
  }
  if (s.kind == ArgKind::kString) [[unlikely]] {
    throw_type(sig, i, "got a string, which only constexpr parameters take");
  }
  if (s.kind == ArgKind::kPointer && device_check >= 0 && s.device != kUnknownDevice && s.device != device_check)
      [[unlikely]] {
    throw_device(sig, i, s, device_check);
  }

  TypeToken fixed = p.annotation;
  if (fixed == kNoToken && s.kind != ArgKind::kPointer && s.dtype != DType::kInvalid) fixed = scalar_token(s.dtype);

  TypeToken token;
  Attr attr = Attr::kNone;

  if (fixed != kNoToken) {
    token = fixed;
    DType dt = token_dtype(fixed);
    bool never_specialized =
        !is_pointer(fixed) && (dt == DType::kBool || is_float_dtype(dt) || dtype_name(dt)[0] == 'f');
    if (is_pointer(fixed)) {
      if (s.kind == ArgKind::kPointer) {
        cell = reinterpret_cast<uint64_t>(s.value.p);
        if (p.specialize) attr = alignment_attr(p, cell);
      } else if (s.kind == ArgKind::kNone) {
        cell = 0;  // Triton passes None to a typed pointer as a null pointer
      } else {
        throw_type(sig, i,
                   fmt::format("is annotated {} and expected a tensor, got {}", token_name(fixed), kind_name(s)));
      }
    } else {
      if (s.kind == ArgKind::kPointer || s.kind == ArgKind::kNone) [[unlikely]] {
        throw_type(sig, i, fmt::format("has type {} and expected a scalar, got {}", token_name(fixed), kind_name(s)));
      }
      store_scalar(sig, i, s, dt, cell);
      if (!never_specialized && p.specialize && is_integer(s) && !(s.kind == ArgKind::kInt && s.value.i == 1)) {
        attr = alignment_attr(p, int_bits(s));
      }
    }
  } else {
    switch (s.kind) {
      case ArgKind::kNone:
        is_param = false;
        return put_constexpr(sig, i, s, key, cw);
      case ArgKind::kBool:
        token = scalar_token(DType::kBool);
        cell = static_cast<uint64_t>(s.value.i);
        break;
      case ArgKind::kFloat: {
        token = scalar_token(DType::kFloat32);
        float f = static_cast<float>(s.value.f);
        cell = 0;
        std::memcpy(&cell, &f, 4);
        break;
      }
      case ArgKind::kInt:
      case ArgKind::kUInt:
        if (p.specialize && s.kind == ArgKind::kInt && s.value.i == 1) {
          is_param = false;
          return put_constexpr(sig, i, s, key, cw);
        }
        if (fits_i32(s)) {
          token = scalar_token(DType::kInt32);
          cell = static_cast<uint32_t>(static_cast<int32_t>(s.value.i));
        } else {
          token = scalar_token(s.kind == ArgKind::kUInt ? DType::kUInt64 : DType::kInt64);
          cell = s.value.u;
        }
        if (p.specialize) attr = alignment_attr(p, int_bits(s));
        break;
      case ArgKind::kPointer:
        if (s.dtype == DType::kInvalid) [[unlikely]]
          throw_type(sig, i, "is a pointer without a dtype");
        token = pointer_token(s.dtype, false);
        cell = reinterpret_cast<uint64_t>(s.value.p);
        if (p.specialize) attr = alignment_attr(p, cell);
        break;
      case ArgKind::kJitFunction:
      case ArgKind::kExpression:  // tl.constexpr(...) passed to a plain parameter
        is_param = false;
        return put_constexpr(sig, i, s, key, cw);  // as Triton's specializer
      default:
        throw_type(sig, i, fmt::format("cannot take {}", kind_name(s)));
    }
  }
  return param_entry(token, attr);
}

// A tensor descriptor argument: checked as TensorDescriptor.__post_init__ checks it, keyed by
// its dtype and block shape (Triton's "tensordesc<fp16[64, 32]>"), and recorded for expansion.
__attribute__((noinline)) uint16_t encode_descriptor(const KernelSignature& sig, std::size_t i, const ParamRule& p,
                                                     const ArgSlot& s, int device_check, VariantKey& key, uint32_t& cw,
                                                     uint32_t kp, EncodedCall& out) {
  if (p.is_constexpr) throw_type(sig, i, "is a constexpr and cannot take a tensor descriptor");
  if (p.annotation != kNoToken) {
    throw_type(sig, i, fmt::format("is annotated {} and cannot take a tensor descriptor", token_name(p.annotation)));
  }
  const auto& d = *static_cast<const TensorDescriptor*>(s.value.p);
  if (d.rank < 1 || d.rank > TensorDescriptor::kMaxRank) {
    throw_value(sig, i, "is a tensor descriptor whose shape, strides and block shape must have one rank, from 1 to 5");
  }
  if (d.dtype == DType::kInvalid || d.dtype == DType::kBool)
    throw_type(sig, i, "is a tensor descriptor without a dtype it can copy");
  const int elem = scalar_size(d.dtype);
  if (reinterpret_cast<uintptr_t>(d.base) % 16 != 0) {
    throw_value(sig, i, "is a tensor descriptor whose base is not 16-byte aligned");
  }
  for (int k = 0; k < d.rank; ++k) {
    if (d.shape[k] <= 0)
      throw_value(sig, i,
                  fmt::format("is a tensor descriptor with shape[{}] = {}; it must be positive", k, d.shape[k]));
    // Triton passes each dimension to the kernel as an i32 (TMA itself takes up to 2^32)
    if (d.shape[k] > INT32_MAX) {
      throw_value(sig, i,
                  fmt::format("is a tensor descriptor with shape[{}] = {}; the kernel takes each dimension as "
                              "an i32, at most 2147483647",
                              k, d.shape[k]));
    }
    const int32_t b = d.block_shape[k];
    if (b <= 0 || (b & (b - 1)) != 0 || b > 256) {
      throw_value(
          sig, i,
          fmt::format("is a tensor descriptor with block_shape[{}] = {}; TMA blocks are powers of two up to 256", k,
                      b));
    }
    if (k + 1 < d.rank && (d.strides[k] <= 0 || (d.strides[k] * elem) % 16 != 0)) {
      throw_value(sig, i,
                  fmt::format("is a tensor descriptor with strides[{}] = {} ({} bytes); strides must be 16-byte "
                              "multiples",
                              k, d.strides[k], d.strides[k] * elem));
    }
    if (k + 1 < d.rank && d.strides[k] >= (int64_t{1} << 40) / elem) {  // cuTensorMapEncodeTiled's limit
      throw_value(sig, i,
                  fmt::format("is a tensor descriptor with strides[{}] = {}; a TMA stride must be below 2^40 "
                              "bytes",
                              k, d.strides[k]));
    }
  }
  if (d.strides[d.rank - 1] != 1)
    throw_value(sig, i, "is a tensor descriptor whose last dimension is not contiguous (stride 1)");
  const bool floating = is_float_dtype(d.dtype) || dtype_name(d.dtype)[0] == 'f';  // fp8 kinds too, as torch says
  if (d.nan_padding && !floating) {
    throw_value(sig, i, "is a tensor descriptor with padding 'nan' over a dtype that is not floating point");
  }
  if (d.round_f32_to_tf32 && d.dtype != DType::kFloat32) {
    throw_value(sig, i, "is a tensor descriptor with round_f32_to_tf32 over a dtype that is not fp32");
  }
  if (device_check >= 0 && d.device != kUnknownDevice && d.device != device_check) [[unlikely]] {
    throw_device(sig, i, s, device_check);
  }
  if (out.num_descriptors == kMaxDescriptors) {
    throw_value(sig, i, fmt::format("is one tensor descriptor too many: a call takes up to {}", kMaxDescriptors));
  }
  out.descriptors[out.num_descriptors++] = EncodedCall::Descriptor{kp, &d};
  key.words[cw++] = descriptor_word(d);
  if (!d.layout.empty()) [[unlikely]] {
    const Digest layout = digest(d.layout.data(), d.layout.size());
    key.words[cw++] = layout.high;
    key.words[cw++] = layout.low;
    return param_entry(kTensorDescToken, Attr::kNone, kDescriptorWithLayout);
  }
  return param_entry(kTensorDescToken, Attr::kNone);
}

// Where each top-level argument of a nested call starts; throws on a malformed slot sequence.
std::size_t argument_starts(const KernelSignature& sig, const ArgSlot* slots, std::size_t n_slots,
                            std::size_t* starts) {
  std::size_t count = 0;
  for (std::size_t pos = 0; pos < n_slots;) {
    if (count == sig.params.size()) throw_count(sig, count + 1);
    starts[count++] = pos;
    std::size_t remaining = 1;
    while (remaining > 0) {
      if (pos >= n_slots) [[unlikely]]
        throw ValueError(fmt::format("{}: a tuple argument has fewer elements than it says", sig.name));
      const ArgSlot& s = slots[pos++];
      --remaining;
      if (s.kind == ArgKind::kTuple) remaining += s.size;
    }
  }
  return count;
}

// A constexpr tuple's digest: its structure and scalar values.
Digest tuple_digest(const KernelSignature& sig, std::size_t i, const ArgSlot* slot, std::size_t n_slots) {
  Hasher h;
  std::size_t remaining = 1;
  for (std::size_t pos = 0; remaining > 0; ++pos) {
    if (pos >= n_slots) throw ValueError(fmt::format("{}: a tuple argument has fewer elements than it says", sig.name));
    const ArgSlot& s = slot[pos];
    --remaining;
    const char kind = static_cast<char>(s.kind);
    h.add(std::string_view(&kind, 1));
    switch (s.kind) {
      case ArgKind::kTuple:
        remaining += s.size;
        h.add(std::to_string(s.size));
        if (s.value.s != nullptr) h.add(std::string_view(s.value.s, s.extent));  // a namedtuple's names
        break;
      case ArgKind::kString:
      case ArgKind::kExpression:
        h.add(std::string_view(s.value.s, s.size));
        break;
      case ArgKind::kJitFunction:
        throw_type(sig, i, "holds a @triton.jit function in a tuple; pass it as an argument of its own");
      case ArgKind::kPointer:
      case ArgKind::kUnsupported:
        throw_type(sig, i, "is a constexpr and takes a tuple of ints, floats, bools, strings or None, not of tensors");
      default:
        h.add(std::string_view(reinterpret_cast<const char*>(&s.value.u), 8));
    }
  }
  return h.finish();
}

}  // namespace

namespace {

// Parameters [0, n) from args; the rest from tail when there is one, else their defaults.
// Keyed: false when the caller knows the variant already and needs the parameters only.
template <bool HasTail, bool Keyed = true>
__attribute__((always_inline)) inline void encode_flat(const KernelSignature& sig, const ResolvedOptions& o,
                                                       const ArgSlot* args, std::size_t n, const ArgSlot* tail,
                                                       int device_check, EncodedCall& out) {
  const std::size_t np = sig.params.size();
  if (n > np || (!HasTail && n < sig.num_required)) [[unlikely]]
    throw_count(sig, n);

  VariantKey& key = out.key;
  out.num_descriptors = 0;
  if constexpr (Keyed) put_header(o, key);
  const uint32_t entry_words = param_words(np);
  uint64_t entry_word = 0;  // four entries gather in a register, then go out as one store
  auto set_entry = [&](std::size_t i, uint16_t entry) {
    if constexpr (Keyed) {
      entry_word |= uint64_t{entry} << (16 * (i % 4));
      if (i % 4 == 3) {
        key.words[kHeaderWords + i / 4] = entry_word;
        entry_word = 0;
      }
    }
  };
  uint32_t cw = kHeaderWords + entry_words;
  uint32_t kp = 0;

  const ParamRule* rules = sig.rules.data();
  for (std::size_t i = 0; i < np; ++i) {
    const ParamRule& p = rules[i];
    const ArgSlot& s = i < n ? args[i] : HasTail ? tail[i - n] : argument_or_default(sig, args, n, i);
    if (p.is_constexpr) {
      if constexpr (Keyed) set_entry(i, put_constexpr(sig, i, s, key, cw));
      continue;
    }
    if (s.kind == ArgKind::kTensorDescriptor) [[unlikely]] {
      set_entry(i, encode_descriptor(sig, i, p, s, device_check, key, cw, kp, out));
      continue;
    }
    bool is_param;
    set_entry(i, encode_value(sig, i, p, s, device_check, key, cw, out.cells[kp], is_param));
    if (is_param) {
      out.params[kp] = &out.cells[kp];
      ++kp;
    }
  }
  out.num_kernel_params = kp;
  if constexpr (Keyed) {
    if (np % 4 != 0) key.words[kHeaderWords + np / 4] = entry_word;
    key.size = cw;
    key.finish();
  }
}

}  // namespace

void encode_call(const KernelSignature& sig, const ResolvedOptions& o, const ArgSlot* args, std::size_t n,
                 int device_check, EncodedCall& out) {
  encode_flat<false>(sig, o, args, n, nullptr, device_check, out);
}

void encode_call_split(const KernelSignature& sig, const ResolvedOptions& o, const ArgSlot* head, std::size_t n_head,
                       const ArgSlot* tail, int device_check, EncodedCall& out) {
  encode_flat<true>(sig, o, head, n_head, tail, device_check, out);
}

void encode_params_split(const KernelSignature& sig, const ArgSlot* head, std::size_t n_head, const ArgSlot* tail,
                         int device_check, EncodedCall& out) {
  const ResolvedOptions unused{};
  encode_flat<true, false>(sig, unused, head, n_head, tail, device_check, out);
}

void encode_call_nested(const KernelSignature& sig, const ResolvedOptions& o, const ArgSlot* slots, std::size_t n_slots,
                        int device_check, EncodedCall& out) {
  const std::size_t np = sig.params.size();
  std::size_t starts[kMaxParams];
  const std::size_t n = argument_starts(sig, slots, n_slots, starts);
  if (n < sig.num_required) throw_count(sig, n);
  VariantKey& key = out.key;
  out.num_descriptors = 0;
  put_header(o, key);
  uint32_t cw = kHeaderWords + param_words(np);
  for (uint32_t w = kHeaderWords; w < cw; ++w) key.words[w] = 0;
  auto set_entry = [&](std::size_t i, uint16_t entry) {
    key.words[kHeaderWords + i / 4] |= uint64_t{entry} << (16 * (i % 4));
  };
  auto room = [&](std::size_t words) {
    if (cw + words > kMaxKeyWords) throw ValueError(fmt::format("{}: too many tuple elements in one call", sig.name));
  };
  uint32_t kp = 0;
  for (std::size_t i = 0; i < np; ++i) {
    const ParamRule& p = sig.rules[i];
    const ArgSlot* s = i < n ? &slots[starts[i]] : &argument_or_default(sig, slots, 0, i);
    const std::size_t available = i < n ? n_slots - starts[i] : 1;
    room(4);
    if (p.is_constexpr) {
      if (s->kind == ArgKind::kTuple) {
        const Digest d = tuple_digest(sig, i, s, available);
        key.words[cw++] = d.high;
        key.words[cw++] = d.low;
        set_entry(i, param_entry(kConstexprToken, Attr::kNone, kVTuple));
      } else {
        set_entry(i, put_constexpr(sig, i, *s, key, cw));
      }
      continue;
    }
    if (s->kind != ArgKind::kTuple) {
      bool is_param;
      set_entry(i, encode_value(sig, i, p, *s, device_check, key, cw, out.cells[kp], is_param));
      if (is_param) {
        out.params[kp] = &out.cells[kp];
        ++kp;
      }
      continue;
    }
    if (p.annotation != kNoToken) throw_type(sig, i, "has a type annotation and got a tuple");
    // The tuple's tree, in pre-order: a node word per tuple, a leaf word per element (then the
    // value words of a leaf folded into a constexpr).
    set_entry(i, param_entry(kTupleToken, Attr::kNone));
    std::size_t remaining = 1;
    for (std::size_t pos = 0; remaining > 0; ++pos) {
      const ArgSlot& e = s[pos];
      --remaining;
      room(4);
      if (e.kind == ArgKind::kTuple) {
        if (e.value.s != nullptr) {  // a namedtuple: its field names are part of what compiles
          key.words[cw++] = kTreeNode | kTreeNamed | e.size;
          const Digest names = digest(e.value.s, e.extent);
          key.words[cw++] = names.high;
          key.words[cw++] = names.low;
        } else {
          key.words[cw++] = kTreeNode | e.size;
        }
        remaining += e.size;
        continue;
      }
      if (kp >= kMaxParams) throw ValueError(fmt::format("{}: more than {} kernel parameters", sig.name, kMaxParams));
      if (e.kind == ArgKind::kJitFunction) [[unlikely]] {
        throw_type(sig, i, "holds a @triton.jit function in a tuple; pass it as an argument of its own");
      }
      const uint32_t leaf = cw++;
      bool is_param;
      const uint16_t entry = encode_value(sig, i, p, e, device_check, key, cw, out.cells[kp], is_param);
      key.words[leaf] = kTreeLeaf | entry;
      if (is_param) {
        out.params[kp] = &out.cells[kp];
        ++kp;
      }
    }
  }
  out.num_kernel_params = kp;
  key.size = cw;
  key.finish();
}

std::size_t top_level_arguments(const KernelSignature& sig, const ArgSlot* slots, std::size_t n_slots, ArgSlot* out) {
  std::size_t starts[kMaxParams];
  const std::size_t n = argument_starts(sig, slots, n_slots, starts);
  for (std::size_t i = 0; i < n; ++i) std::construct_at(&out[i], slots[starts[i]]);
  return n;
}

std::size_t nest_tuples(const KernelSignature& sig, const ArgSlot* params, const ArgSlot* source, std::size_t n_source,
                        ArgSlot* out) {
  std::size_t starts[kMaxParams];
  const std::size_t n_args = argument_starts(sig, source, n_source, starts);
  std::size_t next_arg = 0;  // the caller's next argument that may be a tuple
  std::size_t written = 0;
  auto room = [&](std::size_t slots) {
    if (written + slots > kMaxNestedSlots) [[unlikely]]
      throw ValueError(fmt::format("{}: too many tuple elements in one call", sig.name));
  };
  for (std::size_t p = 0; p < sig.params.size(); ++p) {
    if (params[p].kind != ArgKind::kTuple) {
      room(1);
      std::construct_at(&out[written++], params[p]);
      continue;
    }
    while (next_arg < n_args && source[starts[next_arg]].kind != ArgKind::kTuple) ++next_arg;
    if (next_arg == n_args) [[unlikely]]
      throw ValueError(
          fmt::format("{}: parameter '{}' holds a tuple the call did not pass", sig.name, sig.params[p].name));
    const std::size_t begin = starts[next_arg];
    const std::size_t end = ++next_arg < n_args ? starts[next_arg] : n_source;
    room(end - begin);
    for (std::size_t s = begin; s < end; ++s) std::construct_at(&out[written++], source[s]);
  }
  return written;
}

const ArgSlot& CallArgs::param(const KernelSignature& sig, std::size_t i) const {
  if (!nested) return argument_or_default(sig, slots, count, i);
  std::size_t starts[kMaxParams];
  const std::size_t n = argument_starts(sig, slots, count, starts);
  return i < n ? slots[starts[i]] : argument_or_default(sig, slots, 0, i);
}

uint64_t descriptor_word(const TensorDescriptor& d) noexcept {
  uint64_t word = static_cast<uint64_t>(d.dtype) | static_cast<uint64_t>(d.rank) << 8;
  for (int k = 0; k < d.rank; ++k) {
    word |= static_cast<uint64_t>(std::countr_zero(static_cast<uint32_t>(d.block_shape[k]))) << (16 + 5 * k);
  }
  return word;
}

}  // namespace triton_jit::detail
