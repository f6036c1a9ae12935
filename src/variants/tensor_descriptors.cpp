#include "variants/tensor_descriptors.h"

#include <fmt/format.h>

#include <cstring>

#include "backend/active_backend.h"
#include "encoding/variant_description.h"
#include "triton_jit/errors.h"

// Note [Tensor descriptor parameters]
// Triton types a TensorDescriptor argument "tensordesc<fp16[64, 32]>" (its dtype and block shape,
// nothing of its address or sizes), and its launcher expands it by how the kernel was compiled:
// where the compiler lowered it to TMA (sm_90 and newer), the metadata's tensordesc_meta entry
// gives the swizzle, element type and block, and the kernel takes a 128-byte CUtensorMap
// (cuTensorMapEncodeTiled: dimensions innermost first, strides in bytes, L2 promotion 128B,
// out-of-bounds fill NaN for padding="nan") then the shape as i32 and the strides as i64;
// otherwise it takes the base pointer, the shape and strides as i64, the NaN flag as i1, then the
// shape as i32 and the strides as i64 again (Triton's own decomposition, passed twice). The
// encoder keys the variant by the type and records where each descriptor goes; once the variant
// is found, the parameters are laid out here, on the caller's stack. The device-side element type
// enum differs from the host's in three values (TMA_DTYPE_DEVICE_TO_HOST in Triton's driver).

namespace triton_jit::detail {
namespace {

int host_element_type(int device_type) noexcept {
  switch (device_type) {
    case 8:
      return 10;
    case 9:
      return 8;
    case 10:
      return 9;
    default:
      return device_type;
  }
}

constexpr int kTensorMapTf32 = 11;  // CU_TENSOR_MAP_DATA_TYPE_TFLOAT32, as Triton's TMA_TF32

[[noreturn]] __attribute__((noinline, cold)) void throw_unsupported_option(const impl::KernelMetadata& m,
                                                                           const TensorDescriptor& d) {
  throw ValueError(
      fmt::format("{}: a tensor descriptor with {} needs a Triton whose launcher passes it (3.5 and newer "
                  "for padding, 3.8 for round_f32_to_tf32); this variant was compiled by Triton {}",
                  m.name, d.nan_padding && m.descriptor_flags < 1 ? "padding 'nan'" : "round_f32_to_tf32",
                  m.triton_version.empty() ? "(unknown)" : m.triton_version));
}

}  // namespace

int descriptor_param_count(const KernelSignature& sig, const VariantKey& key, const impl::KernelMetadata& m) {
  int count = 0;
  std::size_t index = 0;
  for_each_param(sig, key, [&](std::size_t i, const DecodedParam& d) {
    if (d.token != kTensorDescToken) return;
    const int rank = descriptor_rank(d.value);
    const impl::TensorMapLayout* layout = index < m.tensor_maps.size() ? &m.tensor_maps[index] : nullptr;
    if (layout != nullptr && layout->tma && layout->rank != rank) {
      throw CompileError(fmt::format("{}: the compiled kernel reads argument {} '{}' ({}) through a rank-{} tensor map",
                                     sig.name, i, sig.params[i].name, descriptor_type_name(d.value), layout->rank));
    }
    count += layout != nullptr && layout->tma ? 1 + 2 * rank : 1 + 4 * rank + m.descriptor_flags;
    ++index;
  });
  if (!m.tensor_maps.empty() && m.tensor_maps.size() != index) {
    throw CompileError(fmt::format("{}: the compiled kernel describes {} tensor descriptors, the variant has {}",
                                   sig.name, m.tensor_maps.size(), index));
  }
  return count;
}

void expand_descriptors(const impl::KernelMetadata& m, EncodedCall& call) {
  void* given[kMaxParams + 2];
  const uint32_t num_given = call.num_kernel_params;
  std::memcpy(given, call.params, num_given * sizeof(void*));
  uint64_t* maps = call.tensor_maps;
  while (reinterpret_cast<uintptr_t>(maps) % 64 != 0) ++maps;  // CUtensorMap is 64-byte aligned
  uint32_t out = 0;
  uint32_t next = 0;
  uint64_t* cell = call.descriptor_cells;
  auto put = [&](uint64_t value) {
    *cell = value;
    call.params[out++] = cell++;
  };
  for (uint32_t k = 0; k < call.num_descriptors; ++k) {
    const EncodedCall::Descriptor& desc = call.descriptors[k];
    while (next < desc.at) call.params[out++] = given[next++];
    if (out + kDescriptorCells + (num_given - next) > kMaxParams) [[unlikely]] {
      throw ValueError(
          fmt::format("{}: its tensor descriptors expand to more than {} kernel parameters", m.name, kMaxParams));
    }
    const TensorDescriptor& d = *desc.value;
    const impl::TensorMapLayout* layout = k < m.tensor_maps.size() ? &m.tensor_maps[k] : nullptr;
    if ((d.nan_padding && m.descriptor_flags < 1) || (d.round_f32_to_tf32 && m.descriptor_flags < 2)) [[unlikely]] {
      throw_unsupported_option(m, d);
    }
    if (layout != nullptr && layout->tma) {
      impl::TensorMapRequest r;
      r.base = d.base;
      r.rank = d.rank;
      r.elem_type = d.round_f32_to_tf32 ? kTensorMapTf32 : host_element_type(layout->elem_type);
      r.swizzle = layout->swizzle;
      r.nan_fill = d.nan_padding;
      std::array<int64_t, TensorDescriptor::kMaxRank> shape = d.shape;
      if (layout->fp4_padded) shape[static_cast<std::size_t>(d.rank - 1)] *= 2;
      for (int i = 0; i < d.rank; ++i) {
        const auto from_inner = static_cast<std::size_t>(d.rank - 1 - i);
        r.dims[static_cast<std::size_t>(i)] = static_cast<uint64_t>(shape[from_inner]);
        r.box[static_cast<std::size_t>(i)] = static_cast<uint32_t>(layout->block[from_inner]);
        if (i + 1 < d.rank) {
          r.byte_strides[static_cast<std::size_t>(i)] =
              static_cast<uint64_t>(d.strides[from_inner - 1]) * static_cast<uint64_t>(layout->elem_size);
        }
      }
      uint64_t* map = maps + 16 * k;
      ActiveBackend::encode_tensor_map(map, r);
      call.params[out++] = map;
      for (int i = 0; i < d.rank; ++i)
        put(static_cast<uint32_t>(static_cast<int32_t>(shape[static_cast<std::size_t>(i)])));
      for (int i = 0; i < d.rank; ++i) put(static_cast<uint64_t>(d.strides[static_cast<std::size_t>(i)]));
    } else {
      put(reinterpret_cast<uint64_t>(d.base));
      for (int i = 0; i < d.rank; ++i) put(static_cast<uint64_t>(d.shape[static_cast<std::size_t>(i)]));
      for (int i = 0; i < d.rank; ++i) put(static_cast<uint64_t>(d.strides[static_cast<std::size_t>(i)]));
      if (m.descriptor_flags >= 1) put(d.nan_padding ? 1 : 0);
      if (m.descriptor_flags >= 2) put(d.round_f32_to_tf32 ? 1 : 0);
      for (int i = 0; i < d.rank; ++i)
        put(static_cast<uint32_t>(static_cast<int32_t>(d.shape[static_cast<std::size_t>(i)])));
      for (int i = 0; i < d.rank; ++i) put(static_cast<uint64_t>(d.strides[static_cast<std::size_t>(i)]));
    }
  }
  while (next < num_given) call.params[out++] = given[next++];
  call.num_kernel_params = out;
}

}  // namespace triton_jit::detail
