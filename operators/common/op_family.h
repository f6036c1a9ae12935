// A family's operators in the dispatcher, one row each: the schema (ATen's, where ATen has the op,
// so that each can stand in for it) and the one function that serves CUDA and Meta tensors alike
// (on Meta tensors it stops after computing the result's shape). Each family's register.cpp holds
// its rows; common/library.cpp defines the namespace.
#pragma once

#include <torch/library.h>

#include <cstdint>
#include <string>

namespace triton_jit::ops {

class OpFamily {
 public:
  explicit OpFamily(const char* file = __builtin_FILE(), uint32_t line = __builtin_LINE())
      : schemas_(::torch::Library::FRAGMENT, "triton_jit", std::nullopt, file, line),
        cuda_(::torch::Library::IMPL, "triton_jit", c10::DispatchKey::CUDA, file, line),
        meta_(::torch::Library::IMPL, "triton_jit", c10::DispatchKey::Meta, file, line) {}

  template <class Fn>
  OpFamily& op(const char* schema, Fn* fn) {
    schemas_.def(schema);
    const std::string name(schema, std::string(schema).find('('));
    cuda_.impl(name.c_str(), fn);
    meta_.impl(name.c_str(), fn);
    return *this;
  }

 private:
  ::torch::Library schemas_;
  ::torch::Library cuda_;
  ::torch::Library meta_;
};

}  // namespace triton_jit::ops
