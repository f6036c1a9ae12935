"""Triton kernels launched from Python through triton_jit's runtime.

    k = triton_jit.jit(kernel)                       # a @triton.jit function (autotuned or not)
    k = triton_jit.load("kernels/add.py", "add_kernel")
    k[grid](*args, BLOCK=..., num_warps=..., num_stages=...)

The call is Triton's: a tuple grid or `lambda META: ...`, positional and keyword arguments,
defaults, torch tensors, ints, floats, bools, None, strings, tuples and TensorDescriptors. The
variant, the cache, @triton.autotune and @triton.heuristics are the C++ runtime's, so a launch
costs what a C++ one does plus the interpreter's call. It runs on torch's current stream of the
tensors' device.
"""
import inspect
import sys

from ._launch import CompileError, DriverError, Kernel, Launcher, LaunchMeta

__all__ = ["CompileError", "DriverError", "Kernel", "Launcher", "LaunchMeta", "jit", "load"]

_KERNELS = {}


def _function_of(fn):
    """The Python function under Triton's wrappers (Autotuner -> Heuristics -> JITFunction -> fn)."""
    inner = fn
    for _ in range(16):
        if inspect.isfunction(inner):
            return inner
        inner = getattr(inner, "fn", None)
        if inner is None:
            break
    raise TypeError(f"triton_jit.jit: expected a @triton.jit function (autotuned or not), got {type(fn).__name__}")


def load(path, name=""):
    """The kernel `name` of a .py file (absolute, or relative to the runtime's kernel search path),
    or of "package.module:function" (then name may be left out)."""
    key = (str(path), name)
    kernel = _KERNELS.get(key)
    if kernel is None:
        kernel = _KERNELS.setdefault(key, Kernel(str(path), name))
    return kernel


def jit(fn):
    """The runtime's launcher of a @triton.jit function object (or one wrapped in @triton.autotune
    and @triton.heuristics). The function must be a module-level name of its module, which the
    runtime reads as Triton would; a kernel of the __main__ script is read from the script's file
    (keep the script's work under `if __name__ == "__main__":`)."""
    if isinstance(fn, Kernel):
        return fn
    function = _function_of(fn)
    name = function.__name__
    module_name = getattr(function, "__module__", None)
    module = sys.modules.get(module_name) if module_name else None
    if module is not None and module_name != "__main__":
        found = getattr(module, name, None)
        if found is not fn:
            raise TypeError(f"triton_jit.jit: {module_name}.{name} is {type(found).__name__ if found is not None else 'missing'}, "
                            f"not the object passed: pass the module-level kernel (with its decorators) that calls use")
        return load(f"{module_name}:{name}")
    source = inspect.getsourcefile(function)
    if source is None:
        raise TypeError(f"triton_jit.jit: {name} has no source file (a kernel defined in an interactive session)")
    return load(source, name)
