// Argument encoding on its own: parameter bytes, keys, device checks. Parity of the chosen
// types with Triton's specializer is checked in tests/python/test_parity.py.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>

#include "common/target.h"
#include "compiler/compile_request.h"
#include "encoding/argument_encoder.h"
#include "encoding/kernel_signature.h"
#include "triton_jit/errors.h"

using namespace triton_jit;
using namespace triton_jit::detail;

namespace {

KernelSignature signature(const char* params_json) {
  return parse_kernel_signature(std::string(R"({"name": "k", "params": )") + params_json +
                                R"(, "autotune": null, "heuristics": []})");
}

std::string param(const char* name, const char* kind = "specialized", const char* annotation = "", bool dns = false,
                  bool dnsoa = false) {
  return std::string(R"({"name": ")") + name + R"(", "kind": ")" + kind + R"(", "annotation": ")" + annotation +
         R"(", "do_not_specialize": )" + (dns ? "true" : "false") + R"(, "do_not_specialize_on_alignment": )" +
         (dnsoa ? "true" : "false") + "}";
}

struct Encoded {
  std::unique_ptr<EncodedCall> call = std::make_unique<EncodedCall>();
};

Encoded encode(const KernelSignature& sig, std::initializer_list<ArgSlot> args, int device = -1) {
  Encoded e;
  encode_call(sig, ResolvedOptions{}, args.begin(), args.size(), device, *e.call);
  return e;
}

template <class T>
T cell_as(const Encoded& e, int i) {
  T v;
  std::memcpy(&v, e.call->params[i], sizeof(T));
  return v;
}

}  // namespace

TEST(ArgumentEncoding, IntegersChooseTheirTypeByValueNotByCppWidth) {
  auto sig = signature(("[" + param("a") + "," + param("b") + "," + param("c") + "]").c_str());
  auto e = encode(sig, {to_slot(int64_t{7}), to_slot(int64_t{1} << 40), to_slot(~uint64_t{0})});
  ASSERT_EQ(e.call->num_kernel_params, 3u);
  EXPECT_EQ(cell_as<int32_t>(e, 0), 7);
  EXPECT_EQ(cell_as<int64_t>(e, 1), int64_t{1} << 40);
  EXPECT_EQ(cell_as<uint64_t>(e, 2), ~uint64_t{0});
  auto request = compile_request_json(sig, ResolvedOptions{}, e.call->key, CallArgs{nullptr, 3});
  EXPECT_NE(request.find(R"("signature":["i32","i64","u64"])"), std::string::npos) << request;
}

TEST(ArgumentEncoding, OneFoldsToAConstexprAndLeavesTheKernelParameters) {
  auto sig = signature(("[" + param("a") + "," + param("b", "specialized", "", true) + "]").c_str());
  auto e = encode(sig, {to_slot(1), to_slot(1)});
  EXPECT_EQ(e.call->num_kernel_params, 1u);  // do_not_specialize keeps the second
  EXPECT_EQ(cell_as<int32_t>(e, 0), 1);
}

TEST(ArgumentEncoding, FloatsAreFp32AndAnnotatedHalvesArePacked) {
  auto sig = signature(("[" + param("x") + "," + param("h", "specialized", "fp16") + "," +
                        param("b", "specialized", "bf16") + "," + param("d", "specialized", "fp64") + "]")
                           .c_str());
  auto e = encode(sig, {to_slot(0.1), to_slot(1.5), to_slot(-2.0f), to_slot(3)});
  EXPECT_EQ(cell_as<float>(e, 0), 0.1f);
  EXPECT_EQ(cell_as<uint16_t>(e, 1), 0x3E00);  // 1.5 in IEEE half
  EXPECT_EQ(cell_as<uint16_t>(e, 2), 0xC000);  // -2.0 in bfloat16
  EXPECT_EQ(cell_as<double>(e, 3), 3.0);
}

TEST(ArgumentEncoding, FixedWidthFromCppActsLikeAnAnnotation) {
  auto sig = signature(("[" + param("n") + "]").c_str());
  auto e = encode(sig, {to_slot(fixed<int64_t>(5))});
  EXPECT_EQ(cell_as<int64_t>(e, 0), 5);
  auto request = compile_request_json(sig, ResolvedOptions{}, e.call->key, CallArgs{nullptr, 1});
  EXPECT_NE(request.find(R"("signature":["i64"])"), std::string::npos) << request;
}

TEST(ArgumentEncoding, SameSpecializationSameKeyDifferentOneDifferentKey) {
  auto sig = signature(("[" + param("p") + "," + param("n") + "]").c_str());
  alignas(16) static float buffer[8];
  auto a = encode(sig, {to_slot(device_pointer(buffer, DType::kFloat32)), to_slot(32)});
  auto b = encode(sig, {to_slot(device_pointer(buffer + 4, DType::kFloat32)), to_slot(int64_t{4096})});
  auto c = encode(sig, {to_slot(device_pointer(buffer + 1, DType::kFloat32)), to_slot(32)});
  auto d = encode(sig, {to_slot(device_pointer(buffer, DType::kFloat16)), to_slot(32)});
  EXPECT_TRUE(a.call->key == b.call->key);
  EXPECT_FALSE(a.call->key == c.call->key);
  EXPECT_FALSE(a.call->key == d.call->key);
}

TEST(ArgumentEncoding, ConstexprStringsAndFloatsAreKeyedByValue) {
  auto sig = signature(("[" + param("MODE", "constexpr") + "]").c_str());
  auto a = encode(sig, {to_slot("fast")});
  auto b = encode(sig, {to_slot(std::string("fast"))});
  auto c = encode(sig, {to_slot("exact")});
  auto d = encode(sig, {to_slot(1.0)});
  auto e = encode(sig, {to_slot(1)});
  auto f = encode(sig, {to_slot(true)});
  EXPECT_TRUE(a.call->key == b.call->key);
  EXPECT_FALSE(a.call->key == c.call->key);
  EXPECT_FALSE(d.call->key == e.call->key);  // 1.0 and 1 compile differently
  EXPECT_FALSE(e.call->key == f.call->key);  // so do 1 and True
}

TEST(ArgumentEncoding, DeviceCheckNamesTheArgument) {
  auto sig = signature(("[" + param("x") + "," + param("out") + "]").c_str());
  static float buffer[4];
  DevicePointer host{buffer, DType::kFloat32, kHostDevice};
  DevicePointer other_gpu{buffer, DType::kFloat32, 1};
  try {
    encode(sig, {to_slot(device_pointer(buffer, DType::kFloat32, 0)), to_slot(host)}, 0);
    FAIL();
  } catch (const ValueError& e) {
    EXPECT_STREQ(e.what(), "k: argument 1 'out' expected a CUDA tensor on device 0, got a CPU tensor");
  }
  try {
    encode(sig, {to_slot(other_gpu), to_slot(host)}, 0);
    FAIL();
  } catch (const ValueError& e) {
    EXPECT_STREQ(e.what(), "k: argument 0 'x' expected a CUDA tensor on device 0, got a tensor on CUDA device 1");
  }
  EXPECT_NO_THROW(encode(sig, {to_slot(host), to_slot(host)}, -1));  // warmup does not check
}

TEST(ArgumentEncoding, MalformedDescriptionIsAnError) {
  EXPECT_THROW(parse_kernel_signature("{not json"), Error);
  EXPECT_THROW(parse_kernel_signature(R"({"name": "k"})"), Error);
}

TEST(KernelSignature, ReadsTheDecoratorChainOutermostFirst) {
  auto sig = parse_kernel_signature(R"({"name": "k", "params": [
        {"name": "x", "kind": "specialized", "do_not_specialize": false, "do_not_specialize_on_alignment": false},
        {"name": "n", "kind": "specialized", "do_not_specialize": false, "do_not_specialize_on_alignment": false},
        {"name": "BLOCK", "kind": "constexpr", "do_not_specialize": false, "do_not_specialize_on_alignment": false},
        {"name": "MODE", "kind": "constexpr", "do_not_specialize": false, "do_not_specialize_on_alignment": false,
         "default": {"str": "fast"}},
        {"name": "EVEN", "kind": "constexpr", "do_not_specialize": false, "do_not_specialize_on_alignment": false}],
      "decorators": [
        {"kind": "autotune", "key": ["n", "not_a_parameter"], "reset_to_zero": ["x"], "restore_value": [],
         "prune": false, "perf_model": false, "top_k": 1.0, "hooks": [], "configs": [
          {"kwargs": {"BLOCK": {"int": 128}, "MODE": {"str": "fast"}}, "num_warps": 4, "num_stages": 2, "num_ctas": 1,
           "maxnreg": null},
          {"kwargs": {"BLOCK": {"int": 256}}, "num_warps": 8, "num_stages": 3, "num_ctas": 1, "maxnreg": 128}]},
        {"kind": "heuristics", "values": [
          {"name": "EVEN", "program": [["arg", 1], ["arg", 2], ["mod"], ["int", 0], ["eq"]], "untranslated": null}]}]})");
  ASSERT_EQ(sig.decorators.steps.size(), 2u);
  EXPECT_TRUE(sig.decorators.steps[0].autotune);
  EXPECT_FALSE(sig.decorators.steps[1].autotune);
  ASSERT_TRUE(sig.decorators.autotune.has_value());
  ASSERT_EQ(sig.decorators.autotune->configs.size(), 2u);
  EXPECT_EQ(sig.decorators.autotune->configs[1].options.num_warps, 8);
  EXPECT_EQ(sig.decorators.autotune->configs[1].options.maxnreg, 128);
  ASSERT_EQ(sig.decorators.autotune->configs[0].kwargs.size(), 2u);
  EXPECT_EQ(sig.decorators.autotune->configs[0].kwargs[0].first, 2u);  // BLOCK
  EXPECT_EQ(sig.decorators.autotune->configs[0].kwargs[0].second.value.i, 128);
  EXPECT_EQ(sig.decorators.autotune->configs[0].text, "BLOCK=128, MODE='fast', num_warps=4, num_stages=2");
  EXPECT_EQ(sig.decorators.autotune->key_params,
            std::vector<std::size_t>{1});  // names that are no parameter are skipped
  EXPECT_EQ(sig.decorators.autotune->reset_to_zero, std::vector<std::size_t>{0});
  ASSERT_EQ(sig.decorators.heuristics.size(), 1u);
  EXPECT_EQ(sig.decorators.heuristics[0].param, 4u);
  EXPECT_TRUE(sig.decorators.heuristics[0].program.has_value());
  EXPECT_EQ(sig.user_params, (std::vector<std::size_t>{0, 1}));  // BLOCK, MODE and EVEN come from decorators
  EXPECT_EQ(sig.defaults.num_warps, 0);                          // two configs: no default is implied
}

TEST(KernelSignature, BadDecoratorsAreErrors) {
  const char* params = R"("params": [{"name": "n", "kind": "specialized", "do_not_specialize": false,
                                      "do_not_specialize_on_alignment": false}])";
  EXPECT_THROW(parse_kernel_signature(std::string(R"({"name": "k", )") + params +
                                      R"(, "decorators": [{"kind": "heuristics", "values": [{"name": "NOPE",
                                      "program": [["int", 1]]}]}]})"),
               Error);
  EXPECT_THROW(parse_kernel_signature(std::string(R"({"name": "k", )") + params +
                                      R"(, "decorators": [{"kind": "heuristics", "values": [{"name": "n",
                                      "program": [["add"]]}]}]})"),
               Error);  // a program that underflows its stack
}

TEST(Targets, AmdTargetsParseAndPrintAsHipGfxNames) {
  using triton_jit::Vendor;
  using triton_jit::detail::parse_target;
  using triton_jit::detail::target_name;
  for (const char* text : {"hip:gfx942", "hip:gfx90a", "hip:gfx1100"}) {
    auto t = parse_target(text);
    ASSERT_TRUE(t.has_value()) << text;
    EXPECT_EQ(t->vendor, Vendor::kHip) << text;
    EXPECT_EQ(target_name(*t), text);
  }
  EXPECT_EQ(parse_target("gfx942")->arch, 0x942);
  EXPECT_EQ(triton_jit::detail::arch_name(*parse_target("hip:gfx90a")), "gfx90a");
  EXPECT_EQ(triton_jit::detail::arch_name(*parse_target("cuda:90a")), "90");
  for (const char* bad : {"hip:gfx94", "hip:GFX942", "hip:gfx9422x", "hip:942", "hip:gfxzz9"}) {
    EXPECT_FALSE(parse_target(bad).has_value()) << bad;
  }
  EXPECT_EQ(parse_target("cuda:90")->vendor, Vendor::kCuda);
}
