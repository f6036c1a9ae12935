// triton_jit_raw_launch: the floor of a launch from a Python process, for
// python_launch_bench.py: a loop of raw cuLaunchKernelEx calls issued from C++ (no Python in the
// loop) of a cubin Triton compiled, on the given stream.
#include <cuda.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace py = pybind11;

namespace {

void check(CUresult r, const char* what) {
  if (r != CUDA_SUCCESS) {
    const char* text = nullptr;
    cuGetErrorString(r, &text);
    throw std::runtime_error(std::string(what) + ": " + (text ? text : "unknown error"));
  }
}

// Nanoseconds per launch over `calls` launches of one block of num_warps warps. `args` are the
// kernel's parameters in order: ("p", address) for a pointer, ("i", value) for an i32, ("l", value)
// for an i64; Triton's scratch pointers are appended as null.
double launch_loop(py::bytes cubin, const std::string& name, int num_warps, int shared, uintptr_t stream,
                   const std::vector<std::pair<std::string, int64_t>>& args, int calls) {
  const std::string image = cubin;
  CUmodule module = nullptr;
  CUfunction function = nullptr;
  check(cuModuleLoadData(&module, image.data()), "cuModuleLoadData");
  check(cuModuleGetFunction(&function, module, name.c_str()), "cuModuleGetFunction");
  std::vector<uint64_t> storage(args.size() + 2, 0);
  std::vector<void*> params(args.size() + 2);
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i].first == "i") {
      const int32_t v = static_cast<int32_t>(args[i].second);
      std::memcpy(&storage[i], &v, sizeof v);
    } else {
      storage[i] = static_cast<uint64_t>(args[i].second);
    }
    params[i] = &storage[i];
  }
  params[args.size()] = &storage[args.size()];
  params[args.size() + 1] = &storage[args.size() + 1];
  CUlaunchConfig config{};
  config.gridDimX = config.gridDimY = config.gridDimZ = 1;
  config.blockDimX = 32u * static_cast<unsigned>(num_warps);
  config.blockDimY = config.blockDimZ = 1;
  config.sharedMemBytes = static_cast<unsigned>(shared);
  config.hStream = reinterpret_cast<CUstream>(stream);
  for (int i = 0; i < 100; ++i) check(cuLaunchKernelEx(&config, function, params.data(), nullptr), "cuLaunchKernelEx");
  check(cuStreamSynchronize(config.hStream), "cuStreamSynchronize");
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < calls; ++i) cuLaunchKernelEx(&config, function, params.data(), nullptr);
  const auto end = std::chrono::steady_clock::now();
  check(cuStreamSynchronize(config.hStream), "cuStreamSynchronize");
  cuModuleUnload(module);
  return std::chrono::duration<double, std::nano>(end - start).count() / calls;
}

}  // namespace

PYBIND11_MODULE(triton_jit_raw_launch, m) {
  m.def("launch_loop", &launch_loop, py::arg("cubin"), py::arg("name"), py::arg("num_warps"), py::arg("shared"),
        py::arg("stream"), py::arg("args"), py::arg("calls"));
}
