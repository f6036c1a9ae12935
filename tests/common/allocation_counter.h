// Counts heap allocations (operator new and malloc, the driver's included) made by the current
// thread inside a CountAllocations scope. Include in exactly one file of a test binary: it
// replaces the global allocation functions.
#pragma once

#include <atomic>
#include <cstdlib>
#include <new>

#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
// Sanitizers own the allocator; the zero-allocation tests run in the plain build.
inline constexpr bool kAllocationCountingAvailable = false;
class CountAllocations {
 public:
  long count() const { return 0; }
};
#else
inline constexpr bool kAllocationCountingAvailable = true;

namespace allocation_counter {
inline thread_local bool t_counting = false;
inline std::atomic<long> g_count{0};
}  // namespace allocation_counter

extern "C" void* __libc_malloc(std::size_t);
extern "C" void* malloc(std::size_t size) {
  if (allocation_counter::t_counting) allocation_counter::g_count.fetch_add(1, std::memory_order_relaxed);
  return __libc_malloc(size);
}
void* operator new(std::size_t size) {
  if (allocation_counter::t_counting) allocation_counter::g_count.fetch_add(1, std::memory_order_relaxed);
  if (void* p = __libc_malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

// Allocations made by this thread while the scope lives.
class CountAllocations {
 public:
  CountAllocations() : start_(allocation_counter::g_count.load()) { allocation_counter::t_counting = true; }
  ~CountAllocations() { allocation_counter::t_counting = false; }
  long count() const { return allocation_counter::g_count.load() - start_; }

 private:
  long start_;
};
#endif
