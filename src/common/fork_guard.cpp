#include "common/fork_guard.h"

#include <pthread.h>

#include <algorithm>
#include <vector>

// Note [Fork safety]
// A process may fork while other threads compile, load or log. The child has only the forking
// thread, but inherits every mutex as it was: one held by a thread that is gone stays held, and
// the state it guards may be half updated. So the prepare handler takes every registered mutex,
// by level and then in registration order (the order threads take them in), and both sides
// release them after the fork. In the child, callbacks then drop what belonged to threads that
// no longer exist: a function's in-flight compiles are abandoned, and whoever asks for that
// variant in the child compiles it afresh.
// The compiler bridge registers its handlers later, so they run before ours on prepare: the
// forking thread takes the GIL first, then our mutexes. That cannot deadlock as long as no
// thread waits for the GIL while it holds one of our mutexes: a Python host thread enters every
// critical section through run_without_gil, and nothing runs Python under our locks. (The
// bridge's own load mutex is the exception, and is not guarded.)

namespace triton_jit::detail {
namespace {

struct Guarded {
  std::mutex* mutex;
  LockLevel level;
  unsigned long order;
};

struct ForkState {
  std::mutex mutex;                                                // taken first on prepare
  std::vector<Guarded> guarded;                                    // guarded by mutex; sorted by (level, order)
  std::vector<std::pair<void (*)(void*), void*>> child_callbacks;  // guarded by mutex
  unsigned long next_order = 0;                                    // guarded by mutex
};

ForkState& state() {
  static auto* s = new ForkState();  // never destroyed
  return *s;
}

void prepare() {
  ForkState& s = state();
  s.mutex.lock();
  for (auto& g : s.guarded) g.mutex->lock();
}

void release() {
  ForkState& s = state();
  for (auto it = s.guarded.rbegin(); it != s.guarded.rend(); ++it) it->mutex->unlock();
  s.mutex.unlock();
}

void child() {
  ForkState& s = state();
  for (auto& [fn, arg] : s.child_callbacks) fn(arg);
  release();
}

void install_handlers() {
  static const bool installed = (pthread_atfork(&prepare, &release, &child), true);
  (void)installed;
}

// At load, before the compiler bridge can register its own (see the note).
const bool kInstalledAtLoad = (install_handlers(), true);

}  // namespace

void guard_across_fork(std::mutex& mutex, LockLevel level) {
  install_handlers();
  ForkState& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  Guarded g{&mutex, level, s.next_order++};
  auto at = std::upper_bound(s.guarded.begin(), s.guarded.end(), g, [](const Guarded& a, const Guarded& b) {
    return a.level != b.level ? a.level < b.level : a.order < b.order;
  });
  s.guarded.insert(at, g);
}

void on_fork_child(void (*fn)(void*), void* arg) {
  install_handlers();
  ForkState& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.child_callbacks.emplace_back(fn, arg);
}

}  // namespace triton_jit::detail
