#include "tensors.h"

#include <algorithm>
#include <cstring>
#include <random>

namespace triton_jit::aot {

namespace {

// IEEE half from a float in [-1, 1), rounding toward zero (these are benchmark inputs).
uint16_t to_half(float x) {
  uint32_t bits = 0;
  std::memcpy(&bits, &x, 4);
  const uint32_t sign = (bits >> 16) & 0x8000u;
  const int exponent = static_cast<int>((bits >> 23) & 0xff) - 127 + 15;
  if (exponent <= 0) return static_cast<uint16_t>(sign);
  return static_cast<uint16_t>(sign | (static_cast<uint32_t>(exponent) << 10) | ((bits >> 13) & 0x3ffu));
}

std::size_t element_size(DType dtype) {
  switch (dtype) {
    case DType::kFloat64:
    case DType::kInt64:
    case DType::kUInt64:
      return 8;
    case DType::kFloat32:
    case DType::kInt32:
    case DType::kUInt32:
      return 4;
    case DType::kFloat16:
    case DType::kBFloat16:
    case DType::kInt16:
    case DType::kUInt16:
      return 2;
    default:
      return 1;
  }
}

// Values in [-1, 1) for floats (without NaN or infinity for the 8-bit formats: the top exponent bit
// stays clear), [0, 16) for integers, 0 or 1 for bool.
std::vector<unsigned char> random_values(DType dtype, std::size_t count, std::mt19937_64& rng) {
  const std::size_t size = element_size(dtype);
  std::vector<unsigned char> bytes(count * size);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  for (std::size_t i = 0; i < count; ++i) {
    unsigned char* at = bytes.data() + i * size;
    switch (dtype) {
      case DType::kFloat64: {
        const double v = uniform(rng);
        std::memcpy(at, &v, 8);
        break;
      }
      case DType::kFloat32: {
        const float v = uniform(rng);
        std::memcpy(at, &v, 4);
        break;
      }
      case DType::kFloat16: {
        const uint16_t v = to_half(uniform(rng));
        std::memcpy(at, &v, 2);
        break;
      }
      case DType::kBFloat16: {
        const float f = uniform(rng);
        uint32_t b = 0;
        std::memcpy(&b, &f, 4);
        const uint16_t v = static_cast<uint16_t>(b >> 16);
        std::memcpy(at, &v, 2);
        break;
      }
      case DType::kFloat8E4M3FN:
      case DType::kFloat8E5M2:
      case DType::kFloat8E4M3FNUZ:
      case DType::kFloat8E5M2FNUZ:
      case DType::kFloat8E4B15: {
        unsigned char v = static_cast<unsigned char>(rng()) & 0xbf;
        if (v == 0x80) v = 0;  // the FNUZ formats' NaN
        *at = v;
        break;
      }
      case DType::kBool:
        *at = static_cast<unsigned char>(rng() & 1);
        break;
      default: {
        const uint64_t v = rng() & 15;
        std::memcpy(at, &v, size);  // little-endian: the low bytes
        break;
      }
    }
  }
  return bytes;
}

}  // namespace

std::vector<DeviceBuffer> make_tensors(const std::vector<Argument>& arguments) {
  std::vector<DeviceBuffer> tensors;
  std::mt19937_64 rng(20261129);                        // the same inputs on every run
  constexpr std::size_t kChunk = std::size_t{1} << 22;  // elements per upload: bounded host memory
  for (const Argument* leaf : leaves(arguments)) {
    const Argument& a = *leaf;
    if (a.kind != Argument::Kind::kTensor) continue;
    const std::size_t size = element_size(a.dtype);
    DeviceBuffer buffer(a.numel * size);  // zero-filled
    if (a.random) {
      for (uint64_t done = 0; done < a.numel; done += kChunk) {
        const std::size_t count = static_cast<std::size_t>(std::min<uint64_t>(kChunk, a.numel - done));
        const std::vector<unsigned char> values = random_values(a.dtype, count, rng);
        buffer.upload(values.data(), values.size(), done * size);
      }
    }
    tensors.push_back(std::move(buffer));
  }
  return tensors;
}

std::vector<DevicePointer> pointers(const std::vector<Argument>& arguments, const std::vector<DeviceBuffer>& tensors) {
  std::vector<DevicePointer> out;
  std::size_t next = 0;
  for (const Argument* a : leaves(arguments)) {
    if (a->kind == Argument::Kind::kTensor) out.push_back(tensors.at(next++).as(a->dtype));
  }
  return out;
}

}  // namespace triton_jit::aot
