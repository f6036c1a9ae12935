// triton_jit_llama's model shapes from a Hugging Face config.json (demo/model_config.h): the
// families it runs, the defaults their configs leave out, and an error naming the file and the
// field for everything else.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "model_config.h"

namespace {
using triton_jit::demo::model_from_config;

// The error model_from_config throws for `json`, or "" when it accepts it.
std::string error_of(const std::string& json) {
  try {
    model_from_config(json, "config.json");
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST(ModelConfig, ReadsLlamaShapesAndTheKnownModelsAreTheirConfigs) {
  const auto m = model_from_config(R"({"model_type": "llama", "hidden_size": 4096, "intermediate_size": 14336,
      "num_attention_heads": 32, "num_key_value_heads": 8, "rms_norm_eps": 1e-05, "rope_theta": 500000.0,
      "vocab_size": 128256, "attention_bias": false, "rope_scaling": null})",
                                   "config.json");
  const auto known = triton_jit::demo::known_model("llama-3-8b");
  EXPECT_EQ(m.hidden, known.hidden);
  EXPECT_EQ(m.heads, known.heads);
  EXPECT_EQ(m.kv_heads, known.kv_heads);
  EXPECT_EQ(m.head_dim, 128);  // hidden / heads when the config has none
  EXPECT_EQ(m.mlp, known.mlp);
  EXPECT_EQ(m.vocab, known.vocab);
  EXPECT_EQ(m.rope_theta, known.rope_theta);
  EXPECT_EQ(m.rms_norm_eps, known.rms_norm_eps);
  EXPECT_FALSE(m.qkv_bias);
  EXPECT_FALSE(m.qk_norm);
  EXPECT_FALSE(m.tied_embeddings);
  EXPECT_EQ(m.rope_scaling.type, "");
  EXPECT_EQ(m.name, "llama (config.json)");
}

// Llama 3.1's rope_scaling, against Hugging Face's _compute_llama3_parameters run in float64:
// short wavelengths keep their frequency, long ones are divided by the factor, indices 29-34
// (wavelengths between 2048 and 8192 positions) are blended.
TEST(ModelConfig, Llama3RopeScalingGivesHuggingFacesFrequencies) {
  const auto m = model_from_config(R"({"model_type": "llama", "hidden_size": 4096, "intermediate_size": 14336,
      "num_attention_heads": 32, "num_key_value_heads": 8, "rope_theta": 500000.0, "vocab_size": 128256,
      "rope_scaling": {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                       "original_max_position_embeddings": 8192, "rope_type": "llama3"}})",
                                   "llama-3.1.json");
  ASSERT_EQ(m.rope_scaling.type, "llama3");
  EXPECT_FALSE(m.rope_scaling_left_out());
  const std::vector<double> f = triton_jit::demo::rope_inverse_frequencies(m);
  ASSERT_EQ(f.size(), 64u);
  const std::pair<int, double> expected[] = {{0, 1.0},
                                             {20, 0.016560440080994446},
                                             {29, 0.002166570763503359},
                                             {31, 0.0008567514129196321},
                                             {34, 0.00017850781276799638},
                                             {40, 3.428102195952591e-05},
                                             {63, 3.068925988914511e-07}};
  for (const auto& [i, value] : expected) EXPECT_NEAR(f[i] / value, 1.0, 1e-12) << "index " << i;
  auto unscaled = m;
  unscaled.rope_scaling = {};
  EXPECT_NEAR(triton_jit::demo::rope_inverse_frequencies(unscaled)[40], 0.0002742481756762073, 1e-18);
  unscaled.rope_scaling.type = "linear";
  unscaled.rope_scaling.factor = 4;
  EXPECT_NEAR(triton_jit::demo::rope_inverse_frequencies(unscaled)[40], 0.0002742481756762073 / 4, 1e-18);
}

TEST(ModelConfig, Qwen3NormsEachHeadAndTiedEmbeddingsAreRead) {
  const auto m = model_from_config(R"({"model_type": "qwen3", "_name_or_path": "Qwen/Qwen3-4B",
      "hidden_size": 2560, "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128,
      "intermediate_size": 9728, "vocab_size": 151936, "attention_bias": false, "rms_norm_eps": 1e-06,
      "rope_theta": 1000000, "rope_scaling": null, "tie_word_embeddings": true})",
                                   "qwen3.json");
  EXPECT_TRUE(m.qk_norm);
  EXPECT_FALSE(m.qkv_bias);
  EXPECT_TRUE(m.tied_embeddings);
  EXPECT_EQ(m.head_dim, 128);  // not hidden / heads (80): Qwen3 says it
  EXPECT_EQ(m.rope_theta, 1e6);
  // a kind of scaling the decoder does not compute is named and left out on both sides
  const auto yarn = model_from_config(R"({"model_type": "qwen2", "hidden_size": 3584, "num_attention_heads": 28,
      "num_key_value_heads": 4, "intermediate_size": 18944, "vocab_size": 152064,
      "rope_scaling": {"type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768}})",
                                      "qwen2.5-yarn.json");
  EXPECT_EQ(yarn.rope_scaling.type, "yarn");
  EXPECT_TRUE(yarn.rope_scaling_left_out());
}

// The configs the GPU check runs the decoder on (scripts/gpu_check.sh configs) stay readable.
TEST(ModelConfig, TheShippedConfigsAreRead) {
  int read = 0;
  for (const auto& entry : std::filesystem::directory_iterator(TRITON_JIT_DEMO_CONFIGS)) {
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    const auto m = model_from_config(text.str(), entry.path().string());
    EXPECT_FALSE(m.rope_scaling_left_out()) << entry.path();
    ++read;
  }
  EXPECT_GE(read, 4);
}

TEST(ModelConfig, Qwen2HasQkvBiasesAndDefaultsFillWhatTheConfigLeavesOut) {
  const auto m = model_from_config(R"({"model_type": "qwen2", "_name_or_path": "Qwen/Qwen2.5-0.5B",
      "hidden_size": 896, "num_attention_heads": 14, "num_key_value_heads": 2, "intermediate_size": 4864,
      "vocab_size": 151936, "head_dim": null})",
                                   "q.json");
  EXPECT_TRUE(m.qkv_bias);
  EXPECT_EQ(m.head_dim, 64);
  EXPECT_EQ(m.rope_theta, 10000.0);
  EXPECT_EQ(m.name, "Qwen/Qwen2.5-0.5B");
  EXPECT_EQ(triton_jit::demo::known_model("qwen2.5-7b").qkv_bias, true);
  const auto mha = model_from_config(R"({"model_type": "mistral", "hidden_size": 2048, "num_attention_heads": 16,
      "intermediate_size": 5632, "vocab_size": 32000, "attention_bias": true})",
                                     "m.json");
  EXPECT_EQ(mha.kv_heads, 16);  // no num_key_value_heads: multi-head attention
  EXPECT_TRUE(mha.qkv_bias);
}

TEST(ModelConfig, EveryRefusalNamesTheFileAndWhatIsWrong) {
  const std::string base = R"("hidden_size": 4096, "num_attention_heads": 32, "intermediate_size": 14336)";
  EXPECT_EQ(error_of("{\"model_type\": \"llama\", " + base + "}"), "model config config.json: 'vocab_size' is missing");
  EXPECT_EQ(
      error_of("{\"model_type\": \"gpt2\", " + base + "}"),
      "model config config.json: model_type 'gpt2' is not a decoder this demo runs (llama, mistral, qwen2, qwen3)");
  EXPECT_EQ(error_of(R"({"model_type": "llama", "hidden_size": "4096"})"),
            "model config config.json: 'hidden_size' must be a positive integer, got \"4096\"");
  // One field wrong in an otherwise good Llama config, and what the refusal says of it.
  const std::pair<const char*, const char*> one_field_wrong[] = {
      {R"("num_key_value_heads": 6)", "num_attention_heads (32) must be a multiple of num_key_value_heads (6)"},
      {R"("head_dim": 96)", "head_dim 96 is not one the attention kernels take (64, 128, 256)"},
      {R"("rope_theta": -1)", "'rope_theta' must be a positive number, got -1"},
      {R"("attention_bias": 1)", "'attention_bias' must be true or false, got 1"},
      {R"("tie_word_embeddings": "yes")", "'tie_word_embeddings' must be true or false, got \"yes\""},
      {R"("rope_scaling": 8)", "'rope_scaling' must be an object or null, got 8"},
      {R"("rope_scaling": {"factor": 8})", "'rope_scaling' has no 'rope_type' string"},
      {R"("rope_scaling": {"rope_type": "llama3", "factor": 8, "low_freq_factor": 1})",
       "'rope_scaling' of type llama3 needs 'high_freq_factor'"},
      {R"("rope_scaling": {"rope_type": "linear", "factor": 0})",
       "'rope_scaling.factor' must be a positive number, got 0"},
  };
  for (const auto& [field, message] : one_field_wrong) {
    EXPECT_EQ(error_of("{\"model_type\": \"llama\", \"vocab_size\": 10, " + base + ", " + field + "}"),
              std::string("model config config.json: ") + message);
  }
  EXPECT_EQ(error_of("[1, 2]"), "model config config.json: expected a JSON object");
  EXPECT_EQ(error_of("{\"model_type\": 3}"), "model config config.json: 'model_type' is missing or not a string");
  EXPECT_NE(error_of("{\"model_type\": ").find("model config config.json: not JSON: "), std::string::npos);
  EXPECT_THROW(triton_jit::demo::known_model("llama-2"), std::invalid_argument);
}
