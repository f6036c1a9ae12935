// triton_jit/errors.h: the exceptions triton_jit throws.
//
// One root type, Error (a std::runtime_error), and a few subclasses a caller can act on:
//
//   try {
//     add(stream, grid, 1, 1, 4, 3, x, y, out, n);
//   } catch (const triton_jit::TypeError& e) {      // an argument of the wrong type or dtype
//   } catch (const triton_jit::CompileError& e) {   // Triton rejected the kernel
//   } catch (const triton_jit::DriverError& e) {    // a CUDA driver call failed; e.code()
//   } catch (const triton_jit::Error& e) {          // anything else from triton_jit
//   }
//
// Messages name the kernel, the argument, what was expected and what came.
#pragma once

#include <stdexcept>
#include <string>

#include "triton_jit/export.h"

namespace triton_jit {

class TRITON_JIT_API Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A value is out of the accepted range (argument count, grid, shared memory, options).
class TRITON_JIT_API ValueError : public Error {
 public:
  using Error::Error;
};

// An argument has a type or dtype the kernel parameter cannot take.
class TRITON_JIT_API TypeError : public Error {
 public:
  using Error::Error;
};

// The kernel file, module or function cannot be found or is not a Triton JIT function.
class TRITON_JIT_API LookupError : public Error {
 public:
  using Error::Error;
};

// Triton failed to compile the kernel, or the Python side of the compiler failed.
// what() carries Triton's message and the Python traceback.
class TRITON_JIT_API CompileError : public Error {
 public:
  using Error::Error;
};

// A CUDA driver call failed, or no CUDA driver is present. code() is the CUresult (0 when
// the driver could not be loaded at all).
class TRITON_JIT_API DriverError : public Error {
 public:
  DriverError(int code, const std::string& message) : Error(message), code_(code) {}
  int code() const noexcept { return code_; }

 private:
  int code_;
};

}  // namespace triton_jit
