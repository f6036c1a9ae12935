// The lock-free variant cache under concurrent readers and writers, and the single flight that
// fills it (one build per key, its result or error shared with every caller waiting for it).
#include <gtest/gtest.h>

#include <atomic>
#include <barrier>
#include <chrono>
#include <memory>
#include <stdexcept>
#include <thread>
#include <vector>

#include "cache/variant_cache.h"
#include "variants/single_flight.h"

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

namespace {

using Flight = triton_jit::detail::SingleFlight<VariantKey, const Entry>;

// Threads that all ask for `key` at once; returns what each got (nullptr: it caught `error`).
std::vector<const Entry*> ask_together(Flight& flight, std::mutex& mutex, VariantCache<Entry>& cache,
                                       const VariantKey& key, std::atomic<int>& builds, bool fail,
                                       std::atomic<int>* caught = nullptr) {
  std::atomic<int> ignored{0};
  std::atomic<int>& errors = caught != nullptr ? *caught : ignored;
  constexpr int kThreads = 8;
  std::vector<const Entry*> got(kThreads, nullptr);
  std::barrier start(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      start.arrive_and_wait();
      try {
        got[t] = flight.run(
            mutex, key, [&] { return cache.find(key); },
            [&] {
              builds.fetch_add(1);
              std::this_thread::sleep_for(std::chrono::milliseconds(20));  // the others arrive meanwhile
              if (fail) throw std::runtime_error("build failed");
              return std::make_unique<Entry>(key, 7);
            },
            [&](std::unique_ptr<Entry> e) { return cache.insert(std::move(e)); });
      } catch (const std::runtime_error&) {
        // Every waiter rethrows the one exception object: its message is read once, after the
        // threads are joined (libstdc++'s reference count of it is invisible to TSan).
        errors.fetch_add(1);
      }
    });
  }
  for (auto& t : threads) t.join();
  return got;
}

}  // namespace

TEST(SingleFlight, ConcurrentCallersOfOneKeyShareOneBuild) {
  Flight flight;
  std::mutex mutex;
  VariantCache<Entry> cache;
  std::atomic<int> builds{0};
  const auto got = ask_together(flight, mutex, cache, key_of(1), builds, false);
  EXPECT_EQ(builds.load(), 1);
  for (const Entry* e : got) EXPECT_EQ(e, cache.find(key_of(1)));
  ASSERT_NE(got[0], nullptr);
  EXPECT_EQ(got[0]->value, 7);
}

TEST(SingleFlight, AFailedBuildIsEveryWaitersErrorAndTheNextCallBuildsAgain) {
  Flight flight;
  std::mutex mutex;
  VariantCache<Entry> cache;
  std::atomic<int> builds{0};
  // Callers that arrive while the build runs get its error; a later caller starts afresh.
  std::atomic<int> caught{0};
  const auto failed = ask_together(flight, mutex, cache, key_of(2), builds, true, &caught);
  for (const Entry* e : failed) EXPECT_EQ(e, nullptr);
  EXPECT_EQ(caught.load(), 8);
  EXPECT_GE(builds.load(), 1);
  try {
    flight.run(
        mutex, key_of(2), [&] { return cache.find(key_of(2)); },
        []() -> std::unique_ptr<Entry> { throw std::runtime_error("build failed"); },
        [&](std::unique_ptr<Entry> e) { return cache.insert(std::move(e)); });
    ADD_FAILURE() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "build failed");
  }
  EXPECT_EQ(cache.find(key_of(2)), nullptr);
  const int before = builds.load();
  const auto built = ask_together(flight, mutex, cache, key_of(2), builds, false);
  EXPECT_EQ(builds.load(), before + 1);
  EXPECT_NE(built[3], nullptr);
}

TEST(SingleFlight, KeysBuildIndependently) {
  Flight flight;
  std::mutex mutex;
  VariantCache<Entry> cache;
  std::atomic<int> builds{0};
  std::thread other([&] { ask_together(flight, mutex, cache, key_of(3), builds, false); });
  ask_together(flight, mutex, cache, key_of(4), builds, false);
  other.join();
  EXPECT_EQ(builds.load(), 2);
  EXPECT_NE(cache.find(key_of(3)), cache.find(key_of(4)));
}
