// triton_jit_aot: compiles the variants a manifest lists into a bundle directory, which
// triton_jit_embed_bundle() in CMake builds into a program (see manifest.h for the format).
//
//   triton_jit_aot manifest.json -o bundle/
//
// Exits 0 only when every variant was compiled and written; anything else is an error naming
// the file, the manifest entry and the kernel.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <triton_jit/triton_jit.h>

#include "manifest.h"

namespace {

namespace fs = std::filesystem;

constexpr const char* kUsage =
    "usage: triton_jit_aot <manifest.json> -o <bundle directory>\n"
    "       triton_jit_aot --help | --version\n"
    "\n"
    "Compiles every variant a manifest lists for its target and writes them, with the kernels'\n"
    "static signatures, into the bundle directory. triton_jit_embed_bundle(<target> <dir>) in\n"
    "CMake builds a bundle into a program, which then needs no Python, Triton or kernel sources\n"
    "for those variants. The manifest format is described in triton_jit_aot(1).\n";

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw triton_jit::aot::ManifestError(path.string() + ": cannot be read");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Progress on a terminal is one line redrawn; in a log, one line per variant.
void progress(std::size_t done, std::size_t total, const std::string& what, double seconds, bool terminal) {
  if (terminal) {
    std::fprintf(stderr, "\r[%zu/%zu] %-70.70s %6.1f s", done, total, what.c_str(), seconds);
  } else {
    std::fprintf(stderr, "[%zu/%zu] %s (%.1f s)\n", done, total, what.c_str(), seconds);
  }
  std::fflush(stderr);
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (args.size() == 1 && (args[0] == "--help" || args[0] == "-h")) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  if (args.size() == 1 && args[0] == "--version") {
    std::printf("triton_jit_aot %s\n", TRITON_JIT_VERSION);
    return 0;
  }
  if (args.size() != 3 || args[1] != "-o") {
    std::fputs(kUsage, stderr);
    return 2;
  }
  const fs::path manifest_path = fs::absolute(args[0]);
  std::string context = manifest_path.string();
  try {
    const triton_jit::aot::Manifest manifest = triton_jit::aot::parse_manifest(read_file(manifest_path), context);
    triton_jit::record_bundle(fs::absolute(args[2]).string());
    setenv("TRITON_JIT_TARGET", (manifest.target.arch_specific ? "cuda:" + std::to_string(manifest.target.arch) + "a"
                                                               : "cuda:" + std::to_string(manifest.target.arch))
                                    .c_str(),
           1);
    triton_jit::add_kernel_search_path(manifest_path.parent_path().string());
    const bool terminal = ::isatty(STDERR_FILENO) != 0;
    std::size_t total = 0, done = 0;
    for (const auto& k : manifest.kernels) total += k.signatures.size();
    const auto started = std::chrono::steady_clock::now();
    for (const auto& k : manifest.kernels) {
      context = manifest_path.string() + ": " + k.where + " (" + k.kernel + (k.function.empty() ? "" : ":") +
                k.function + ")";
      auto& f = triton_jit::TritonJITFunction::get_instance(k.kernel, k.function);
      for (std::size_t s = 0; s < k.signatures.size(); ++s) {
        context = manifest_path.string() + ": " + k.where + ".signatures[" + std::to_string(s) + "] (" + f.name() + ")";
        const auto slots = triton_jit::aot::to_slots(k.signatures[s]);
        const auto variant_started = std::chrono::steady_clock::now();
        auto v = f.warmup(k.options, slots.data(), slots.size());
        ++done;
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - variant_started).count();
        progress(done, total, f.name() + " (" + v.signature + ")", seconds, terminal);
      }
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    std::fprintf(stderr, "%s%zu variants of %zu kernels written to %s in %.1f s\n", terminal ? "\n" : "", done,
                 manifest.kernels.size(), fs::absolute(args[2]).c_str(), seconds);
    return 0;
  } catch (const triton_jit::aot::ManifestError& e) {
    std::fprintf(stderr, "\ntriton_jit_aot: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "\ntriton_jit_aot: %s: %s\n", context.c_str(), e.what());
    return 1;
  }
}
