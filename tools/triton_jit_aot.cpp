// triton_jit_aot: compiles the variants a manifest lists into a bundle (a cache directory) that
// triton_jit_embed_bundle() in CMake builds into a program, or that TRITON_JIT_CACHE_DIR names.
//
//   triton_jit_aot manifest.json -o bundle/
//
// manifest.json:
//   {"target": "cuda:90",
//    "kernels": [{"kernel": "scale.py", "function": "scale",
//                 "options": {"num_warps": 4, "num_stages": 3},
//                 "signatures": [["*fp32:16", "*fp32:16", "fp32", "i32:16"], ["*fp16", "*fp16", "fp32", "i32"]]}]}
//
// An argument is a Triton type: "*fp16" a pointer (":16" when 16-byte aligned), "i32", "i64", "u64"
// (":16" when divisible by 16), "fp32", "u1"; or a JSON value for a constexpr (number, true/false,
// null, a string that is not a type). Relative kernel paths are relative to the manifest.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include <triton_jit/triton_jit.h>

namespace {

using triton_jit::ArgSlot;
namespace fs = std::filesystem;

alignas(64) unsigned char g_memory[256];  // addresses only: nothing is read or written

triton_jit::DType dtype_named(const std::string& name) {
  static const std::pair<const char*, triton_jit::DType> kNames[] = {
      {"u1", triton_jit::DType::kBool},          {"i8", triton_jit::DType::kInt8},
      {"i16", triton_jit::DType::kInt16},        {"i32", triton_jit::DType::kInt32},
      {"i64", triton_jit::DType::kInt64},        {"u8", triton_jit::DType::kUInt8},
      {"u16", triton_jit::DType::kUInt16},       {"u32", triton_jit::DType::kUInt32},
      {"u64", triton_jit::DType::kUInt64},       {"fp16", triton_jit::DType::kFloat16},
      {"bf16", triton_jit::DType::kBFloat16},    {"fp32", triton_jit::DType::kFloat32},
      {"fp64", triton_jit::DType::kFloat64},     {"fp8e4nv", triton_jit::DType::kFloat8E4M3FN},
      {"fp8e5", triton_jit::DType::kFloat8E5M2}, {"fp8e4b8", triton_jit::DType::kFloat8E4M3FNUZ},
      {"fp8e5b16", triton_jit::DType::kFloat8E5M2FNUZ}};
  for (const auto& [n, d] : kNames) {
    if (name == n) return d;
  }
  throw std::invalid_argument("unknown dtype '" + name + "'");
}

ArgSlot argument(const nlohmann::json& spec) {
  using triton_jit::to_slot;
  if (spec.is_null()) return to_slot(std::nullopt);
  if (spec.is_boolean()) return to_slot(spec.get<bool>());
  if (spec.is_number_unsigned()) return to_slot(spec.get<uint64_t>());
  if (spec.is_number_integer()) return to_slot(spec.get<int64_t>());
  if (spec.is_number_float()) return to_slot(spec.get<double>());
  static const std::regex kType(R"((\*k?)?([a-z0-9]+)(:16)?)");
  static std::vector<std::string> strings;  // keeps constexpr strings alive for the run
  const std::string text = spec.get<std::string>();
  std::smatch m;
  if (!std::regex_match(text, m, kType) || (m[1].length() == 0 && text.find_first_of("0123456789") == std::string::npos)) {
    strings.push_back(text);
    return to_slot(strings.back());
  }
  const bool aligned = m[3].length() > 0;
  const std::string type = m[2];
  if (m[1].length() > 0) return to_slot(triton_jit::device_pointer(g_memory + (aligned ? 0 : 4), dtype_named(type)));
  if (type == "i32") return to_slot(int64_t{aligned ? 16 : 3});
  if (type == "i64") return to_slot(int64_t{aligned ? (int64_t{1} << 40) : (int64_t{1} << 40) + 1});
  if (type == "u64") return to_slot(aligned ? (uint64_t{1} << 63) + 16 : (uint64_t{1} << 63) + 1);
  if (type == "fp32") return to_slot(1.5);
  if (type == "u1") return to_slot(true);
  throw std::invalid_argument("'" + text + "' is not an argument type aot can make (i32, i64, u64, fp32, u1, *dtype)");
}

void progress(std::size_t done, std::size_t total, const std::string& what) {
  constexpr int kWidth = 30;
  const int filled = total == 0 ? kWidth : static_cast<int>(kWidth * done / total);
  std::fprintf(stderr, "\r[%s%s] %zu/%zu %-60.60s", std::string(filled, '#').c_str(),
               std::string(kWidth - filled, '.').c_str(), done, total, what.c_str());
  std::fflush(stderr);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4 || std::string(argv[2]) != "-o") {
    std::fprintf(stderr, "usage: triton_jit_aot <manifest.json> -o <bundle directory>\n");
    return 2;
  }
  try {
    const fs::path manifest_path = fs::absolute(argv[1]);
    std::ifstream in(manifest_path);
    if (!in) throw std::runtime_error("cannot read " + manifest_path.string());
    const auto manifest = nlohmann::json::parse(in);
    setenv("TRITON_JIT_TARGET", manifest.value("target", std::string("cuda:90")).c_str(), 1);
    triton_jit::set_cache_dir(fs::absolute(argv[3]).string());
    triton_jit::add_kernel_search_path(manifest_path.parent_path().string());

    std::size_t total = 0, done = 0;
    for (const auto& k : manifest.at("kernels")) total += k.at("signatures").size();
    for (const auto& k : manifest.at("kernels")) {
      auto& f = triton_jit::TritonJITFunction::get_instance(k.at("kernel").get<std::string>(),
                                                             k.value("function", std::string()));
      triton_jit::LaunchConfig config;
      const auto options = k.value("options", nlohmann::json::object());
      config.num_warps = options.value("num_warps", 0);
      config.num_stages = options.value("num_stages", 0);
      config.num_ctas = options.value("num_ctas", 0);
      config.maxnreg = options.value("maxnreg", 0);
      config.enable_fp_fusion = options.value("enable_fp_fusion", true);
      config.launch_pdl = options.value("launch_pdl", false);
      config.launch_cooperative_grid = options.value("launch_cooperative_grid", false);
      for (const auto& signature : k.at("signatures")) {
        std::vector<ArgSlot> args;
        for (const auto& a : signature) args.push_back(argument(a));
        progress(done, total, f.name());
        auto v = f.warmup(config, args.data(), args.size());
        ++done;
        progress(done, total, f.name() + " (" + v.signature + ")");
      }
    }
    std::fprintf(stderr, "\n%zu variants in %s\n", done, triton_jit::cache_dir().c_str());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "\ntriton_jit_aot: %s\n", e.what());
    return 1;
  }
}
