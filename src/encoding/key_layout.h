// How a variant key lays out its parameters after the header (variant_key.h says how the header
// and the entries are packed): a 16-bit entry per parameter, then each constexpr's value words, each tensor
// descriptor's word and each tuple's tree; and how to walk them back.
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/limits.h"
#include "encoding/kernel_signature.h"
#include "encoding/type_token.h"
#include "encoding/variant_key.h"
#include "triton_jit/errors.h"

namespace triton_jit::detail {

// The kind of a constexpr value in the key (its entry's value kind).
enum ValueKind : uint8_t { kVNone = 0, kVBool, kVInt, kVUInt, kVFloat, kVString, kVTuple, kVFunction, kVExpression };

// A tuple argument's tree in the key's tail, in pre-order: a node word per tuple (its element
// count), a leaf word per element (its 16-bit entry), then the value word of a leaf folded into
// a constexpr (None, 1). A namedtuple's node word has kTreeNamed set and is followed by the two
// words of its field names' digest (Note [Namedtuples]).
inline constexpr uint64_t kTreeNode = uint64_t{1} << 63;
inline constexpr uint64_t kTreeLeaf = uint64_t{1} << 62;
inline constexpr uint64_t kTreeNamed = uint64_t{1} << 61;

// One parameter of a variant, decoded from its key.
struct DecodedParam {
  TypeToken token;
  Attr attr;
  uint8_t value_kind;  // for constexprs
  uint64_t value;      // a constexpr's bits (the first word of a string's or tuple's digest); a descriptor's word
  uint32_t tree = 0;   // kTupleToken: where its tree starts in the key
};

// A descriptor entry's value kind when the descriptor carries a Gluon layout: two more words, its
// text's digest, follow the descriptor's word.
inline constexpr uint8_t kDescriptorWithLayout = 1;

inline uint32_t constexpr_words(uint8_t value_kind) {
  return value_kind == kVString || value_kind == kVTuple || value_kind == kVFunction || value_kind == kVExpression ? 2
                                                                                                                   : 1;
}

// The word after a tuple tree that starts at `cw`.
inline uint32_t skip_tree(const VariantKey& key, uint32_t cw) {
  uint64_t remaining = 1;
  while (remaining > 0) {
    const uint64_t w = key.words[cw++];
    --remaining;
    if (w & kTreeNode) {
      remaining += static_cast<uint32_t>(w);
      if (w & kTreeNamed) cw += 2;
    } else if (entry_token(static_cast<uint16_t>(w)) == kConstexprToken) {
      cw += constexpr_words(entry_value_kind(static_cast<uint16_t>(w)));
    }
  }
  return cw;
}

// Calls fn(index, DecodedParam) for every parameter of the variant `key` of `sig`.
template <class Fn>
void for_each_param(const KernelSignature& sig, const VariantKey& key, Fn&& fn) {
  uint32_t cw = kHeaderWords + param_words(sig.params.size());
  for (std::size_t i = 0; i < sig.params.size(); ++i) {
    uint16_t entry = key_entry(key, i);
    DecodedParam d{entry_token(entry), entry_attr(entry), entry_value_kind(entry), 0};
    if (d.token == kConstexprToken) {
      d.value = key.words[cw];
      cw += constexpr_words(d.value_kind);
    } else if (d.token == kTensorDescToken) {
      d.value = key.words[cw++];
      if (d.value_kind == kDescriptorWithLayout) cw += 2;
    } else if (d.token == kTupleToken) {
      d.tree = cw;
      cw = skip_tree(key, cw);
    }
    fn(i, d);
  }
}

// A step of a walk through a tuple tree: a node's start or end, or a leaf.
struct TupleStep {
  enum Kind { kBegin, kLeaf, kEnd } kind;
  uint32_t count;        // kBegin: elements
  uint16_t entry;        // kLeaf
  uint64_t value;        // kLeaf folded into a constexpr: its value bits
  const uint32_t* path;  // the element's indices from the tuple down (kLeaf, kBegin of an inner node)
  uint32_t depth;
  bool leaf = false;
  bool named = false;  // kBegin of a namedtuple
};

// Walks the tree at `tree` in order. Throws ValueError when it nests deeper than kMaxTupleDepth.
template <class Fn>
void walk_tuple(const VariantKey& key, uint32_t tree, Fn&& fn);

template <class Fn>
void walk_tuple(const VariantKey& key, uint32_t tree, Fn&& fn) {
  uint32_t path[kMaxTupleDepth];
  uint32_t left[kMaxTupleDepth];
  uint32_t depth = 0;
  uint32_t cw = tree;
  auto finished = [&] {  // one element done: close the nodes it completed
    while (depth > 0) {
      ++path[depth - 1];
      if (--left[depth - 1] > 0) return;
      --depth;
      fn(TupleStep{TupleStep::kEnd, 0, 0, 0, path, depth});
    }
  };
  do {
    const uint64_t w = key.words[cw++];
    if (w & kTreeNode) {
      const auto count = static_cast<uint32_t>(w);
      TupleStep begin{TupleStep::kBegin, count, 0, 0, path, depth};
      begin.named = (w & kTreeNamed) != 0;
      if (begin.named) cw += 2;
      fn(begin);
      if (depth == kMaxTupleDepth) throw ValueError("triton_jit: tuple arguments nest deeper than 16");
      if (count == 0) {
        fn(TupleStep{TupleStep::kEnd, 0, 0, 0, path, depth});
        finished();
        continue;
      }
      path[depth] = 0;
      left[depth] = count;
      ++depth;
    } else {
      const auto entry = static_cast<uint16_t>(w);
      uint64_t value = 0;
      if (entry_token(entry) == kConstexprToken) {
        value = key.words[cw];
        cw += constexpr_words(entry_value_kind(entry));
      }
      TupleStep step{TupleStep::kLeaf, 0, entry, value, path, depth};
      step.leaf = true;
      fn(step);
      finished();
    }
  } while (depth > 0);
}

}  // namespace triton_jit::detail
