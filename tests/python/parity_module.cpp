// triton_jit_parity: a Python module that runs triton_jit's argument encoding on C++-typed
// values, so that the parity tests can compare it with Triton's own specializer.
#include <ATen/ops/from_blob.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <chrono>
#include <functional>
#include <thread>

#include <triton_jit/torch.h>

#include <cstring>
#include <deque>

#include "common/target.h"
#include "compiler/compile_request.h"
#include "compiler/compiled_kernel.h"
#include "encoding/argument_encoder.h"
#include "encoding/heuristic_program.h"
#include "encoding/kernel_signature.h"
#include "encoding/type_token.h"
#include "encoding/variant_description.h"
#include "variants/tensor_descriptors.h"

#include <nlohmann/json.hpp>

namespace py = pybind11;
using triton_jit::ArgSlot;
using triton_jit::TensorDescriptor;
using triton_jit::to_slot;

namespace {

c10::ScalarType scalar_type(const std::string& name) {
  static const std::pair<const char*, c10::ScalarType> kTypes[] = {{"bool", c10::kBool},
                                                                   {"int8", c10::kChar},
                                                                   {"int16", c10::kShort},
                                                                   {"int32", c10::kInt},
                                                                   {"int64", c10::kLong},
                                                                   {"uint8", c10::kByte},
                                                                   {"uint16", c10::kUInt16},
                                                                   {"uint32", c10::kUInt32},
                                                                   {"uint64", c10::kUInt64},
                                                                   {"float16", c10::kHalf},
                                                                   {"bfloat16", c10::kBFloat16},
                                                                   {"float32", c10::kFloat},
                                                                   {"float64", c10::kDouble},
                                                                   {"complex64", c10::kComplexFloat},
                                                                   {"float8_e4m3fn", c10::kFloat8_e4m3fn},
                                                                   {"float8_e5m2", c10::kFloat8_e5m2},
                                                                   {"float8_e4m3fnuz", c10::kFloat8_e4m3fnuz},
                                                                   {"float8_e5m2fnuz", c10::kFloat8_e5m2fnuz}};
  for (const auto& [n, t] : kTypes) {
    if (name == n) return t;
  }
  throw std::invalid_argument("unknown dtype " + name);
}

// Descriptors of the current call (slots point at them); cleared by each encode.
std::deque<TensorDescriptor>& descriptors() {
  static std::deque<TensorDescriptor> kept;
  return kept;
}

// JIT functions passed by the current call (slots point at them); never cleared: calls keep
// pointers to them only while they run, and a test makes a few.
std::deque<triton_jit::JitFunctionArg>& jit_functions() {
  static std::deque<triton_jit::JitFunctionArg> kept;
  return kept;
}

// Builds the slot the C++ type `ctype` would give for `value`, through the public ArgTraits.
ArgSlot make_slot(const std::string& ctype, const py::handle& value, std::vector<at::Tensor>& keep,
                  std::vector<std::string>& strings) {
  if (ctype == "bool") return to_slot(value.cast<bool>());
  if (ctype == "int8") return to_slot(value.cast<int8_t>());
  if (ctype == "int16") return to_slot(value.cast<int16_t>());
  if (ctype == "int32") return to_slot(value.cast<int32_t>());
  if (ctype == "int64") return to_slot(value.cast<int64_t>());
  if (ctype == "uint8") return to_slot(value.cast<uint8_t>());
  if (ctype == "uint16") return to_slot(value.cast<uint16_t>());
  if (ctype == "uint32") return to_slot(value.cast<uint32_t>());
  if (ctype == "uint64") return to_slot(value.cast<uint64_t>());
  if (ctype == "long long") return to_slot(value.cast<long long>());
  if (ctype == "size_t") return to_slot(value.cast<std::size_t>());
  if (ctype == "float") return to_slot(value.cast<float>());
  if (ctype == "double") return to_slot(value.cast<double>());
  if (ctype == "nullopt") return to_slot(std::nullopt);
  if (ctype == "nullptr") return to_slot(nullptr);
  if (ctype == "optional_int64") {
    return to_slot(value.is_none() ? std::optional<int64_t>() : std::optional<int64_t>(value.cast<int64_t>()));
  }
  if (ctype == "optional_double") {
    return to_slot(value.is_none() ? std::optional<double>() : std::optional<double>(value.cast<double>()));
  }
  if (ctype == "string") {
    strings.push_back(value.cast<std::string>());
    return to_slot(strings.back());
  }
  if (ctype == "scalar_int") return to_slot(c10::Scalar(value.cast<int64_t>()));
  if (ctype == "scalar_float") return to_slot(c10::Scalar(value.cast<double>()));
  if (ctype == "scalar_bool") return to_slot(c10::Scalar(value.cast<bool>()));
  if (ctype == "tensordesc") {
    // (dtype, address, shape, strides, block_shape, nan_padding[, round_f32_to_tf32]), as
    // TensorDescriptor holds them.
    auto t = value.cast<py::tuple>();
    TensorDescriptor d;
    d.base = reinterpret_cast<const void*>(t[1].cast<uint64_t>());
    d.dtype = triton_jit::torch_adapter::to_dtype(scalar_type(t[0].cast<std::string>()));
    auto shape = t[2].cast<std::vector<int64_t>>(), strides = t[3].cast<std::vector<int64_t>>();
    auto block = t[4].cast<std::vector<int32_t>>();
    d.rank = static_cast<int>(shape.size());
    for (std::size_t k = 0; k < shape.size() && k < 5; ++k) {
      d.shape[k] = shape[k];
      d.strides[k] = strides[k];
      d.block_shape[k] = block[k];
    }
    d.nan_padding = t[5].cast<bool>();
    d.round_f32_to_tf32 = t.size() > 6 && t[6].cast<bool>();
    descriptors().push_back(d);
    return to_slot(descriptors().back());
  }
  if (ctype == "jit_function") {
    auto t = value.cast<py::tuple>();
    jit_functions().emplace_back(t[0].cast<std::string>(), t[1].cast<std::string>());
    return to_slot(jit_functions().back());
  }
  if (ctype == "cuda_tensor") {
    // (dtype, address, device): a view of a CUDA tensor's memory, for calls that launch or load.
    auto t = value.cast<py::tuple>();
    keep.push_back(at::from_blob(reinterpret_cast<void*>(t[1].cast<uint64_t>()), {1},
                                 at::TensorOptions()
                                     .dtype(scalar_type(t[0].cast<std::string>()))
                                     .device(c10::Device(c10::kCUDA, t[2].cast<c10::DeviceIndex>()))));
    return to_slot(keep.back());
  }
  if (ctype == "tensor" || ctype == "optional_tensor") {
    if (value.is_none()) return to_slot(std::optional<at::Tensor>());
    auto pair = value.cast<std::pair<std::string, uint64_t>>();
    // A view of the same address as the Python tensor: only its pointer and dtype are read.
    keep.push_back(
        at::from_blob(reinterpret_cast<void*>(pair.second), {1}, at::TensorOptions().dtype(scalar_type(pair.first))));
    if (ctype == "optional_tensor") return to_slot(std::optional<at::Tensor>(keep.back()));
    return to_slot(keep.back());
  }
  throw std::invalid_argument("unknown C++ type " + ctype);
}

}  // namespace

// A Python host thread that holds the GIL and waits for a compile another thread leads must
// release the GIL while it waits, or the leader (which needs the GIL to run Triton) never
// finishes. This sets that up: a C++ thread starts compiling a variant, and the calling thread,
// holding the GIL, asks for the same variant while the compile runs.
std::string concurrent_first_call(const std::string& kernel, const std::string& function, int block) {
  auto& f = triton_jit::TritonJITFunction::get_instance(kernel, function);
  alignas(16) static float buffer[64];
  auto p = triton_jit::device_pointer(buffer, triton_jit::DType::kFloat32);
  triton_jit::LaunchConfig config;
  std::thread leader;
  {
    py::gil_scoped_release release;
    leader = std::thread([&] { f.warmup(config, p, p, p, 4096, block); });
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // the leader is compiling now
  }
  // The GIL is held again (Python hands it over between the leader's bytecodes).
  std::string signature = f.warmup(config, p, p, p, 4096, block).signature;
  {
    py::gil_scoped_release release;
    leader.join();
  }
  return signature + " compiles=" + std::to_string(f.stats().compiles);
}

// Evaluates a heuristic program (triton_jit_heuristics.translate) on Python values: ints, floats,
// bools, None, str, or ("tensor", "fp16"). Errors become ValueError("triton_jit: ...").
py::object evaluate_heuristic(const std::string& program_json, const py::list& args) {
  std::vector<std::string> strings;
  strings.reserve(args.size());
  std::vector<ArgSlot> slots;
  for (auto item : args) {
    ArgSlot slot;
    if (item.is_none()) {
    } else if (py::isinstance<py::bool_>(item)) {
      slot = to_slot(item.cast<bool>());
    } else if (py::isinstance<py::int_>(item)) {
      const py::int_ value = item.cast<py::int_>();
      if (value >= py::int_(0) && value > py::int_(INT64_MAX)) {
        slot = to_slot(item.cast<uint64_t>());
      } else {
        slot = to_slot(item.cast<int64_t>());
      }
    } else if (py::isinstance<py::float_>(item)) {
      slot = to_slot(item.cast<double>());
    } else if (py::isinstance<py::str>(item)) {
      strings.push_back(item.cast<std::string>());
      slot = to_slot(std::string_view(strings.back()));
    } else {
      auto pair = item.cast<py::tuple>();
      slot.kind = triton_jit::ArgKind::kPointer;
      slot.dtype = triton_jit::detail::token_dtype(triton_jit::detail::parse_token(pair[1].cast<std::string>()));
      slot.value.p = reinterpret_cast<const void*>(4096);
    }
    slots.push_back(slot);
  }
  try {
    auto program = triton_jit::detail::HeuristicProgram::parse(nlohmann::json::parse(program_json), slots.size());
    const ArgSlot r = program.evaluate(slots.data(), "k", "h");
    switch (r.kind) {
      case triton_jit::ArgKind::kInt:
        return py::int_(r.value.i);
      case triton_jit::ArgKind::kBool:
        return py::bool_(r.value.i != 0);
      case triton_jit::ArgKind::kFloat:
        return py::float_(r.value.f);
      case triton_jit::ArgKind::kString:
        return py::str(std::string(r.value.s, r.size));
      default:
        return py::none();
    }
  } catch (const triton_jit::Error& e) {
    throw py::value_error(std::string("triton_jit: ") + e.what());
  }
}

// The slots of a call's Python-described arguments, and what they point into. ("tuple", [items])
// is a tuple argument: its header slot, then its elements' slots.
struct CallSlots {
  std::vector<at::Tensor> keep;
  std::vector<std::string> strings;
  std::vector<ArgSlot> slots;
  bool nested = false;

  explicit CallSlots(const py::list& args) {
    descriptors().clear();
    keep.reserve(4096);  // slots point into these: no reallocation
    strings.reserve(4096);
    for (auto item : args) add(item);
  }
  void add(const py::handle& item) {
    auto pair = item.cast<py::tuple>();
    const std::string ctype = pair[0].cast<std::string>();
    if (ctype != "tuple") {
      slots.push_back(make_slot(ctype, pair[1], keep, strings));
      return;
    }
    auto elements = pair[1].cast<py::list>();
    ArgSlot header;
    header.kind = triton_jit::ArgKind::kTuple;
    header.size = static_cast<uint32_t>(elements.size());
    slots.push_back(header);
    nested = true;
    for (auto e : elements) add(e);
  }
};

// What warmup() (load=false) or prepare() (load=true) reports of a call's variant, as a dict of
// VariantInfo's fields (ir: stage -> text), with the function's compile count.
py::dict variant_report(const std::string& path, const std::string& name, const py::list& args, int num_warps,
                        int num_stages, bool load) {
  auto& f = triton_jit::TritonJITFunction::get_instance(path, name);
  CallSlots call_slots(args);
  triton_jit::LaunchConfig config;
  config.num_warps = num_warps;
  config.num_stages = num_stages;
  const triton_jit::VariantInfo v = load ? f.prepare(config, call_slots.slots.data(), call_slots.slots.size())
                                         : f.warmup(config, call_slots.slots.data(), call_slots.slots.size());
  py::dict ir;
  for (const auto& t : v.ir) ir[py::str(std::string(t.stage))] = py::str(std::string(t.text));
  py::dict out;
  out["kernel_name"] = v.kernel_name;
  out["signature"] = v.signature;
  out["num_warps"] = v.num_warps;
  out["shared"] = v.shared_memory;
  out["n_regs"] = v.n_regs;
  out["n_spills"] = v.n_spills;
  out["n_max_threads"] = v.max_threads_per_block;
  out["cubin"] = py::bytes(v.cubin.data(), v.cubin.size());
  out["ir"] = ir;
  out["compiles"] = f.stats().compiles;
  return out;
}

// A call's grid from a Python function of the named arguments (num_warps and the decorators'
// values included), as Triton's `grid = lambda META: ...`.
struct PythonGrid {
  py::object fn;
  std::vector<std::string> names;
};

triton_jit::Grid python_grid(const triton_jit::LaunchMeta& meta, void* data) {
  const auto* g = static_cast<const PythonGrid*>(data);
  py::gil_scoped_acquire gil;
  py::dict named;
  for (const std::string& name : g->names) named[py::str(name)] = meta[name];
  const auto grid = g->fn(named).cast<std::vector<unsigned>>();
  return {grid.empty() ? 1u : grid[0], grid.size() > 1 ? grid[1] : 1u, grid.size() > 2 ? grid[2] : 1u};
}

// A launch as a C++ caller makes it, on `stream` (torch's cuda_stream): the grid is (x, y, z) or
// (fn, names) with fn a Python function of those arguments by name.
void launch(const std::string& path, const std::string& name, const py::list& args, const py::tuple& grid,
            int num_warps, int num_stages, uint64_t stream) {
  auto& f = triton_jit::TritonJITFunction::get_instance(path, name);
  CallSlots call_slots(args);
  triton_jit::LaunchConfig config;
  config.num_warps = num_warps;
  config.num_stages = num_stages;
  PythonGrid python;
  if (py::isinstance<py::function>(grid[0])) {
    python.fn = grid[0];
    python.names = grid[1].cast<std::vector<std::string>>();
    config.grid_fn = &python_grid;
    config.grid_data = &python;
  } else {
    for (std::size_t i = 0; i < grid.size() && i < 3; ++i) config.grid[i] = grid[i].cast<unsigned>();
  }
  config.stream = reinterpret_cast<triton_jit::Stream>(stream);
  if (call_slots.nested) {
    f.launch_nested(config, call_slots.slots.data(), call_slots.slots.size());
  } else {
    f.launch(config, call_slots.slots.data(), call_slots.slots.size());
  }
}

PYBIND11_MODULE(triton_jit_parity, m) {
  m.def("variant_report", &variant_report);
  m.def("launch", &launch);
  m.def("set_keep_ir", &triton_jit::set_keep_ir);
  m.def("concurrent_first_call", &concurrent_first_call);
  m.def("evaluate_heuristic", &evaluate_heuristic);
  m.def("encode", [](const std::string& describe_json, const py::list& args) {
    auto sig = triton_jit::detail::parse_kernel_signature(describe_json);
    CallSlots call_slots(args);
    std::vector<ArgSlot>& slots = call_slots.slots;
    const bool nested = call_slots.nested;
    triton_jit::detail::ResolvedOptions options;
    auto call = std::make_unique<triton_jit::detail::EncodedCall>();
    try {
      if (nested) {
        triton_jit::detail::encode_call_nested(sig, options, slots.data(), slots.size(), -1, *call);
      } else {
        triton_jit::detail::encode_call(sig, options, slots.data(), slots.size(), -1, *call);
      }
    } catch (const triton_jit::TypeError& e) {
      throw py::type_error(e.what());
    } catch (const triton_jit::ValueError& e) {
      throw py::value_error(e.what());
    }
    py::list words;
    for (uint32_t i = 0; i < call->key.size; ++i) words.append(call->key.words[i]);
    const triton_jit::detail::CallArgs call_args{slots.data(), slots.size(), nested};
    return py::make_tuple(triton_jit::detail::compile_request_json(sig, options, call->key, call_args), words,
                          call->num_kernel_params);
  });
  // The kernel parameters a flat call's arguments become for a variant compiled with
  // `metadata_json` (the compile script's): each one's first 8 bytes, or "map" and the tensor
  // map's bytes for a tensor map (encoded by whatever driver TRITON_JIT_CUDA_DRIVER names).
  m.def("expand", [](const std::string& describe_json, const py::list& args, const std::string& metadata_json,
                     const py::bytes& binary, const std::string& target) {
    auto sig = triton_jit::detail::parse_kernel_signature(describe_json);
    CallSlots call_slots(args);
    std::vector<ArgSlot>& slots = call_slots.slots;
    const auto parsed = triton_jit::detail::require_target(target, "target");
    auto call = std::make_unique<triton_jit::detail::EncodedCall>();
    triton_jit::detail::ResolvedOptions options;
    triton_jit::detail::encode_call(sig, options, slots.data(), slots.size(), -1, *call);
    const auto metadata = triton_jit::detail::check_compiled(sig.name, metadata_json, std::string(binary), parsed);
    const int expected = triton_jit::detail::kernel_param_count(sig, call->key) +
                         triton_jit::detail::descriptor_param_count(sig, call->key, metadata);
    triton_jit::detail::expand_descriptors(metadata, *call);
    py::list params;
    for (uint32_t k = 0; k < call->num_kernel_params; ++k) {
      const char* at = static_cast<const char*>(call->params[k]);
      if (std::memcmp(at, "TMAP", 4) == 0) {
        params.append(py::make_tuple("map", py::bytes(at, 128)));
      } else {
        uint64_t bits = 0;
        std::memcpy(&bits, at, 8);
        params.append(py::make_tuple("bits", bits));
      }
    }
    return py::make_tuple(params, expected);
  });
}
