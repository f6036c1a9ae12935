// triton_jit_aot: compiles the variants a manifest lists into a bundle directory, which
// triton_jit_embed_bundle() in CMake builds into a program (see manifest.h for the format).
//
//   triton_jit_aot manifest.json -o bundle/ [--no-tune]
//
// A manifest's "tune" entries are real calls, run on the GPU: the configs @triton.autotune
// chooses for them go into the bundle with their variants. Without a GPU they are an error,
// unless --no-tune says to leave them out.
// Exits 0 only when every variant was compiled and written; anything else is an error naming
// the file, the manifest entry and the kernel.
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include <triton_jit/triton_jit.h>

#include "manifest.h"
#include "tensors.h"

namespace {

namespace fs = std::filesystem;

constexpr const char* kUsage =
    "usage: triton_jit_aot <manifest.json> -o <bundle directory> [--no-tune]\n"
    "       triton_jit_aot --help | --version\n"
    "\n"
    "Compiles every variant a manifest lists for its target and writes them, with the kernels'\n"
    "static signatures, into the bundle directory. triton_jit_embed_bundle(<target> <dir>) in\n"
    "CMake builds a bundle into a program, which then needs no Python, Triton or kernel sources\n"
    "for those variants. The manifest's \"tune\" calls run on the GPU and put the configs that\n"
    "@triton.autotune chooses into the bundle; --no-tune leaves them out (needed without a GPU).\n"
    "The manifest format is described in triton_jit_aot(1).\n";

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw triton_jit::aot::ManifestError(path.string() + ": cannot be read");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Progress on a terminal is one line redrawn, with the running variant's time ticking; in a
// log, a line when a variant starts and one when it is done, with no carriage returns.
class Progress {
 public:
  Progress(std::size_t total, bool terminal) : total_(total), terminal_(terminal) {}
  ~Progress() { finish(); }

  void start(std::size_t index, const std::string& what) {
    finish();
    index_ = index;
    what_ = what;
    started_ = std::chrono::steady_clock::now();
    if (!terminal_) {
      std::fprintf(stderr, "[%zu/%zu] compiling %s\n", index_, total_, what_.c_str());
      return;
    }
    draw();
    ticker_ = std::jthread([this](std::stop_token stop) {
      std::unique_lock lock(mutex_);
      while (!stop.stop_requested()) {
        wake_.wait_for(lock, stop, std::chrono::milliseconds(500), [] { return false; });
        if (!stop.stop_requested()) draw_locked();
      }
    });
  }

  // Ends the running variant's line; returns its time in seconds.
  double done(const std::string& what) {
    const double seconds = elapsed();
    finish();
    std::lock_guard lock(mutex_);
    if (terminal_) {
      std::fprintf(stderr, "\r[%zu/%zu] %-70.70s %6.1f s", index_, total_, what.c_str(), seconds);
    } else {
      std::fprintf(stderr, "[%zu/%zu] %s (%.1f s)\n", index_, total_, what.c_str(), seconds);
    }
    std::fflush(stderr);
    return seconds;
  }

 private:
  double elapsed() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count(); }
  void draw() {
    std::lock_guard lock(mutex_);
    draw_locked();
  }
  void draw_locked() {
    std::fprintf(stderr, "\r[%zu/%zu] %-70.70s %6.1f s", index_, total_, ("compiling " + what_).c_str(), elapsed());
    std::fflush(stderr);
  }
  void finish() {
    if (ticker_.joinable()) {
      ticker_.request_stop();
      ticker_.join();
    }
  }

  const std::size_t total_;
  const bool terminal_;
  std::size_t index_ = 0;
  std::string what_;
  std::chrono::steady_clock::time_point started_;
  std::mutex mutex_;
  std::condition_variable_any wake_;
  std::jthread ticker_;
};

triton_jit::Grid evaluate_grid(const triton_jit::LaunchMeta& meta, void* data) {
  const auto& grid = *static_cast<const std::vector<triton_jit::aot::GridExpression>*>(data);
  triton_jit::Grid out{1, 1, 1};
  for (std::size_t d = 0; d < grid.size(); ++d) {
    const int64_t v = grid[d].evaluate(
        [](std::string_view name, const void* m) { return (*static_cast<const triton_jit::LaunchMeta*>(m))[name]; },
        &meta);
    if (v < 0 || v > 0x7fffffff) {
      throw triton_jit::ValueError("grid '" + grid[d].text() + "' is " + std::to_string(v) +
                                   "; expected 0 to 2^31 - 1");
    }
    out[d] = static_cast<unsigned>(v);
  }
  return out;
}

// One real call, on the default stream of the current device: the first call with its key
// tunes. Returns the config chosen.
std::string tune(const triton_jit::TritonJITFunction& f, const triton_jit::aot::Tuning& t) {
  const auto tensors = triton_jit::aot::make_tensors(t.args);
  const auto slots = triton_jit::aot::to_slots(t.args, triton_jit::aot::pointers(t.args, tensors));
  triton_jit::LaunchConfig config = t.options;
  config.grid_fn = &evaluate_grid;
  config.grid_data = const_cast<std::vector<triton_jit::aot::GridExpression>*>(&t.grid);
  f.launch(config, slots);
  // A copy on the default stream waits for the call, and reports a fault in it.
  char sink = 0;
  if (!tensors.empty()) tensors.front().download(&sink, 1);
  const auto choice = f.autotune_choice(config, slots);
  return choice ? choice->text : std::string("(not an autotuned kernel: compiled only)");
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
  std::string manifest_arg, output_arg, usage_error;
  bool no_tune = false;
  for (std::size_t i = 0; i < args.size() && usage_error.empty(); ++i) {
    if (args[i] == "-o") {
      if (i + 1 == args.size()) {
        usage_error = "'-o' needs the bundle directory after it";
      } else {
        output_arg = args[++i];
      }
    } else if (args[i] == "--no-tune") {
      no_tune = true;
    } else if (args[i].size() > 1 && args[i][0] == '-') {
      usage_error = "unknown option '" + args[i] + "'";
    } else if (manifest_arg.empty()) {
      manifest_arg = args[i];
    } else {
      usage_error = "unexpected argument '" + args[i] + "' (one manifest at a time)";
    }
  }
  if (usage_error.empty() && manifest_arg.empty()) usage_error = "no manifest given";
  if (usage_error.empty() && output_arg.empty()) usage_error = "no bundle directory given ('-o <directory>')";
  if (!usage_error.empty()) {
    std::fprintf(stderr, "triton_jit_aot: %s\n%s", usage_error.c_str(), kUsage);
    return 2;
  }
  const fs::path manifest_path = fs::absolute(manifest_arg);
  const fs::path output = fs::absolute(output_arg);
  std::string context = manifest_path.string();
  // A run that fails removes the directory it created: a half-written bundle must not look like one.
  std::error_code exists_error;
  const bool output_existed = fs::exists(output, exists_error);
  auto discard_output = [&] {
    std::error_code ignored;
    if (!output_existed) fs::remove_all(output, ignored);
  };
  try {
    const triton_jit::aot::Manifest manifest = triton_jit::aot::parse_manifest(read_file(manifest_path), context);
    triton_jit::record_bundle(output.string());
    setenv("TRITON_JIT_TARGET", triton_jit::target_text(manifest.target).c_str(), 1);
    triton_jit::add_kernel_search_path(manifest_path.parent_path().string());
    const bool terminal = ::isatty(STDERR_FILENO) != 0;
    std::size_t total = 0, done = 0;
    for (const auto& k : manifest.kernels) total += k.signatures.size();
    Progress progress(total, terminal);
    const auto started = std::chrono::steady_clock::now();
    for (const auto& k : manifest.kernels) {
      context = manifest_path.string() + ": " + k.where + " (" + k.kernel + (k.function.empty() ? "" : ":") +
                k.function + ")";
      auto& f = triton_jit::TritonJITFunction::get_instance(k.kernel, k.function);
      for (std::size_t s = 0; s < k.signatures.size(); ++s) {
        context = manifest_path.string() + ": " + k.where + ".signatures[" + std::to_string(s) + "] (" + f.name() + ")";
        const auto slots = triton_jit::aot::to_slots(k.signatures[s]);
        progress.start(++done, f.name() + " " + k.where + ".signatures[" + std::to_string(s) + "]");
        auto v = f.warmup(k.options, slots);
        progress.done(f.name() + " (" + v.signature + ")");
      }
    }
    std::size_t tuned = 0, skipped = 0;
    for (const auto& k : manifest.kernels) {
      if (k.tunings.empty()) continue;
      if (no_tune) {
        skipped += k.tunings.size();
        continue;
      }
      auto& f = triton_jit::TritonJITFunction::get_instance(k.kernel, k.function);
      for (const auto& t : k.tunings) {
        context = manifest_path.string() + ": " + t.where + " (" + f.name() + ")";
        if (!triton_jit::cuda_available()) {
          throw std::runtime_error(
              "tuning runs on a GPU and there is none here; run where one is, or pass "
              "--no-tune to leave the tuning calls out");
        }
        const auto tuning_started = std::chrono::steady_clock::now();
        const std::string chosen = tune(f, t);
        ++tuned;
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - tuning_started).count();
        std::fprintf(stderr, "%stuned %s %s: %s (%.1f s)\n", terminal && tuned == 1 ? "\n" : "", f.name().c_str(),
                     t.where.c_str(), chosen.c_str(), seconds);
      }
    }
    if (skipped != 0) {
      std::fprintf(stderr, "%s%zu tuning calls left out (--no-tune): their keys are not in the bundle\n",
                   terminal ? "\n" : "", skipped);
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    const std::string keys = tuned == 0 ? "" : " and " + std::to_string(tuned) + " tuned keys";
    std::fprintf(stderr, "%s%zu variants of %zu kernels%s written to %s in %.1f s\n",
                 terminal && skipped == 0 && tuned == 0 ? "\n" : "", done, manifest.kernels.size(), keys.c_str(),
                 output.c_str(), seconds);
    return 0;
  } catch (const triton_jit::aot::ManifestError& e) {
    discard_output();
    std::fprintf(stderr, "\ntriton_jit_aot: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    discard_output();
    std::fprintf(stderr, "\ntriton_jit_aot: %s: %s\n", context.c_str(), e.what());
    return 1;
  }
}
