"""Compile step of triton_jit: runs inside the interpreter embedded by the compiler bridge.

Two entry points, both called from C++ (src/compiler/python/):

    describe(spec, name, search_path) -> JSON text
        The static signature of a @triton.jit function: per parameter its name, kind,
        annotation and (for constexprs) default value, plus autotune / heuristics configs.

    compile(spec, name, search_path, request_json) -> (cubin bytes, metadata JSON text)
        Compiles one variant with Triton's own compiler for an explicit target.

The script imports triton, never torch: `import torch` costs seconds and compiling for an
explicit target needs neither a GPU nor torch. The installed Triton is feature-detected
(ASTSource's parameters, the backend's option fields, the metadata fields), not matched
against a list of versions; Triton 3.3 and newer are supported.

Constexpr values travel as tagged JSON objects ({"int": 3}, {"float": "0x1.8p+1"},
{"bool": true}, {"none": null}, {"str": "x"}) so that floats keep every bit and big
integers stay exact.
"""

import dataclasses
import importlib
import importlib.util
import inspect
import json
import os
import sys
import time

_MODULE_CACHE = {}


class KernelLookupError(Exception):
    """The kernel file, module or function cannot be found, or is not a Triton JIT function."""


def _resolve_file(path, search_path):
    if os.path.isabs(path):
        return path if os.path.isfile(path) else None
    for base in list(search_path) + [os.getcwd()]:
        candidate = os.path.join(base, path)
        if os.path.isfile(candidate):
            return os.path.abspath(candidate)
    return None


def _package_root(file_path):
    """Returns (directory to put on sys.path, dotted module name) for a file.

    A file inside a package (folders with __init__.py) is imported under its dotted name so that
    its relative imports work; a lone file gets a name of its own that cannot clash.
    """
    directory, filename = os.path.split(file_path)
    parts = [os.path.splitext(filename)[0]]
    while os.path.isfile(os.path.join(directory, "__init__.py")):
        directory, package = os.path.split(directory)
        parts.insert(0, package)
    return directory, ".".join(parts)


def _import_file(file_path):
    file_path = os.path.realpath(file_path)
    mtime = os.stat(file_path).st_mtime_ns
    cached = _MODULE_CACHE.get(file_path)
    if cached is not None and cached[0] == mtime:
        return cached[1]
    root, dotted = _package_root(file_path)
    if "." in dotted:
        if root not in sys.path:
            sys.path.insert(0, root)
        for name in [n for n in sys.modules if n == dotted or n.startswith(dotted + ".")]:
            del sys.modules[name]
        module = importlib.import_module(dotted)
    else:
        unique = "triton_jit_kernel_" + str(abs(hash(file_path)))
        spec = importlib.util.spec_from_file_location(unique, file_path)
        module = importlib.util.module_from_spec(spec)
        # Triton reads kernel sources through inspect/linecache, which need the module registered.
        sys.modules[unique] = module
        directory = os.path.dirname(file_path)
        if directory not in sys.path:
            sys.path.insert(0, directory)
        spec.loader.exec_module(module)
    _MODULE_CACHE[file_path] = (mtime, module)
    return module


def _load_object(spec, name, search_path):
    """spec is a path to a .py file (absolute, or relative to the search path) or 'pkg.module:function'."""
    if ":" in spec and not spec.endswith(".py") and not os.path.sep in spec.split(":", 1)[0]:
        module_name, _, attr = spec.partition(":")
        for base in search_path:
            if base not in sys.path:
                sys.path.insert(0, base)
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as error:
            raise KernelLookupError(f"cannot import module '{module_name}': {error}") from None
        name = name or attr
        where = f"module '{module_name}'"
    else:
        file_path = _resolve_file(spec, search_path)
        if file_path is None:
            searched = ", ".join(list(search_path) + [os.getcwd()])
            raise KernelLookupError(f"kernel file '{spec}' not found (searched: {searched})")
        module = _import_file(file_path)
        where = f"'{file_path}'"
    if not name:
        raise KernelLookupError(f"no function name given for {where}")
    if not hasattr(module, name):
        raise KernelLookupError(f"{where} has no function '{name}'")
    return getattr(module, name)


def _unwrap(obj, name):
    """Peels @triton.autotune and @triton.heuristics wrappers off a JIT function."""
    from triton.runtime.jit import JITFunction
    autotune = None
    heuristics = []
    current = obj
    while not isinstance(current, JITFunction):
        kind = type(current).__name__
        if kind == "Autotuner":
            autotune = current
        elif kind == "Heuristics":
            heuristics.append(current)
        else:
            raise KernelLookupError(f"'{name}' is not a Triton JIT function (it is a {type(obj).__name__}); "
                                    "decorate it with @triton.jit")
        current = getattr(current, "fn", None)
        if current is None:
            raise KernelLookupError(f"'{name}' wraps no Triton JIT function")
    return current, autotune, heuristics


def _tag_value(value):
    if value is None:
        return {"none": None}
    if isinstance(value, bool):
        return {"bool": value}
    if isinstance(value, int):
        return {"int": value}
    if isinstance(value, float):
        return {"float": value.hex()}
    if isinstance(value, str):
        return {"str": value}
    if hasattr(value, "value"):  # tl.constexpr(...) as a default
        return _tag_value(value.value)
    return {"unsupported": repr(value)}


def _untag_value(tagged):
    (kind, value), = tagged.items()
    if kind == "float":
        return float.fromhex(value)
    if kind == "none":
        return None
    return value


def _param_kind(param):
    if param.is_constexpr:
        return "constexpr"
    if param.do_not_specialize and param.do_not_specialize_on_alignment:
        return "do_not_specialize"
    if param.do_not_specialize:
        return "do_not_specialize"
    if param.do_not_specialize_on_alignment:
        return "do_not_specialize_on_alignment"
    return "specialized"


def _config_json(config):
    return {
        "kwargs": {k: _tag_value(v) for k, v in config.kwargs.items()},
        "num_warps": config.num_warps,
        "num_stages": config.num_stages,
        "num_ctas": getattr(config, "num_ctas", 1),
        "maxnreg": getattr(config, "maxnreg", None),
    }


def _dependency_files(fn):
    """Source files a compiled variant depends on: the kernel's own and those of every JIT
    function reachable from its globals (directly, or through a module it imported)."""
    from triton.runtime.jit import JITFunction
    import types
    seen, files, stack = set(), set(), [fn]
    while stack:
        current = stack.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        source = inspect.getsourcefile(current.fn)
        if source:
            files.add(os.path.realpath(source))
        for value in current.fn.__globals__.values():
            if isinstance(value, JITFunction):
                stack.append(value)
            elif isinstance(value, types.ModuleType) and not value.__name__.startswith("triton"):
                stack.extend(v for v in vars(value).values() if isinstance(v, JITFunction))
    return sorted(files)


def _triton_file():
    import triton
    return os.path.realpath(triton.__file__)


def describe(spec, name, search_path):
    import triton
    obj = _load_object(spec, name, list(search_path))
    fn, autotune, heuristics = _unwrap(obj, name or spec)
    params = []
    for p in fn.params:
        entry = {
            "name": p.name,
            "kind": _param_kind(p),
            "do_not_specialize": bool(p.do_not_specialize),
            "do_not_specialize_on_alignment": bool(p.do_not_specialize_on_alignment),
            "annotation": p.annotation_type if not p.is_constexpr else "constexpr",
            "is_const": bool(p.is_const),
        }
        if p.has_default:
            entry["default"] = _tag_value(p.default)
        params.append(entry)
    result = {
        "name": fn.__name__,
        "file": inspect.getsourcefile(fn.fn),
        "params": params,
        "debug": bool(getattr(fn, "debug", False)),
        "triton_version": triton.__version__,
        "autotune": None,
        "heuristics": [sorted(h.values.keys()) for h in heuristics],
        "dependencies": [os.path.realpath(inspect.getsourcefile(fn.fn))],
        "triton_file": _triton_file(),
    }
    if autotune is not None:
        result["autotune"] = {
            "key": list(autotune.keys) if hasattr(autotune, "keys") else [],
            "configs": [_config_json(c) for c in autotune.configs],
        }
    return json.dumps(result)


def _target(text):
    from triton.backends.compiler import GPUTarget
    backend, _, arch = text.partition(":")
    if backend != "cuda" or not arch:
        raise ValueError(f"unsupported target '{text}'; expected 'cuda:<arch>', for example cuda:90")
    return GPUTarget("cuda", int(arch) if arch.isdigit() else arch, 32)


def _make_source(fn, signature, constexprs, attrs):
    from triton.compiler import ASTSource
    accepted = inspect.signature(ASTSource.__init__).parameters
    if "constexprs" in accepted:
        return ASTSource(fn, signature, constexprs=constexprs, attrs=attrs)
    if "constants" in accepted:
        return ASTSource(fn, signature, constants=constexprs, attrs=attrs)
    raise RuntimeError("the installed Triton's ASTSource takes neither 'constexprs' nor 'constants' "
                       "(triton_jit supports Triton 3.3 and newer)")


def _options(backend, requested, fn):
    from triton import knobs
    option_type = type(backend.parse_options({}))
    known = {f.name for f in dataclasses.fields(option_type)}
    options = {}
    for key, value in requested.items():
        if value is None:
            continue
        if key not in known:
            raise ValueError(f"compile option '{key}' is not supported by the installed Triton")
        options[key] = value
    if "debug" in known:
        options["debug"] = bool(options.get("debug", False) or getattr(fn, "debug", False) or knobs.runtime.debug)
    if "instrumentation_mode" in known:
        options.setdefault("instrumentation_mode", knobs.compilation.instrumentation_mode)
    return options


_METADATA_FIELDS = ("name", "num_warps", "num_ctas", "shared", "tmem_size", "global_scratch_size",
                    "global_scratch_align", "profile_scratch_size", "profile_scratch_align", "launch_pdl",
                    "launch_cooperative_grid", "ptx_version", "cluster_dims", "target")


def compile(spec, name, search_path, request_json):
    import triton
    from triton.compiler import make_backend
    started = time.perf_counter()
    request = json.loads(request_json)
    obj = _load_object(spec, name, list(search_path))
    fn, _, _ = _unwrap(obj, name or spec)
    signature = dict(zip(fn.arg_names, request["signature"]))
    constexprs = {(int(i), ): _untag_value(v) for i, v in request["constexprs"].items()}
    attrs = {(int(i), ): [list(a) for a in v] for i, v in request["attrs"].items()}
    target = _target(request["target"])
    backend = make_backend(target)
    options = _options(backend, request["options"], fn)
    source = _make_source(fn, signature, constexprs, attrs)
    loaded = time.perf_counter()
    compiled = triton.compile(source, target=target, options=options)
    metadata = compiled.metadata._asdict() if hasattr(compiled.metadata, "_asdict") else dict(compiled.metadata)
    out = {}
    for field in _METADATA_FIELDS:
        if field not in metadata:
            continue
        value = metadata[field]
        if field == "target":
            value = {"backend": value.backend, "arch": value.arch, "warp_size": value.warp_size} \
                if hasattr(value, "backend") else value
        out[field] = value
    out["triton_version"] = triton.__version__
    out["arch"] = str(target.arch)
    out["dependencies"] = _dependency_files(fn)
    out["triton_file"] = _triton_file()
    out["phase_seconds"] = {"import": loaded - started, "compile": time.perf_counter() - loaded}
    return bytes(compiled.asm["cubin"]), json.dumps(out)


def reference_specialization(spec, name, search_path, values, target="cuda:90"):
    """Triton's own answer for a list of Python argument values: (signature, constexprs, attrs).

    Uses the binder Triton's runtime builds for the function and the same packing its run()
    performs, without launching. Used by the parity tests.
    """
    from triton.compiler import make_backend
    from triton._utils import find_paths_if, get_iterable_path
    from triton.runtime.jit import create_function_from_signature
    obj = _load_object(spec, name, list(search_path))
    fn, _, _ = _unwrap(obj, name or spec)
    backend = make_backend(_target(target))
    binder = create_function_from_signature(fn.signature, fn.params, backend)
    bound_args, specialization, _ = binder(*values)
    sigvals = [x[0] for x in specialization]
    signature = {p.name: v for p, v in zip(fn.params, sigvals)}
    constexpr_paths = find_paths_if(sigvals, lambda _, val: val == "constexpr")
    constexprs = {path[0]: get_iterable_path(list(bound_args.values()), path) for path in constexpr_paths}
    attrvals = [x[1] for x in specialization]
    attr_paths = find_paths_if(attrvals, lambda _, x: isinstance(x, str))
    attrs = {path[0]: backend.parse_attr(get_iterable_path(attrvals, path)) for path in attr_paths}
    return signature, constexprs, attrs
