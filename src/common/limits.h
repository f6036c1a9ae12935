// The runtime's fixed limits, in one place: every layer that sizes a stack array or bounds a
// parser reads them here (the encoder, raw signatures, the variant key, the Python entry).
// Raising one is a recompile of everything, never a change of behaviour elsewhere.
#pragma once

#include <cstddef>

namespace triton_jit::detail {

// Parameters of one kernel (Triton itself has no limit; real kernels stay under 64).
inline constexpr std::size_t kMaxParams = 128;
// Slots of one raw launch (launch_with_raw_args), tuples' elements included; on the caller's stack.
inline constexpr std::size_t kMaxRawSlots = 128;
// Values of one call from Python, tuples' elements included, gathered on the caller's stack.
inline constexpr std::size_t kMaxCallSlots = 256;
// Slots of a decorated call with tuples once its decorators ran: the caller's, and one for each
// parameter they set (TritonJITFunction::launch_nested).
inline constexpr std::size_t kMaxNestedSlots = kMaxParams + kMaxCallSlots;
// Host tensor descriptors of one call, each expanded into its parameter cells at launch.
inline constexpr std::size_t kMaxDescriptors = 8;
// How deep tuple arguments nest; parsers refuse deeper text before they recurse.
inline constexpr int kMaxTupleDepth = 16;
// Devices of one process whose modules a function keeps.
inline constexpr int kMaxDevices = 64;

}  // namespace triton_jit::detail
