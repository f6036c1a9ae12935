#include "decorators/decorated_memo.h"

#include "common/hash.h"
#include "common/settings.h"
#include "encoding/argument_encoder.h"
#include "triton_jit/compile_options.h"
#include "triton_jit/jit_function_arg.h"

namespace triton_jit::detail {
namespace {

// An input's kind and dtype, and for a tensor whether it is 16-byte aligned (the variant key's
// specialisation).
uint64_t input_tag(const ArgSlot& s) noexcept {
  const bool aligned = s.kind == ArgKind::kPointer && (s.value.u & 15) == 0;
  return static_cast<uint64_t>(s.kind) | static_cast<uint64_t>(aligned) << 7 | static_cast<uint64_t>(s.dtype) << 8;
}

// An output's kind and dtype, in 12 bits.
uint64_t output_tag(const ArgSlot& s) noexcept {
  return static_cast<uint64_t>(s.kind) | static_cast<uint64_t>(s.dtype) << 4;
}

// Options in 26 bits (num_warps, num_stages, num_ctas, maxnreg); false when one does not fit.
bool pack_options(const LaunchConfig& c, uint64_t& packed) noexcept {
  const auto nw = static_cast<unsigned>(c.num_warps), ns = static_cast<unsigned>(c.num_stages),
             nc = static_cast<unsigned>(c.num_ctas), mr = static_cast<unsigned>(c.maxnreg);
  if (((nw >> 6) | (ns >> 7) | (nc >> 5) | (mr >> 8)) != 0) return false;
  packed = nw | ns << 6 | nc << 13 | mr << 18;
  return true;
}

constexpr int kOutputTagBits = 12;
constexpr int kOptionBits = 26;

// The header's fields, low bit first: the input words (6 bits), the device (6), autotuning on (1),
// the caller's options (26), its compile flags (3), extra compile options given (1), the
// generation (the 21 bits left).
constexpr int kDeviceShift = 6;
constexpr int kAutotuneShift = 12;
constexpr int kOptionsShift = 13;
constexpr int kFlagsShift = kOptionsShift + kOptionBits;
constexpr int kExtraShift = kFlagsShift + 3;
constexpr int kGenerationShift = kExtraShift + 1;
static_assert(DecoratedMemo::kMaxInputWords < (1u << kDeviceShift) && kGenerationShift < 64);
// A remembered call launches the variant its inputs selected: the memo must pack whatever the
// encoder keys (the argument kinds of put_constexpr and encode_value, the options of put_header).
// These trip when an argument kind, a field of an argument or a launch option is added, so that
// both get it; descriptors and strings are packed with the encoder's own functions.
static_assert(static_cast<int>(ArgKind::kJitFunction) == 10,
              "a new argument kind: pack what the variant key takes of it in DecoratedMemo::pack");
static_assert(sizeof(ArgSlot) == 24,
              "a new field of an argument: if the variant key reads it (encode_value), pack it in DecoratedMemo::pack");
static_assert(sizeof(LaunchConfig) == 72,
              "a new launch option: if the variant key takes it (put_header), pack it in DecoratedMemo::pack");

}  // namespace

void DecoratedMemo::configure(const KernelSignature& sig) {
  enabled_ = false;
  if (!sig.decorated() || sig.params.size() > kMaxParams || sig.decorator_params.size() > kMaxOutputs) return;
  for (const auto& h : sig.decorators.heuristics) {
    if (!h.program) return;  // Python may read anything, addresses included
  }
  if (sig.decorators.autotune) {
    for (const auto& c : sig.decorators.autotune->configs) {
      if (!c.pre_hook.empty()) return;  // Note [Config hooks]: a hook runs with every call
    }
  }
  num_user_ = static_cast<uint8_t>(sig.user_params.size());
  num_outputs_ = static_cast<uint8_t>(sig.decorator_params.size());
  const std::size_t kind_words = num_outputs_ > kKindsWithOptions ? (num_outputs_ - kKindsWithOptions + 3) / 4 : 0;
  inputs_at_ = static_cast<uint8_t>(2 + kind_words + num_outputs_);
  for (std::size_t i = 0; i < sig.user_params.size(); ++i) user_at_[i] = static_cast<uint8_t>(sig.user_params[i]);
  for (std::size_t i = 0; i < sig.decorator_params.size(); ++i) {
    output_at_[i] = static_cast<uint8_t>(sig.decorator_params[i]);
  }
  user_first_ = true;
  for (std::size_t i = 0; i < sig.user_params.size(); ++i) user_first_ = user_first_ && sig.user_params[i] == i;
  for (std::size_t i = 0; i < sig.decorator_params.size(); ++i) {
    user_first_ = user_first_ && sig.decorator_params[i] == sig.user_params.size() + i;
  }
  entries_ = std::make_unique<Entry[]>(kEntries);
  enabled_ = true;
}

bool DecoratedMemo::pack(const ArgSlot* args, std::size_t n, const LaunchConfig& config, Inputs& in) const noexcept {
  // The caller's options; values beyond these take the full path, which reports them.
  uint64_t options;
  const std::size_t tag_words = (n + 3) / 4;
  if (!pack_options(config, options) || tag_words + n > kMaxInputWords) [[unlikely]]
    return false;
  in.options = static_cast<uint32_t>(options);
  // Tags, four to a word, in words [0, tag_words); then the values of scalars and descriptors.
  // Every value is stored and only those kept (the next store overwrites the others): no branch
  // on kinds.
  constexpr unsigned kValueKinds =
      1u << static_cast<unsigned>(ArgKind::kBool) | 1u << static_cast<unsigned>(ArgKind::kInt) |
      1u << static_cast<unsigned>(ArgKind::kUInt) | 1u << static_cast<unsigned>(ArgKind::kFloat) |
      1u << static_cast<unsigned>(ArgKind::kString) | 1u << static_cast<unsigned>(ArgKind::kTensorDescriptor) |
      1u << static_cast<unsigned>(ArgKind::kJitFunction) | 1u << static_cast<unsigned>(ArgKind::kExpression);
  constexpr unsigned kDeviceKinds =
      1u << static_cast<unsigned>(ArgKind::kPointer) | 1u << static_cast<unsigned>(ArgKind::kTensorDescriptor);
  std::size_t w = tag_words;
  uint64_t tags = 0;
  bool refused = false;
  int first_device = -1;
  for (std::size_t i = 0; i < n; ++i) {
    const ArgSlot& s = args[i];
    const unsigned kind = static_cast<unsigned>(s.kind);
    tags |= input_tag(s) << (16 * (i % 4));
    if (i % 4 == 3) {
      in.words[i / 4] = tags;
      tags = 0;
    }
    uint64_t value = s.value.u;
    if (s.kind == ArgKind::kTensorDescriptor) [[unlikely]] {
      // Keyed by its block shape; one the encoder would refuse takes the full path, which says why.
      const auto& d = *static_cast<const TensorDescriptor*>(s.value.p);
      // A Gluon layout is part of the variant, not of this word: such calls take the full path.
      if (d.rank < 1 || d.rank > TensorDescriptor::kMaxRank || !d.layout.empty())
        refused = true;
      else
        value = descriptor_word(d);
    } else if (s.kind == ArgKind::kString || s.kind == ArgKind::kJitFunction || s.kind == ArgKind::kExpression)
        [[unlikely]] {
      // A string's text, not its address, is the value: a 128-bit digest in two words; a JIT
      // function's key likewise. Every argument left takes at most one word, so the words fit
      // while w + (n - i) + 1 does.
      if (w + (n - i) + 1 > kMaxInputWords) {
        refused = true;
      } else if (s.kind != ArgKind::kJitFunction) {
        const Digest text = digest(s.value.s, s.size);
        in.words[w++] = text.high;
        value = text.low;
      } else {
        const auto& k = static_cast<const JitFunctionArg*>(s.value.p)->key();
        in.words[w++] = k[0];
        value = k[1];
      }
    }
    in.words[w] = value;
    w += (kValueKinds >> kind) & 1;
    if (first_device < 0 && ((kDeviceKinds >> kind) & 1) != 0 && s.device >= 0) first_device = s.device;
  }
  if (refused) [[unlikely]]
    return false;
  if (n % 4 != 0) in.words[n / 4] = tags;
  in.size = static_cast<uint32_t>(w);
  in.first_device = first_device;
  const bool extra = config.compile_options != nullptr && !config.compile_options->empty();
  in.header = (static_cast<uint64_t>(config.enable_fp_fusion) | static_cast<uint64_t>(config.launch_pdl) << 1 |
               static_cast<uint64_t>(config.launch_cooperative_grid) << 2)
                  << kFlagsShift |
              static_cast<uint64_t>(extra) << kExtraShift;
  return true;
}

void DecoratedMemo::seal(Inputs& in, int device) const noexcept {
  const uint64_t autotune = hot_settings().autotune.load(std::memory_order_relaxed) ? 1 : 0;
  in.header |= static_cast<uint64_t>(in.size) | static_cast<uint64_t>(device & 63) << kDeviceShift |
               autotune << kAutotuneShift | static_cast<uint64_t>(in.options) << kOptionsShift |
               static_cast<uint64_t>(generation_.load(std::memory_order_acquire)) << kGenerationShift;
  uint64_t h = in.header;
  for (std::size_t i = 0; i < in.size; ++i) h = (h ^ in.words[i]) * 0x9E3779B97F4A7C15ull;
  in.entry = static_cast<uint32_t>(h >> 61);  // kEntries == 8
}

bool DecoratedMemo::find(Inputs& in, Outputs& out, const Variant*& variant) const noexcept {
  const Entry& e = entries_[in.entry];
  const uint64_t seq = e.seq.load(std::memory_order_acquire);
  if ((seq & 1) != 0 || e.header.load(std::memory_order_relaxed) != in.header) return false;
  const std::atomic<uint64_t>* inputs = e.words + inputs_at_;
  uint64_t differ = 0;
  for (std::size_t i = 0; i < in.size; ++i) differ |= inputs[i].load(std::memory_order_relaxed) ^ in.words[i];
  if (differ != 0) return false;
  const uint64_t kept = e.words[0].load(std::memory_order_relaxed);
  const uint64_t options = e.words[1].load(std::memory_order_relaxed);
  const std::atomic<uint64_t>* values = e.words + outputs_at();
  for (std::size_t i = 0; i < num_outputs_; ++i) {
    const uint64_t tag = i < kKindsWithOptions
                             ? options >> (kOptionBits + kOutputTagBits * i)
                             : e.words[2 + (i - kKindsWithOptions) / 4].load(std::memory_order_relaxed) >>
                                   (16 * ((i - kKindsWithOptions) % 4));
    ArgSlot* s = std::construct_at(&out.slots[i]);
    s->value.u = values[i].load(std::memory_order_relaxed);
    s->kind = static_cast<ArgKind>(tag & 0xF);
    s->dtype = static_cast<DType>((tag >> 4) & 0xFF);
  }
  std::atomic_thread_fence(std::memory_order_acquire);
  if (e.seq.load(std::memory_order_relaxed) != seq) return false;  // written meanwhile
  variant = reinterpret_cast<const Variant*>(static_cast<uintptr_t>(kept));
  in.chosen.num_warps = static_cast<int>(options & 63);
  in.chosen.num_stages = static_cast<int>((options >> 6) & 127);
  in.chosen.num_ctas = static_cast<int>((options >> 13) & 31);
  in.chosen.maxnreg = static_cast<int>((options >> 18) & 255);
  return true;
}

void DecoratedMemo::invalidate() noexcept {
  generation_.fetch_add(1, std::memory_order_acq_rel);
  // The generation is kept modulo 2^21 in the entries: clear them too, so that none made before
  // can match again after the count wraps.
  for (std::size_t i = 0; entries_ && i < kEntries; ++i) {
    Entry& e = entries_[i];
    uint64_t seq = e.seq.load(std::memory_order_relaxed);
    if ((seq & 1) != 0 || !e.seq.compare_exchange_strong(seq, seq + 1, std::memory_order_acq_rel)) continue;
    std::atomic_thread_fence(std::memory_order_release);
    e.header.store(0, std::memory_order_relaxed);
    e.seq.store(seq + 2, std::memory_order_release);
  }
}

void DecoratedMemo::remember(const Inputs& in, const ArgSlot* slots, const LaunchConfig& config,
                             const Variant* variant) noexcept {
  uint64_t options;
  if (!pack_options(config, options)) return;
  uint64_t kinds[kMaxOutputs / 4 + 1] = {};
  for (std::size_t i = 0; i < num_outputs_; ++i) {
    const ArgSlot& s = slots[output_at_[i]];
    if (s.kind == ArgKind::kPointer || s.kind == ArgKind::kString || s.kind == ArgKind::kTensorDescriptor ||
        s.kind == ArgKind::kJitFunction || s.kind == ArgKind::kExpression) {
      return;  // kept as values only
    }
    if (i < kKindsWithOptions) {
      options |= output_tag(s) << (kOptionBits + kOutputTagBits * i);
    } else {
      kinds[(i - kKindsWithOptions) / 4] |= output_tag(s) << (16 * ((i - kKindsWithOptions) % 4));
    }
  }
  if ((in.header >> kExtraShift) & 1) variant = nullptr;  // extra compile options: not packed, so looked up
  Entry& e = entries_[in.entry];
  uint64_t seq = e.seq.load(std::memory_order_relaxed);
  if ((seq & 1) != 0 || !e.seq.compare_exchange_strong(seq, seq + 1, std::memory_order_acq_rel)) return;
  std::atomic_thread_fence(std::memory_order_release);
  e.header.store(in.header, std::memory_order_relaxed);
  e.words[0].store(reinterpret_cast<uintptr_t>(variant), std::memory_order_relaxed);
  e.words[1].store(options, std::memory_order_relaxed);
  for (std::size_t k = 2; k < outputs_at(); ++k) e.words[k].store(kinds[k - 2], std::memory_order_relaxed);
  for (std::size_t i = 0; i < num_outputs_; ++i) {
    e.words[outputs_at() + i].store(slots[output_at_[i]].value.u, std::memory_order_relaxed);
  }
  for (std::size_t i = 0; i < in.size; ++i) e.words[inputs_at_ + i].store(in.words[i], std::memory_order_relaxed);
  e.seq.store(seq + 2, std::memory_order_release);
}

}  // namespace triton_jit::detail
