// @triton.autotune from C++: the config for a call's key, tuned once per key (and per kind of
// device), remembered in memory, the persistent cache and bundles. See Note [Autotuning].
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "decorators/decorators.h"

namespace triton_jit::detail {

// The config for a call whose decorator steps before the autotuner have run: forced, the first
// when autotuning is off or there is one config, the key's choice; a new key is tuned first
// (concurrent first calls tune once). The hit path: an atomic load, the key's hash, a lock-free
// lookup.
int choose_config(FunctionState& f, DecoratorState& d, const PreparedCall& call, int device);

// What is known for the call's key without tuning: forced, off, this process's choice, the
// cache's or a bundle's. nullopt when nothing is.
std::optional<AutotuneChoice> known_choice(FunctionState& f, DecoratorState& d, const PreparedCall& call, int device);

// The configs worth trying for a call: every one, or those prune_configs_by keeps (Python, once
// per tuning key; the result persists beside the key's choice, see Note [Persisted prunes]).
std::vector<int> candidate_configs(FunctionState& f, const PreparedCall& call, int device);

// A copy of a prepared call (its bound slots and configuration).
void copy_call(const KernelSignature& sig, const PreparedCall& from, PreparedCall& to);

// The tuning key of a call whose steps before the autotuner have run: the device, the values of
// the `key` arguments and the dtypes of the tensor arguments, as Triton's Autotuner forms it.
void tuning_key(const KernelSignature& sig, const PreparedCall& call, int device, VariantKey& key);

// Readable text of a tuning key, for messages: "M=4096, N=4096, K=512, *fp16, *fp16, *fp16".
std::string tuning_key_text(const KernelSignature& sig, const PreparedCall& call);

}  // namespace triton_jit::detail
