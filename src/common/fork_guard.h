// Keeping triton_jit's state usable in a child process after fork(). See Note [Fork safety].
#pragma once

#include <mutex>

namespace triton_jit::detail {

// Where a mutex sits in the lock hierarchy: a thread holding a mutex of one level may take one
// of a higher level, never the reverse. The fork handlers take them all in this order.
enum class LockLevel : int { kRegistry = 0, kFunction = 1, kLeaf = 2, kLog = 3 };

// Registers a mutex that lives until the process exits: it is held across fork(), so that the
// child never inherits it locked by a thread it does not have. Thread-safe.
void guard_across_fork(std::mutex& mutex, LockLevel level);

// Runs `fn(arg)` in the child after a fork, while every guarded mutex is still held (so it may
// touch what they guard). Thread-safe; for objects that live until the process exits.
void on_fork_child(void (*fn)(void*), void* arg);

}  // namespace triton_jit::detail
