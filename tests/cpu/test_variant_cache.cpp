// The lock-free variant cache under concurrent readers and writers.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "cache/variant_cache.h"

using triton_jit::detail::VariantCache;
using triton_jit::detail::VariantKey;

namespace {

struct Entry {
  explicit Entry(const VariantKey& k, int v) : key(k), value(v) {}
  const VariantKey key;
  int value;
};

VariantKey key_of(uint64_t n) {
  VariantKey k;
  k.size = 3;
  k.words[0] = 90;
  k.words[1] = n;
  k.words[2] = n * 7;
  k.finish();
  return k;
}

}  // namespace

TEST(VariantCache, FindsWhatWasInsertedAcrossGrowth) {
  VariantCache<Entry> cache;
  for (int i = 0; i < 1000; ++i) cache.insert(std::make_unique<Entry>(key_of(i), i));
  for (int i = 0; i < 1000; ++i) {
    const Entry* e = cache.find(key_of(i));
    ASSERT_NE(e, nullptr);
    EXPECT_EQ(e->value, i);
  }
  EXPECT_EQ(cache.find(key_of(5000)), nullptr);
  EXPECT_EQ(cache.size(), 1000u);
}

TEST(VariantCache, ReadersNeverSeeATornEntryWhileWritersGrowIt) {
  VariantCache<Entry> cache;
  std::atomic<int> published{0};
  std::atomic<bool> bad{false};
  std::thread writer([&] {
    for (int i = 0; i < 4000; ++i) {
      cache.insert(std::make_unique<Entry>(key_of(i), i));
      published.store(i + 1, std::memory_order_release);
    }
  });
  std::vector<std::thread> readers;
  for (int r = 0; r < 4; ++r) {
    readers.emplace_back([&] {
      while (published.load(std::memory_order_acquire) < 4000) {
        int upto = published.load(std::memory_order_acquire);
        for (int i = 0; i < upto; i += 37) {
          const Entry* e = cache.find(key_of(i));
          if (e == nullptr || e->value != i) bad = true;
        }
      }
    });
  }
  writer.join();
  for (auto& t : readers) t.join();
  EXPECT_FALSE(bad.load());
}
