// Gives the test binary a persistent cache of its own, empty at start, so that what a test
// compiles is compiled in this process (tests count compiles). Include in one file per binary.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <string>

#include <triton_jit/triton_jit.h>

namespace fresh_cache {
inline const bool kInstalled = [] {
  char pattern[] = "/tmp/triton_jit_test_cache_XXXXXX";
  const char* dir = mkdtemp(pattern);
  if (dir == nullptr) return false;
  static std::string path = dir;
  triton_jit::set_cache_dir(path);
  std::atexit([] {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  });
  return true;
}();
}  // namespace fresh_cache
