// libtriton_jit's raw launches and its compile(signature, ...): a signature text parsed once
// per function (encoding/raw_signature.h), then every call turned into slots on the stack and
// launched as any call is.
#include <fmt/format.h>

#include <cstring>
#include <new>
#include <vector>

#include "common/hash.h"
#include "runtime/function.h"
#include "triton_jit/errors.h"

namespace triton_jit {
namespace {

__attribute__((noinline, cold)) const detail::RawSignature& add_raw_signature(TritonJITFunction::Impl& f,
                                                                              std::string_view text, uint64_t hash) {
  detail::RawSignature parsed = detail::parse_raw_signature(text, f.sig);  // may throw; outside the lock
  std::lock_guard lock(f.mutex);
  for (const auto* s = f.raw_signatures.load(std::memory_order_relaxed); s != nullptr; s = s->next) {
    if (s->hash == hash && s->text == text) return *s;  // another thread added it meanwhile
  }
  detail::RawSignature& s = f.raw_signature_storage.emplace_back(std::move(parsed));
  s.next = f.raw_signatures.load(std::memory_order_relaxed);
  f.raw_signatures.store(&s, std::memory_order_release);
  return s;
}

const detail::RawSignature& raw_signature(TritonJITFunction::Impl& f, std::string_view text) {
  const uint64_t hash = detail::hash64(text.data(), text.size());
  for (const auto* s = f.raw_signatures.load(std::memory_order_acquire); s != nullptr; s = s->next) {
    if (s->hash == hash && s->text == text) return *s;
  }
  return add_raw_signature(f, text, hash);
}

[[noreturn]] __attribute__((noinline, cold)) void throw_raw_count(const TritonJITFunction::Impl& f,
                                                                  const detail::RawSignature& s, std::size_t num_args) {
  throw ValueError(
      fmt::format("{}: launch_with_raw_args: the signature '{}' takes {} values (and up to 2 scratch "
                  "pointers after them), but num_args is {}",
                  f.sig.name, s.text.substr(0, 300), s.passed, num_args));
}

[[noreturn]] __attribute__((noinline, cold)) void throw_null_args(const TritonJITFunction::Impl& f,
                                                                  const detail::RawSignature& s) {
  throw ValueError(fmt::format("{}: launch_with_raw_args: args is null, but the signature '{}' takes {} values",
                               f.sig.name, s.text.substr(0, 300), s.passed));
}

// Storage for one call's slots, constructed by raw_slots (nothing is zeroed per call).
struct RawSlots {
  alignas(ArgSlot) unsigned char bytes[detail::kMaxRawSlots * sizeof(ArgSlot)];
  const ArgSlot* get() const noexcept { return std::launder(reinterpret_cast<const ArgSlot*>(bytes)); }
  ArgSlot* raw() noexcept { return reinterpret_cast<ArgSlot*>(bytes); }
};

}  // namespace

void TritonJITFunction::launch_with_raw_args(Stream stream, unsigned grid_x, unsigned grid_y, unsigned grid_z,
                                             unsigned num_warps, unsigned num_stages, std::string_view signature,
                                             void** args, std::size_t num_args) const {
  Impl& f = *impl_;
  const detail::RawSignature& s = raw_signature(f, signature);
  if (num_args != 0 && (num_args < s.passed || num_args > s.passed + 2)) [[unlikely]]
    throw_raw_count(f, s, num_args);
  if (args == nullptr && s.passed > 0) [[unlikely]]
    throw_null_args(f, s);
  RawSlots slots;
  detail::raw_slots(s, f.sig, args, slots.raw());
  LaunchConfig config;
  config.stream = stream;
  config.grid = {grid_x, grid_y, grid_z};
  config.num_warps = static_cast<int>(num_warps);
  config.num_stages = static_cast<int>(num_stages);
  if (s.nested) {
    launch_nested(config, slots.get(), s.params.size());
  } else {
    launch(config, slots.get(), s.params.size());
  }
}

VariantInfo TritonJITFunction::compile(std::string_view signature, unsigned num_warps, unsigned num_stages,
                                       int device) const {
  Impl& f = *impl_;
  const detail::RawSignature& s = raw_signature(f, signature);
  // Values the text's claims describe: aligned or not, divisible by 16 or not (and not 1).
  alignas(16) static const unsigned char kAligned[32] = {};
  const void* const aligned = kAligned;
  const void* const unaligned = kAligned + 4;
  std::vector<int64_t> integers(s.params.size());
  std::vector<double> reals(s.params.size());
  std::vector<const void*> pointers(s.params.size());
  std::vector<void*> addresses;
  addresses.reserve(s.passed);
  for (std::size_t i = 0; i < s.params.size(); ++i) {
    const detail::RawParam& p = s.params[i];
    if (p.kind == detail::RawParam::Kind::kPointer) {
      pointers[i] = p.claim == 16 ? aligned : unaligned;
      addresses.push_back(&pointers[i]);
    } else if (p.kind == detail::RawParam::Kind::kScalar) {
      const bool real = p.dtype == DType::kFloat32 || p.dtype == DType::kFloat64;
      if (real) {
        reals[i] = 0.5;
        if (p.dtype == DType::kFloat32) {
          const float single = 0.5f;
          std::memcpy(&reals[i], &single, sizeof(single));
        }
        addresses.push_back(&reals[i]);
      } else {
        // stored in the width the token names, as the caller's buffer would hold it
        const int64_t value = p.claim == 16 ? 16 : 3;
        std::memcpy(&integers[i], &value, sizeof(value));
        if (p.dtype == DType::kBool)
          integers[i] = 0;
        else if (detail::scalar_size(p.dtype) == 4) {
          const int32_t narrow = static_cast<int32_t>(value);
          std::memcpy(&integers[i], &narrow, sizeof(narrow));
        } else if (detail::scalar_size(p.dtype) == 2) {
          const int16_t narrow = static_cast<int16_t>(value);
          std::memcpy(&integers[i], &narrow, sizeof(narrow));
        } else if (detail::scalar_size(p.dtype) == 1) {
          const int8_t narrow = static_cast<int8_t>(value);
          std::memcpy(&integers[i], &narrow, sizeof(narrow));
        }
        addresses.push_back(&integers[i]);
      }
    }
  }
  RawSlots slots;
  detail::raw_slots(s, f.sig, addresses.data(), slots.raw());
  LaunchConfig config;
  config.device = device;
  config.num_warps = static_cast<int>(num_warps);
  config.num_stages = static_cast<int>(num_stages);
  return s.nested ? warmup_nested(config, slots.get(), s.params.size()) : warmup(config, slots.get(), s.params.size());
}

}  // namespace triton_jit
