// Ahead-of-time bundles: entries made by triton_jit_aot, registered from a program's own data
// (triton_jit_embed_bundle) and consulted before the disk cache. Keyed by their path inside the
// bundle, "<portable function id>/<entry file>".
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace triton_jit::detail {

// The data must live as long as the process. Thread-safe.
void add_bundle_entry(std::string relative_path, const void* data, std::size_t size);
// Looks in the registered entries, after loading the directories of TRITON_JIT_BUNDLE_PATH once.
std::optional<std::string_view> find_bundle_entry(const std::string& relative_path);

}  // namespace triton_jit::detail

namespace triton_jit::detail {

// Recording (record_bundle(), TRITON_JIT_RECORD_BUNDLE): every signature and variant this
// process builds or loads is also written into the bundle directory. No-op when not recording;
// throws Error naming the file when a write fails. Thread-safe.
void record_bundle_entry(const std::string& function_dir, const std::string& file, const std::string& bytes,
                         const std::string& kernel);

}  // namespace triton_jit::detail
