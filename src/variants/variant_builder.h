// The cold path as one pipeline. For a function: resolve -> bundle -> disk -> describe ->
// validate -> persist. For a variant: single flight -> bundle -> disk -> compile -> validate ->
// persist; then load per device. Nothing is persisted before it is validated, and nothing
// loaded is trusted before it is checked. See Note [Cache identity] in cache/entry_store.cpp.
#pragma once

#include <cstddef>
#include <memory>
#include <string_view>

#include "variants/function_state.h"

namespace triton_jit::detail {

// Fills a function's identity and static signature. Throws LookupError, CompileError or Error
// (offline, with no signature in a bundle or the cache).
void build_function(FunctionState& f, std::string_view spec, std::string_view name);

// Holds the function's mutex across fork() and abandons its builds in the child (Note [Fork
// safety]). Once the function is complete: the registration lasts for the process.
void guard_function_across_fork(FunctionState& f);

// The variant `key` selects, compiled once however many threads ask (they wait without the
// GIL); a failed compile is reported to every waiter and retried by the next call.
const Variant* find_or_build_variant(FunctionState& f, const ResolvedOptions& options, const VariantKey& key,
                                     const CallArgs& args);

// The variant's kernel on `device`, loaded once.
const ActiveBackend::Kernel* load_on_device(FunctionState& f, const Variant& v, int device);

// Runs `fn` holding f.mutex, with the GIL released if this thread held it (Note [The GIL and the
// runtime's locks], in compiler/bridge_loader.cpp).
template <class Fn>
auto with_function_lock(FunctionState& f, Fn&& fn) {
  using Result = decltype(fn());
  if constexpr (std::is_void_v<Result>) {
    run_without_gil([&] {
      std::lock_guard<std::mutex> lock(f.mutex);
      fn();
    });
  } else {
    Result result{};
    run_without_gil([&] {
      std::lock_guard<std::mutex> lock(f.mutex);
      result = fn();
    });
    return result;
  }
}

}  // namespace triton_jit::detail
