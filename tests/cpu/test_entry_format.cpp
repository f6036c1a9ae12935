// Cache entries as bytes: what is written reads back, and every kind of damage is reported as a
// reason, never as an exception (the fuzzer in fuzz/entry_fuzzer.cpp tries the rest).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <random>

#include "cache/entry_format.h"
#include "common/hash.h"

using namespace triton_jit::detail;

namespace {

VariantEntry sample() {
  VariantEntry v;
  v.header.function = "file:/src/k.py::scale";
  v.header.portable = "k.py::scale";
  v.header.kernel = "scale";
  v.header.provenance.sources = {{"/src/k.py", std::string(32, 'a')}};
  v.header.provenance.triton_version = "3.6.0";
  v.header.provenance.triton_dir = "/venv/triton";
  v.header.provenance.triton_fingerprint = std::string(32, 'b');
  v.header.provenance.environment = std::string(32, 'c');
  v.key = {90, 7, 1ull << 63};
  v.target = "cuda:90";
  v.metadata_json = R"({"name":"scale"})";
  v.binary = std::string(
      "\x7f"
      "ELF\0\0binary",
      13);
  return v;
}

// Re-frames an entry around a modified header, with a valid checksum: damage a checksum cannot see.
std::string reframed(const std::string& bytes, const std::function<void(nlohmann::json&)>& edit) {
  auto first = bytes.find('\n');
  auto second = bytes.find('\n', first + 1);
  auto third = bytes.find('\n', second + 1);
  auto header = nlohmann::json::parse(bytes.substr(second + 1, third - second - 1));
  edit(header);
  std::string body = header.dump() + bytes.substr(third);
  return bytes.substr(0, first + 1) + digest(body).hex() + "\n" + body;
}

std::string reason(const std::string& bytes) {
  std::string error;
  EXPECT_FALSE(parse_variant(bytes, error).has_value());
  return error;
}

}  // namespace

TEST(EntryFormat, WhatIsWrittenReadsBack) {
  const VariantEntry v = sample();
  std::string error;
  auto back = parse_variant(serialize_variant(v), error);
  ASSERT_TRUE(back.has_value()) << error;
  EXPECT_EQ(back->header.function, v.header.function);
  EXPECT_EQ(back->header.provenance.sources, v.header.provenance.sources);
  EXPECT_EQ(back->key, v.key);
  EXPECT_EQ(back->metadata_json, v.metadata_json);
  EXPECT_EQ(back->binary, v.binary);
  EXPECT_EQ(entry_kind(serialize_variant(v)), "variant");
}

TEST(EntryFormat, KeptIRTextsReadBackInOrderAfterTheBinary) {
  VariantEntry v = sample();
  EXPECT_EQ(serialize_variant(v).find("\"ir\""), std::string::npos) << "no field when none were kept";
  v.ir = {{"ttir", "module {}"}, {"ttgir", ""}, {"ptx", ".version 8.7\n.entry scale"}};
  std::string error;
  auto back = parse_variant(serialize_variant(v), error);
  ASSERT_TRUE(back.has_value()) << error;
  EXPECT_EQ(back->binary, v.binary);
  EXPECT_EQ(back->ir, v.ir);
  const std::string bytes = serialize_variant(v);
  EXPECT_NE(reason(reframed(bytes, [](auto& h) { h["ir"][0][1] = 10; })).find("payload of"), std::string::npos);
  const std::string bad_stage = "header field 'ir' holds a stage that is not [name of 1 to 32 characters, size]";
  EXPECT_EQ(reason(reframed(bytes, [](auto& h) { h["ir"][0] = {"ttir"}; })), bad_stage);
  EXPECT_EQ(reason(reframed(bytes, [](auto& h) { h["ir"][0][0] = ""; })), bad_stage);
  EXPECT_EQ(reason(reframed(bytes, [](auto& h) { h["ir"][0][1] = -1; })), bad_stage);
  EXPECT_EQ(reason(reframed(bytes, [](auto& h) { h["ir"][1][1] = ~0ull; })), bad_stage) << "sizes summing past 1 GiB";
  EXPECT_EQ(reason(reframed(bytes, [](auto& h) { h["ir"] = "ptx"; })),
            "header field 'ir' is not an array of at most 16 stages");
}

TEST(EntryFormat, ChecksumCoversHeaderAndPayload) {
  const std::string bytes = serialize_variant(sample());
  std::string header_flip = bytes;
  header_flip[bytes.find("scale")] = 'S';
  EXPECT_EQ(reason(header_flip), "checksum mismatch");
  std::string payload_flip = bytes;
  payload_flip.back() ^= 1;
  EXPECT_EQ(reason(payload_flip), "checksum mismatch");
}

TEST(EntryFormat, DamagedHeadersAreReasonsNotExceptions) {
  const std::string bytes = serialize_variant(sample());
  EXPECT_EQ(reason(reframed(bytes,
                            [](auto& h) {
                              h["binary_bytes"] = h["binary_size"];
                              h.erase("binary_size");
                            })),
            "header field 'binary_size' is not a size");
  EXPECT_EQ(reason(reframed(bytes, [](auto& h) { h["metadata_size"] = "16"; })),
            "header field 'metadata_size' is not a size");
  EXPECT_EQ(reason(reframed(bytes, [](auto& h) { h["metadata_size"] = ~0ull; })),
            "header field 'metadata_size' is not a size below 1 GiB");
  EXPECT_NE(reason(reframed(bytes, [](auto& h) { h["binary_size"] = 1; })).find("payload of"), std::string::npos);
  EXPECT_EQ(reason(reframed(bytes,
                            [](auto& h) {
                              h["key"] = {1, -2};
                            })),
            "header field 'key' is not an array of words");
  EXPECT_EQ(reason(reframed(bytes,
                            [](auto& h) {
                              h["sources"] = {{{"path", 3}}};
                            })),
            "header field 'path' is not a string");
  EXPECT_EQ(reason(reframed(bytes, [](auto& h) { h["triton"] = nullptr; })), "header field 'triton' is not an object");
  EXPECT_EQ(reason(""), "empty");
  EXPECT_EQ(reason(bytes.substr(0, 30)), "no checksum");
  EXPECT_EQ(reason(serialize_signature(SignatureEntry{sample().header, "{}"})), "not a variant entry");
}

TEST(EntryFormat, RandomBytesNeverThrow) {
  std::mt19937_64 rng(7);
  const std::string good = serialize_variant(sample());
  for (int i = 0; i < 20000; ++i) {
    std::string bytes = good;
    for (int k = 0, n = static_cast<int>(rng() % 8); k < n; ++k) bytes[rng() % bytes.size()] = static_cast<char>(rng());
    if (rng() % 4 == 0) bytes.resize(rng() % bytes.size());
    std::string error;
    EXPECT_NO_THROW(parse_variant(bytes, error));
    EXPECT_NO_THROW(parse_signature(bytes, error));
  }
}

TEST(EntryFormat, APrunesKeptConfigsReadBackInOrderAndDamageIsAReason) {
  TuningEntry prune;
  prune.header = sample().header;
  prune.key = {3, 1024};
  prune.device = kPruneRecord;
  prune.configs = std::string(32, 'd');
  prune.kept = {4, 0, 2};
  prune.config = 4;
  std::string error;
  auto back = parse_tuning(serialize_tuning(prune), error);
  ASSERT_TRUE(back.has_value()) << error;
  EXPECT_EQ(back->kept, prune.kept);
  EXPECT_EQ(back->config, 4);
  EXPECT_TRUE(back->milliseconds.empty());
  EXPECT_EQ(back->device, kPruneRecord);

  TuningEntry choice = prune;  // a choice without `kept` still needs a time per config
  choice.kept.clear();
  choice.device = "NVIDIA H200";
  EXPECT_FALSE(parse_tuning(serialize_tuning(choice), error).has_value());
  EXPECT_EQ(error, "the choice does not parse");

  TuningEntry disagreeing = prune;  // `config` must be the first kept
  disagreeing.config = 0;
  EXPECT_FALSE(parse_tuning(serialize_tuning(disagreeing), error).has_value());
  EXPECT_EQ(error, "the kept configs do not parse");

  TuningEntry out_of_range = prune;
  out_of_range.kept = {5000};
  out_of_range.config = 5000;
  EXPECT_FALSE(parse_tuning(serialize_tuning(out_of_range), error).has_value());
  EXPECT_EQ(error, "the kept configs do not parse");
}

TEST(EntryFormat, ValuesComputedAtImportReadBackAndAnOlderEntryHasNone) {
  VariantEntry v = sample();
  v.header.provenance.values = R"v([["k.py","FACTOR","constexpr(0x1.8p+1)"]])v";
  std::string error;
  auto back = parse_variant(serialize_variant(v), error);
  ASSERT_TRUE(back) << error;
  EXPECT_EQ(back->header.provenance.values, v.header.provenance.values);

  // Written before values were recorded: read as "", which no function's values equal.
  auto older = parse_variant(reframed(serialize_variant(v), [](nlohmann::json& h) { h.erase("values"); }), error);
  ASSERT_TRUE(older) << error;
  EXPECT_EQ(older->header.provenance.values, "");

  EXPECT_FALSE(parse_variant(reframed(serialize_variant(v), [](nlohmann::json& h) { h["values"] = 3; }), error));
  EXPECT_NE(error.find("'values'"), std::string::npos) << error;
}
