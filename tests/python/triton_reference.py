"""Triton's own answers, for the parity tests: the compile script's describe(), and the
specialization Triton's runtime computes for Python values (its binder and the packing of
JITFunction.run), without launching anything."""
import os

import triton_jit_compile


def describe(file, function):
    described = triton_jit_compile.describe(os.path.realpath(file), "", function, [])[0]
    return described


def _canonical(type_name):
    """Triton 3.3 calls a bool value, and a pointer to bools, i1; 3.4 renamed it u1, the one name
    the C++ side uses on every version (the compile script gives each Triton its own name)."""
    if isinstance(type_name, tuple):
        return tuple(_canonical(t) for t in type_name)
    return {"i1": "u1", "*i1": "*u1", "*ki1": "*ku1"}.get(type_name, type_name)


def reference_specialization(file, function, values, target="cuda:90"):
    """(signature, constexprs, attrs) for a list of Python argument values; constexprs and attrs
    are keyed by path (parameter, then indices into a tuple), as Triton keys them."""
    from triton.compiler import make_backend
    from triton._utils import find_paths_if, get_iterable_path
    from triton.runtime.jit import create_function_from_signature
    fn = triton_jit_compile.load_kernel(os.path.realpath(file), "", function, []).fn
    backend = make_backend(triton_jit_compile.gpu_target(target))
    binder = create_function_from_signature(fn.signature, fn.params, backend)
    bound_args, specialization, _ = binder(*values)
    sigvals = [x[0] for x in specialization]
    signature = {p.name: _canonical(v) for p, v in zip(fn.params, sigvals)}
    constexpr_paths = find_paths_if(sigvals, lambda _, val: val == "constexpr")
    constexprs = {tuple(path): get_iterable_path(list(bound_args.values()), path) for path in constexpr_paths}
    attrvals = [x[1] for x in specialization]
    attr_paths = find_paths_if(attrvals, lambda _, x: isinstance(x, str))
    attrs = {tuple(path): backend.parse_attr(get_iterable_path(attrvals, path)) for path in attr_paths}
    return signature, constexprs, attrs
