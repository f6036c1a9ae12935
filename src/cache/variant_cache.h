// The per-function variant cache: a grow-only open-addressing hash table whose readers take no
// lock. See Note [Lock-free variant lookup].
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <vector>

#include "encoding/variant_key.h"

namespace triton_jit::detail {

// Note [Lock-free variant lookup]
// Entries are immutable once published and never removed while the function lives, so a reader
// needs no lock: it loads the current table (acquire), probes slots (acquire) and compares keys.
// Writers are serialised by the caller (the function's mutex). Growing builds a bigger table,
// copies the entry pointers and publishes it; retired tables are kept (a reader may still be
// probing one) and freed with the cache. Their total size is bounded by the current table's.
template <class Entry>  // Entry has `const VariantKey key;`
class VariantCache {
 public:
  VariantCache() { table_.store(make_table(16).release(), std::memory_order_release); }
  ~VariantCache() {
    delete table_.load(std::memory_order_relaxed);
    for (auto* entry : owned_) delete entry;
  }
  VariantCache(const VariantCache&) = delete;
  VariantCache& operator=(const VariantCache&) = delete;

  // Thread-safe, lock-free, no allocation.
  const Entry* find(const VariantKey& key) const noexcept {
    const Table* t = table_.load(std::memory_order_acquire);
    for (std::size_t i = key.hash & t->mask;; i = (i + 1) & t->mask) {
      const Entry* e = t->slots[i].load(std::memory_order_acquire);
      if (e == nullptr) return nullptr;
      if (e->key == key) return e;
    }
  }

  // Takes ownership and publishes; the caller makes sure the key is not present (it holds the
  // single-flight slot for it) and serialises writers.
  const Entry* insert(std::unique_ptr<Entry> entry) {
    Table* t = table_.load(std::memory_order_relaxed);
    if ((count_ + 1) * 2 > t->mask + 1) t = grow(t);
    const Entry* e = entry.release();
    owned_.push_back(e);
    place(*t, e);
    ++count_;
    return e;
  }

  // Writers' view; call with writers serialised.
  std::size_t size() const { return count_; }

 private:
  struct Table {
    std::size_t mask;
    std::unique_ptr<std::atomic<const Entry*>[]> slots;
    std::unique_ptr<Table> retired;  // the previous table, kept for readers still in it
  };

  static std::unique_ptr<Table> make_table(std::size_t capacity) {
    auto t = std::make_unique<Table>();
    t->mask = capacity - 1;
    t->slots = std::make_unique<std::atomic<const Entry*>[]>(capacity);
    for (std::size_t i = 0; i < capacity; ++i) t->slots[i].store(nullptr, std::memory_order_relaxed);
    return t;
  }

  static void place(Table& t, const Entry* e) {
    std::size_t i = e->key.hash & t.mask;
    while (t.slots[i].load(std::memory_order_relaxed) != nullptr) i = (i + 1) & t.mask;
    t.slots[i].store(e, std::memory_order_release);
  }

  Table* grow(Table* old) {
    auto bigger = make_table((old->mask + 1) * 2);
    for (const Entry* e : owned_) place(*bigger, e);
    bigger->retired.reset(old);
    Table* t = bigger.release();
    table_.store(t, std::memory_order_release);
    return t;
  }

  std::atomic<Table*> table_;
  std::vector<const Entry*> owned_;  // written by the serialised writer
  std::size_t count_ = 0;            // written by the serialised writer
};

}  // namespace triton_jit::detail
