#include "runtime/decorated_memo.h"

#include "common/settings.h"

namespace triton_jit::detail {
namespace {

constexpr uint64_t tag_of(const ArgSlot& s) noexcept {
  return static_cast<uint64_t>(s.kind) | (static_cast<uint64_t>(s.dtype) << 8);
}

uint64_t options_word(const LaunchConfig& c) noexcept {
  auto field = [](int v) { return static_cast<uint64_t>(static_cast<uint16_t>(v)); };
  return field(c.num_warps) | field(c.num_stages) << 16 | field(c.num_ctas) << 32 | field(c.maxnreg) << 48;
}

}  // namespace

void DecoratedMemo::configure(const KernelSignature& sig) {
  enabled_ = false;
  if (!sig.decorated() || sig.params.size() > kMaxParams || sig.decorator_params.size() > kMaxOutputs) return;
  for (const auto& h : sig.heuristics) {
    if (!h.program) return;  // Python may read anything, addresses included
  }
  num_user_ = static_cast<uint8_t>(sig.user_params.size());
  num_outputs_ = static_cast<uint8_t>(sig.decorator_params.size());
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

bool DecoratedMemo::pack(const ArgSlot* args, std::size_t n, int device, const LaunchConfig& config,
                         Inputs& in) const noexcept {
  // The caller's options in 26 bits; values beyond these take the full path, which reports them.
  const auto nw = static_cast<unsigned>(config.num_warps), ns = static_cast<unsigned>(config.num_stages),
             nc = static_cast<unsigned>(config.num_ctas), mr = static_cast<unsigned>(config.maxnreg);
  if (nw > 63 || ns > 127 || nc > 31 || mr > 255) [[unlikely]] return false;
  const uint64_t options = nw | ns << 6 | nc << 13 | mr << 18;
  std::size_t w = 0;
  uint64_t tags = 0;
  unsigned in_word = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const ArgSlot& s = args[i];
    if (s.kind == ArgKind::kString) [[unlikely]] return false;  // its text, not its address, is the value
    tags |= tag_of(s) << (16 * in_word);
    if (++in_word == 4) {
      if (w == kMaxInputWords) [[unlikely]] return false;
      in.words[w++] = tags;
      tags = 0;
      in_word = 0;
    }
  }
  if (in_word != 0) {
    if (w == kMaxInputWords) [[unlikely]] return false;
    in.words[w++] = tags;
  }
  for (std::size_t i = 0; i < n; ++i) {
    const ArgSlot& s = args[i];
    if (s.kind == ArgKind::kPointer || s.kind == ArgKind::kNone || s.kind == ArgKind::kTensorDescriptor) continue;
    if (w == kMaxInputWords) [[unlikely]] return false;
    in.words[w++] = s.value.u;
  }
  in.size = w;
  const uint64_t autotune = hot_settings().autotune.load(std::memory_order_relaxed) ? 1 : 0;
  in.header = static_cast<uint64_t>(n) | static_cast<uint64_t>(static_cast<uint8_t>(device)) << 8 |
              static_cast<uint64_t>(w) << 16 | autotune << 24 | options << 25 |
              static_cast<uint64_t>(generation_.load(std::memory_order_acquire)) << 51;
  uint64_t h = in.header;
  for (std::size_t i = 0; i < w; ++i) h = (h ^ in.words[i]) * 0x9E3779B97F4A7C15ull;
  in.entry = static_cast<std::size_t>(h >> 61);  // kEntries == 8
  return true;
}

bool DecoratedMemo::find(Inputs& in, Outputs& out) const noexcept {
  const Entry& e = entries_[in.entry];
  const uint64_t seq = e.seq.load(std::memory_order_acquire);
  if ((seq & 1) != 0 || e.header.load(std::memory_order_relaxed) != in.header) return false;
  const std::size_t n = in.size;
  for (std::size_t i = 0; i < n; ++i) {
    if (e.words[i].load(std::memory_order_relaxed) != in.words[i]) return false;
  }
  const std::size_t tags_at = n + num_outputs_;
  for (std::size_t i = 0; i < num_outputs_; ++i) {
    const uint64_t tag = e.words[tags_at + i / 4].load(std::memory_order_relaxed) >> (16 * (i % 4));
    ArgSlot* s = std::construct_at(&out.slots[i]);
    s->value.u = e.words[n + i].load(std::memory_order_relaxed);
    s->kind = static_cast<ArgKind>(tag & 0xFF);
    s->dtype = static_cast<DType>((tag >> 8) & 0xFF);
  }
  const uint64_t options = e.words[tags_at + (num_outputs_ + 3) / 4].load(std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_acquire);
  if (e.seq.load(std::memory_order_relaxed) != seq) return false;  // written meanwhile
  in.chosen.num_warps = static_cast<int16_t>(options & 0xFFFF);
  in.chosen.num_stages = static_cast<int16_t>((options >> 16) & 0xFFFF);
  in.chosen.num_ctas = static_cast<int16_t>((options >> 32) & 0xFFFF);
  in.chosen.maxnreg = static_cast<int16_t>(options >> 48);
  return true;
}

void DecoratedMemo::invalidate() noexcept {
  generation_.fetch_add(1, std::memory_order_acq_rel);
  // The generation is kept modulo 2^13 in the entries: clear them too, so that none made before
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

void DecoratedMemo::remember(const Inputs& in, const ArgSlot* slots, const LaunchConfig& config) noexcept {
  for (std::size_t i = 0; i < num_outputs_; ++i) {
    const ArgKind kind = slots[output_at_[i]].kind;
    if (kind == ArgKind::kPointer || kind == ArgKind::kString) return;  // kept as values only
  }
  Entry& e = entries_[in.entry];
  uint64_t seq = e.seq.load(std::memory_order_relaxed);
  if ((seq & 1) != 0 || !e.seq.compare_exchange_strong(seq, seq + 1, std::memory_order_acq_rel)) return;
  std::atomic_thread_fence(std::memory_order_release);
  e.header.store(in.header, std::memory_order_relaxed);
  const std::size_t n = in.size;
  for (std::size_t i = 0; i < n; ++i) e.words[i].store(in.words[i], std::memory_order_relaxed);
  const std::size_t tags_at = n + num_outputs_;
  uint64_t tags = 0;
  for (std::size_t i = 0; i < num_outputs_; ++i) {
    const ArgSlot& s = slots[output_at_[i]];
    e.words[n + i].store(s.value.u, std::memory_order_relaxed);
    tags |= tag_of(s) << (16 * (i % 4));
    if (i % 4 == 3 || i + 1 == num_outputs_) {
      e.words[tags_at + i / 4].store(tags, std::memory_order_relaxed);
      tags = 0;
    }
  }
  e.words[tags_at + (num_outputs_ + 3) / 4].store(options_word(config), std::memory_order_relaxed);
  e.seq.store(seq + 2, std::memory_order_release);
}

}  // namespace triton_jit::detail
