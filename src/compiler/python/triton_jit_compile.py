"""Compile step of triton_jit: runs inside the interpreter embedded by the compiler bridge.

Two entry points, both called from C++ (python_bridge.cpp):

    describe(file, module, function, search_path) -> (JSON text, sources, values)
        The static signature of a @triton.jit function: per parameter its name, kind,
        annotation and default, plus what its decorators (autotune, heuristics) say.

    imported_values(file, module, function, search_path) -> values
        What the kernel reads that was computed when its modules were imported (see
        triton_jit_values.py): a later process compares it with what an entry recorded.

    compile(file, module, function, search_path, request_json) -> (cubin, metadata JSON, sources)
        Compiles one variant with Triton's own compiler for an explicit target.

`file` is the kernel's resolved real path (the C++ side resolves it), or "" when `module`
("package.module") names it. `sources` is a list of (path, bytes): every file whose text decides
what is compiled, with the exact text this process compiled from (see _SnapshotLoader). The
C++ side keys and validates its persistent cache with them.

The script imports triton, never torch: `import torch` costs seconds and compiling for an
explicit target needs neither a GPU nor torch. The installed Triton is feature-detected
(ASTSource's parameters, the backend's option fields, the metadata fields), not matched
against a list of versions.

Constexpr values travel as tagged JSON objects ({"int": 3}, {"float": "0x1.8p+1"},
{"bool": true}, {"none": null}, {"str": "x"}) so that floats keep every bit and big
integers stay exact. A value only Python holds (a dtype, a Gluon layout, a class) travels as the
expression that makes it ({"expr": "tl.float16"}), evaluated here (constexpr_expression()).
"""

import collections
import dataclasses
import functools
import inspect
import json
import os
import re
import sys
import time

import triton_jit_heuristics
import triton_jit_hooks
from triton_jit_sources import (Dependencies, KernelImportError, KernelLookupError, gpu_target, is_autotuner,  # noqa: F401
                                load_kernel, program_imported,
                                set_compile_only_target, triton_dir)


# ---- describe ----------------------------------------------------------------------------------


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
    if isinstance(value, tuple):
        return {"tuple": [_tag_value(v) for v in value]}
    if hasattr(value, "value") and type(value).__name__ == "constexpr":  # tl.constexpr(...) as a default
        return _tag_value(value.value)
    expression = constexpr_expression(value)
    if expression is not None:
        return {"expr": expression}
    return {"unsupported": repr(value)}


def _dtype_expression(value):
    """triton.language's own name of a dtype object ("tl.float16"), or None."""
    import triton.language as tl
    name = getattr(value, "name", None)
    if not isinstance(name, str):
        return None
    for attribute in (name, name.replace("fp", "float", 1), name.replace("bf", "bfloat", 1)):
        if isinstance(getattr(tl, attribute, None), type(value)) and getattr(tl, attribute) == value:
            return f"tl.{attribute}"
    return None


def constexpr_expression(value):
    """The Python expression that makes a constexpr value which has no JSON form: a
    triton.language dtype ("tl.float16"), a torch dtype ("torch.float16"), an integer beyond 64
    bits, or an object whose repr evaluates back to an equal object in the kernel's scope (Gluon's
    layouts). None when there is none: the caller refuses the value, naming it."""
    import sys
    tl = sys.modules.get("triton.language")
    if tl is not None and isinstance(value, tl.dtype):
        return _dtype_expression(value)
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(value, torch.dtype):
        return str(value)
    for kind in (bool, int, float, str):  # their subclasses (numpy's float64) as the Python value
        if isinstance(value, kind):
            return repr(kind(value))
    text = repr(value)
    gl = _expression_scope(None).get("gl")
    bare = r"(?<![\w.])([A-Za-z_]\w*)\("  # Gluon's layouts name their classes bare in their reprs
    qualified = re.sub(bare, lambda m: f"gl.{m.group(0)}" if isinstance(getattr(gl, m.group(1), None), type)
                       else m.group(0), text) if gl is not None else text
    for candidate in (text, qualified):
        try:
            if evaluate_expression(candidate, None) == value:
                return candidate
        except Exception:
            pass
    return None


def _expression_scope(module):
    import triton
    import triton.language as tl
    scope = {"triton": triton, "tl": tl}
    try:
        from triton.experimental import gluon
        from triton.experimental.gluon import language as gl
        scope.update(gluon=gluon, gl=gl)
    except ImportError:  # a Triton without Gluon
        pass
    if module is not None:
        scope.update(vars(module))
    return scope


def evaluate_expression(text, module):
    """A constexpr expression's value, in the scope of the kernel's module (its names, then tl,
    gl, triton, and torch when the text names it: importing torch costs seconds)."""
    scope = _expression_scope(module)
    if "torch" in text and "torch" not in scope:
        import torch
        scope["torch"] = torch
    return eval(text, scope)  # noqa: S307  (the caller's own expression, as Python code it runs)


def _untag_value(tagged, module=None):
    if "namedtuple" in tagged:
        return _namedtuple(tagged["namedtuple"])(*(_untag_value(v, module) for v in tagged["tuple"]))
    (kind, value), = tagged.items()
    if kind == "expr":
        return evaluate_expression(value, module)
    if kind == "float":
        return float.fromhex(value)
    if kind == "none":
        return None
    if kind == "tuple":
        return tuple(_untag_value(v, module) for v in value)
    if kind == "jit_function":  # a @triton.jit function passed as an argument: Triton gets the object
        return load_kernel(value["file"], value["module"], value["name"], list(value["search_path"])).fn
    return value


def _passed_function_sources(constexprs):
    """The sources of the @triton.jit functions a call passes: its variant depends on them too."""
    sources = []
    for tagged in constexprs.values():
        kind, value = next(iter(tagged.items()))  # a namedtuple's carries its names beside its items
        if kind == "jit_function":
            sources += load_kernel(value["file"], value["module"], value["name"], list(value["search_path"])).sources
    return sources


@functools.lru_cache(maxsize=None)
def _namedtuple(names):
    """A namedtuple type from the request's "Name:field,field": Triton reads a namedtuple
    argument's fields by name from its type (p.scale in a kernel)."""
    name, _, fields = names.partition(":")
    return collections.namedtuple(name, fields.split(",") if fields else [])


def _tuplify(value):
    """JSON lists of a nested signature back into Triton's tuples (a namedtuple is
    {"namedtuple": "Name:field,field", "items": [...]})."""
    if isinstance(value, dict) and "namedtuple" in value:
        return _namedtuple(value["namedtuple"])(*(_tuplify(v) for v in value["items"]))
    return tuple(_tuplify(v) for v in value) if isinstance(value, list) else value


def _bool_name():
    """What the installed Triton calls a bool argument's type: u1 from Triton 3.4 on, i1 before.
    Read from its type table (mangle_type would import torch)."""
    import importlib
    for module in ("triton._utils", "triton.runtime.jit"):
        try:
            return importlib.import_module(module).type_canonicalisation_dict.get("bool", "u1")
        except (ImportError, AttributeError):
            continue
    return "u1"


def _in_tritons_names(fn, signature):
    """The request names a bool u1 on every Triton (the C++ side's one name); a Triton that calls
    a bool value or a pointer to bools i1 gets its own name, as its runtime would pass it. A
    parameter annotated bool stays u1, which is what such a Triton makes of the annotation."""
    if _bool_name() == "u1":
        return signature
    renamed = {"u1": "i1", "*u1": "*i1", "*ku1": "*ki1"}

    def rename(t):
        if not isinstance(t, tuple):
            return renamed.get(t, t)
        items = [rename(v) for v in t]
        return type(t)(*items) if hasattr(t, "_fields") else tuple(items)

    annotated = {p.name for p in fn.params if getattr(p, "annotation_type", "")}
    return {name: t if name in annotated else rename(t) for name, t in signature.items()}


def _path(text):
    """A constexpr's or attribute's path, "1,0" -> (1, 0): parameter, then tuple indices."""
    return tuple(int(part) for part in text.split(","))


def _param_kind(param):
    if param.is_constexpr:
        return "constexpr"
    if param.do_not_specialize:
        return "do_not_specialize"
    if param.do_not_specialize_on_alignment:
        return "do_not_specialize_on_alignment"
    return "specialized"


def _config_json(config, hook=None, params=()):
    """A Config as C++ reads it. A kernel parameter named like one of its options (FlagGems'
    attention declares `num_warps: tl.constexpr`) takes the option's value, as Triton's autotuner
    passes the options as keywords (Config.all_kwargs)."""
    kwargs = dict(config.kwargs)
    for name in AUTOTUNE_OPTIONS:
        if name in params and getattr(config, name, None) is not None:
            kwargs[name] = getattr(config, name)
    entry = {
        "kwargs": {k: _tag_value(v) for k, v in kwargs.items()},
        "num_warps": config.num_warps,
        "num_stages": config.num_stages,
        "num_ctas": getattr(config, "num_ctas", 1),
        "maxnreg": getattr(config, "maxnreg", None),
    }
    if hook is not None:
        entry["pre_hook"] = hook
    return entry


# Options an autotuner passes to the kernels it wraps, which heuristics inside it may read;
# they follow the kernel's parameters in the C++ side's argument array.
AUTOTUNE_OPTIONS = ("num_warps", "num_stages", "num_ctas", "maxnreg")


def _timing_arguments_only(autotuner):
    """Whether the autotuner's benchmark is do_bench with its warmup / rep arguments (which C++
    honours), not a user's function."""
    return getattr(autotuner, "num_warmups", None) is not None or getattr(autotuner, "num_reps", None) is not None


def _hooks(autotuner, scope):
    """The autotuner's hooks translated (triton_jit_hooks): each config's pre_hook, and the
    autotuner's own pre_hook and post_hook, which Triton runs around each benchmarked run; and
    what C++ cannot run, each with the reason (the C++ side refuses the kernel at load)."""
    refused = []
    per_config = []
    for i, config in enumerate(autotuner.configs):
        hook = getattr(config, "pre_hook", None)
        if hook is None:
            per_config.append(None)
            continue
        program, why = triton_jit_hooks.translate(hook, scope, f"configs[{i}].pre_hook")
        per_config.append(program)
        if why:
            refused.append(why)
    around = {}
    for kind in ("pre_hook", "post_hook"):
        if not getattr(autotuner, f"user_defined_{kind}", False):
            continue
        program, why = triton_jit_hooks.translate(getattr(autotuner, kind), scope, f"the autotuner's {kind}",
                                                  post_hook=kind == "post_hook")
        if program and any(a["do"] == "block_shape" for a in program["actions"]):
            why = (f"the autotuner's {kind} sets a block_shape, and Triton runs it only while benchmarking: set "
                   f"block shapes in each Config's pre_hook")
        if why:
            refused.append(why)
        else:
            around[kind] = program
    if getattr(autotuner, "use_cuda_graph", False):
        refused.append("use_cuda_graph (benchmarking through CUDA graphs)")
    elif getattr(autotuner, "_do_bench", None) is not None and not _timing_arguments_only(autotuner):
        refused.append("do_bench (a custom benchmark function)")
    return per_config, around, refused


def _decorators_json(kernel):
    """The decorator chain, outermost first."""
    params = {p.name: i for i, p in enumerate(kernel.fn.params)}
    inside_autotuner = False
    chain = []
    for wrapper in kernel.chain:
        if is_autotuner(wrapper):
            inside_autotuner = True
            top_k = getattr(wrapper, "configs_top_k", 1.0)
            scope = dict(params)
            scope.update({name: len(params) + k for k, name in enumerate(AUTOTUNE_OPTIONS)})
            config_hooks, around, refused = _hooks(wrapper, scope)
            chain.append({
                "kind": "autotune",
                "key": [k for k in list(getattr(wrapper, "keys", None) or getattr(wrapper, "key", []))],
                "configs": [_config_json(c, h, params) for c, h in zip(wrapper.configs, config_hooks)],
                "reset_to_zero": list(getattr(wrapper, "reset_to_zero", []) or []),
                "restore_value": list(getattr(wrapper, "restore_value", []) or []),
                "prune": getattr(wrapper, "early_config_prune", None) is not None,
                "perf_model": getattr(wrapper, "perf_model", None) is not None,
                "top_k": top_k if isinstance(top_k, (int, float)) else 1.0,
                "warmup_ms": float(getattr(wrapper, "num_warmups", None) or 25),
                "rep_ms": float(getattr(wrapper, "num_reps", None) or 100),
                "hooks": refused,
                "pre_hook": around.get("pre_hook"),
                "post_hook": around.get("post_hook"),
            })
        else:
            scope = dict(params)
            if inside_autotuner:
                scope.update({name: len(params) + k for k, name in enumerate(AUTOTUNE_OPTIONS)})
            values = []
            for name, fn in wrapper.values.items():
                program, why = triton_jit_heuristics.translate(fn, scope)
                values.append({"name": name, "program": program, "untranslated": why})
            chain.append({"kind": "heuristics", "values": values})
    return chain


def describe(file, module, function, search_path):
    import triton
    kernel = load_kernel(file, module, function, list(search_path))
    fn = kernel.fn
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
        "file": Dependencies.code_file(fn.fn) or "",
        "params": params,
        "debug": bool(getattr(fn, "debug", False)),
        "language": "gluon" if is_gluon(fn) else "triton",
        "triton_version": triton.__version__,
        "triton_dir": triton_dir(),
        "decorators": _decorators_json(kernel),
    }
    return json.dumps(result), kernel.sources, kernel.values


def imported_values(file, module, function, search_path):
    return load_kernel(file, module, function, list(search_path)).values


def host_values(file, module, function, search_path):
    """In a Python host, the values the kernel reads now, when the program imported its module
    itself and may have changed them since (Note [Globals changed at run time]); "" when it did
    not, and what the module's text says holds."""
    if not program_imported(file, module):
        return ""
    kernel = load_kernel(file, module, function, list(search_path))
    return Dependencies(kernel).values.text()


class TensorArgument:
    """A tensor argument, as the C++ side can describe it to Python code of a kernel's decorators
    (a heuristic it could not translate, a prune function, a performance model): its dtype (a
    torch dtype when torch is loaded), element size and address."""

    def __init__(self, name, dtype, element_size, address):
        self._name = name
        self.dtype = dtype
        self._element_size = element_size
        self._address = address

    def element_size(self):
        return self._element_size

    def data_ptr(self):
        return self._address

    def __getattr__(self, attribute):
        raise AttributeError(f"tensor argument '{self._name}' is passed from C++ with its dtype, element size and "
                             f"address only; '{attribute}' is not available")


_TORCH_NAMES = {"fp16": "float16", "bf16": "bfloat16", "fp32": "float32", "fp64": "float64", "i8": "int8",
                "i16": "int16", "i32": "int32", "i64": "int64", "u8": "uint8", "u16": "uint16", "u32": "uint32",
                "u64": "uint64", "u1": "bool", "fp8e4nv": "float8_e4m3fn", "fp8e5": "float8_e5m2",
                "fp8e4b8": "float8_e4m3fnuz", "fp8e5b16": "float8_e5m2fnuz"}


def _named_arguments(fn, arguments):
    """Python values for the C++ side's arguments: [{"int": 3}, {"tensor": "fp16", ...}, ...]."""
    import sys
    torch = sys.modules.get("torch")
    module = sys.modules.get(getattr(fn, "__module__", None) or "")

    def value(name, tagged):
        if "tensor" in tagged:
            dtype = tagged["tensor"]
            if torch is not None and dtype in _TORCH_NAMES:
                dtype = getattr(torch, _TORCH_NAMES[dtype])
            return TensorArgument(name, dtype, tagged["element_size"], tagged["address"])
        if "tuple" in tagged:  # its elements may be tensors
            items = [value(name, item) for item in tagged["tuple"]]
            return _namedtuple(tagged["namedtuple"])(*items) if "namedtuple" in tagged else tuple(items)
        return _untag_value(tagged, module)

    named = {}
    names = [p.name for p in fn.params] + list(AUTOTUNE_OPTIONS)
    for name, tagged in zip(names, arguments):
        if "missing" not in tagged:
            named[name] = value(name, tagged)
    return named


def evaluate_heuristic(file, module, function, search_path, decorator, name, arguments_json):
    """Calls heuristic `name` of decorator `decorator` (0: outermost) with the call's arguments."""
    kernel = load_kernel(file, module, function, list(search_path))
    wrapper = kernel.chain[decorator]
    value = wrapper.values[name](_named_arguments(kernel.fn, json.loads(arguments_json)))
    return json.dumps(_tag_value(value))


def _set_by_decorators(kernel, before=None):
    """Names of the parameters the decorators set (those before chain index `before`, if given)."""
    names = set()
    for index, wrapper in enumerate(kernel.chain):
        if before is not None and index >= before:
            break
        if is_autotuner(wrapper):
            if before is None:
                for config in wrapper.configs:
                    names.update(config.kwargs)
        else:
            names.update(wrapper.values)
    return names


def _keywords_taken(fn, keywords, skip):
    """The keyword arguments a Python function can take, of `keywords`: every one where it takes
    **kwargs, else those it names (after its first `skip` parameters)."""
    try:
        parameters = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return keywords
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters):
        return keywords
    named = {p.name for p in parameters[skip:] if p.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                                              inspect.Parameter.KEYWORD_ONLY)}
    return {k: v for k, v in keywords.items() if k in named}


def prune_call_arguments(kernel, decorator, values):
    """What an autotuner's prune_configs_by functions get for a C++ call, as Triton's Autotuner
    passes them: `named_args` holds the arguments the caller passes (Triton's positional ones),
    and the keyword arguments hold what the decorators outside the autotuner set (Triton passes
    those by keyword), `warmup=False` and `grid` (None: a C++ grid is no Python object). A C++ call
    has no keyword arguments, so every argument the caller passes is also offered by keyword,
    where wrappers written for Python pass a prune's inputs (N_CTX=..., STAGE=...)."""
    params = [p.name for p in kernel.fn.params]
    set_by = _set_by_decorators(kernel)
    outer = _set_by_decorators(kernel, before=decorator)
    named_args = {n: values[n] for n in params if n not in set_by and n in values}
    keywords = {n: values[n] for n in params if n in outer and n in values}
    keywords.update(named_args)
    keywords["grid"] = None
    keywords["warmup"] = False
    return named_args, keywords


def prune_configs(file, module, function, search_path, decorator, arguments_json):
    """The indices of the configs an autotuner's prune_configs_by keeps, best first: its
    early_config_prune(configs, named_args, **kwargs), then its perf_model(**arguments, **config)
    for the top_k, as Triton's Autotuner.prune_configs calls them."""
    kernel = load_kernel(file, module, function, list(search_path))
    tuner = kernel.chain[decorator]
    named_args, keywords = prune_call_arguments(kernel, decorator,
                                                _named_arguments(kernel.fn, json.loads(arguments_json)))
    kept = tuner.configs
    tuner.nargs = named_args  # some prunes read the autotuner's own nargs
    try:
        if tuner.early_config_prune:
            kept = tuner.early_config_prune(tuner.configs, named_args,
                                            **_keywords_taken(tuner.early_config_prune, keywords, 2))
            if not kept:
                raise ValueError("early_config_prune kept no config; it should return at least one")
        if tuner.perf_model:
            top_k = tuner.configs_top_k
            if isinstance(top_k, float) and top_k <= 1.0:
                top_k = int(len(tuner.configs) * top_k)
            elif not isinstance(top_k, int):
                raise TypeError("prune_configs_by: top_k must be a float <= 1.0 or an int")
            if len(kept) > top_k:
                estimate = {}
                for config in kept:
                    merged = dict(named_args, **keywords, **config.all_kwargs())
                    estimate[config] = tuner.perf_model(**_keywords_taken(tuner.perf_model, merged, 0))
                kept = sorted(estimate, key=lambda c: estimate[c])[:top_k]
    finally:
        tuner.nargs = None
    index = {id(c): i for i, c in enumerate(tuner.configs)}
    return json.dumps([index[id(c)] for c in kept])


# ---- compile -----------------------------------------------------------------------------------


def is_gluon(fn):
    """Whether a JIT function is Gluon's (@gluon.jit): its own source class compiles it."""
    return bool(getattr(fn, "is_gluon", lambda: False)())


def _source_class(fn):
    """The kernel's own ASTSource: Gluon's builds Gluon's IR (and stamps its layouts' target),
    and its backend runs gluon_to_ttgir instead of make_ttir and make_ttgir."""
    if is_gluon(fn):
        from triton.experimental.gluon._runtime import GluonASTSource
        return GluonASTSource
    from triton.compiler import ASTSource
    return ASTSource


def _make_source(fn, signature, constexprs, attrs):
    ASTSource = _source_class(fn)
    accepted = inspect.signature(ASTSource.__init__).parameters
    if "constexprs" in accepted:
        return ASTSource(fn, signature, constexprs=constexprs, attrs=attrs)
    if "constants" in accepted:
        return ASTSource(fn, signature, constants=constexprs, attrs=attrs)
    raise RuntimeError("the installed Triton's ASTSource takes neither 'constexprs' nor 'constants' "
                       "(triton_jit supports Triton 3.3 and newer)")


MINIMUM_TRITON = (3, 3)


def unsupported_triton():
    """One sentence when the installed Triton is older than the oldest supported, else ''."""
    import triton
    version = getattr(triton, "__version__", "0")
    found = re.match(r"(\d+)\.(\d+)", version)
    if found is None or tuple(int(v) for v in found.groups()) < MINIMUM_TRITON:
        return (f"the installed Triton {version} (in {os.path.dirname(os.path.dirname(triton.__file__ or ''))}) is "
                f"older than {MINIMUM_TRITON[0]}.{MINIMUM_TRITON[1]}, the oldest triton_jit supports: install "
                f"triton>={MINIMUM_TRITON[0]}.{MINIMUM_TRITON[1]} there, or set TRITON_JIT_PYTHON to a Python that "
                "has it")
    return ""


# The options the C++ side always sends, at the values that mean "not asked for".
_OPTION_DEFAULTS = {"enable_fp_fusion": True, "launch_pdl": False, "launch_cooperative_grid": False, "num_ctas": 1}


def _options(backend, requested, fn):
    import triton
    knobs = getattr(triton, "knobs", None)
    option_type = type(backend.parse_options({}))
    known = {f.name for f in dataclasses.fields(option_type)}
    options = {}
    for key, value in requested.items():
        if value is None:
            continue
        if key not in known:
            # An option this Triton predates is left out at its default (what the Triton that
            # has it would do); asked for, it is an error rather than silently ignored.
            if key in _OPTION_DEFAULTS and value == _OPTION_DEFAULTS[key]:
                continue
            raise ValueError(f"compile option '{key}' (set to {value!r}) is not supported by the installed Triton "
                             f"{triton.__version__}; it needs a newer Triton")
        options[key] = value
    runtime_debug = bool(getattr(getattr(knobs, "runtime", None), "debug", False))
    if "debug" in known:
        options["debug"] = bool(options.get("debug", False) or getattr(fn, "debug", False) or runtime_debug)
    mode = getattr(getattr(knobs, "compilation", None), "instrumentation_mode", None)
    if "instrumentation_mode" in known and mode is not None:
        options.setdefault("instrumentation_mode", mode)
    return options


def _expected_type(annotation):
    """The Python type a CUDAOptions field takes, from its annotation ('Optional[int]' is int);
    None for types a C++ caller cannot give (tuples). A dict (extern_libs) is given as its JSON."""
    if isinstance(annotation, type):
        return annotation if annotation in (bool, int, float, str, dict) else None
    args = [a for a in getattr(annotation, "__args__", ()) if a is not type(None)]
    text = str(annotation)
    if len(args) == 1 and args[0] in (bool, int, float, str) and ("Optional" in text or "Union" in text or "|" in text):
        return args[0]
    return None


def _extra_options(backend, requested):
    """LaunchConfig::compile_options: options of the installed Triton by name, checked against its
    option fields (name and type)."""
    import triton
    fields = {f.name: f for f in dataclasses.fields(type(backend.parse_options({})))}
    out = {}
    for key, value in requested.items():
        field = fields.get(key)
        if field is None:
            raise ValueError(f"compile option '{key}' (compile_options) is not an option of the installed Triton "
                             f"{triton.__version__}; it has: {', '.join(sorted(fields))}")
        want = _expected_type(field.type)
        if want is dict and isinstance(value, str):
            try:
                value = {str(k): str(v) for k, v in json.loads(value).items()}
            except (ValueError, AttributeError):
                raise ValueError(f"compile option '{key}' takes a dict, given as JSON text of one, got {value!r}")
        if want is None:
            raise ValueError(f"compile option '{key}' of Triton {triton.__version__} takes {field.type}, which "
                             "compile_options cannot give (bool, integer, float or string)")
        ok = isinstance(value, want) and not (want is int and isinstance(value, bool))
        if want is float and isinstance(value, int) and not isinstance(value, bool):
            value, ok = float(value), True
        if not ok:
            article = "an" if want.__name__[0] in "aeiou" else "a"
            raise ValueError(f"compile option '{key}' of Triton {triton.__version__} takes {article} {want.__name__}, "
                             f"got {type(value).__name__} {value!r}")
        out[key] = value
    return out


_METADATA_FIELDS = ("name", "num_warps", "num_ctas", "shared", "tmem_size", "global_scratch_size",
                    "global_scratch_align", "profile_scratch_size", "profile_scratch_align", "launch_pdl",
                    "launch_cooperative_grid", "ptx_version", "cluster_dims", "target", "instrumentation_mode",
                    "tensordesc_meta")


def _descriptor_flags(backend):
    """How many i1 flags the installed Triton's launcher passes, after a descriptor's base pointer,
    shape and strides, for a descriptor the kernel reads without TMA: asked of its own
    make_tensordesc_arg with a rank-1 probe (none in 3.4; padding from 3.5; round_f32_to_tf32 too
    from 3.8)."""
    import importlib
    import inspect
    import types
    driver = importlib.import_module(f"triton.backends.{'amd' if backend == 'hip' else 'nvidia'}.driver")
    make = getattr(driver, "make_tensordesc_arg", None)
    if make is None:
        return 0
    probe = types.SimpleNamespace(base=0, shape=[1], strides=[1], padding="zero", round_f32_to_tf32=False)
    extra = [None] * (len(inspect.signature(make).parameters) - 2)
    return len(make(probe, None, *extra)) - 5  # base, shape, strides, flags, shape, strides


def compile(file, module, function, search_path, request_json):
    import triton
    from triton.compiler import make_backend
    started = time.perf_counter()
    request = json.loads(request_json)
    kernel = load_kernel(file, module, function, list(search_path))
    fn = kernel.fn
    signature = _in_tritons_names(fn, dict(zip(fn.arg_names, (_tuplify(t) for t in request["signature"]))))
    kernel_module = sys.modules.get(getattr(kernel.fn, "__module__", None) or "")
    constexprs = {_path(i): _untag_value(v, kernel_module) for i, v in request["constexprs"].items()}
    attrs = {_path(i): [list(a) for a in v] for i, v in request["attrs"].items()}
    target = gpu_target(request["target"])
    backend = make_backend(target)
    options = _options(backend, request["options"], fn)
    options.update(_extra_options(backend, request.get("extra_options", {})))
    source = _make_source(fn, signature, constexprs, attrs)
    loaded = time.perf_counter()
    try:
        compiled = triton.compile(source, target=target, options=options)
    except OSError as error:
        problem = _triton_cache_problem(error)
        if problem is None:
            raise
        raise RuntimeError(problem) from None
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
    # The scratch pointers the compiled kernel takes after its own parameters: global scratch
    # since 3.2, profile scratch since 3.5; the metadata of each version has the fields of those
    # it declares, as its own launcher reads them.
    out["scratch_params"] = int("global_scratch_size" in metadata) + int("profile_scratch_size" in metadata)
    if target.backend == "hip":  # AMD's launcher passes a global scratch pointer whatever the metadata says
        out["scratch_params"] = 1 + int("profile_scratch_size" in metadata)
    if any(isinstance(t, str) and t.startswith("tensordesc") for t in signature.values()):
        out["descriptor_flags"] = _descriptor_flags(target.backend)
    out["triton_version"] = triton.__version__
    out["triton_dir"] = triton_dir()
    out["arch"] = str(target.arch)
    out["phase_seconds"] = {"import": loaded - started, "compile": time.perf_counter() - loaded}
    binary = bytes(compiled.asm["hsaco" if target.backend == "hip" else "cubin"])
    sources = list(kernel.sources)
    for path, text in _passed_function_sources(request["constexprs"]):
        if all(path != known for known, _ in sources):
            sources.append((path, text))
    return binary, json.dumps(out), sources, _ir_texts(compiled) if request.get("keep_ir") else []


def _triton_cache_directory():
    import triton
    knobs = getattr(triton, "knobs", None)
    directory = getattr(getattr(knobs, "cache", None), "dir", None) if knobs is not None else None
    if directory:
        return directory
    return os.environ.get("TRITON_CACHE_DIR") or os.path.join(os.path.expanduser("~"), ".triton", "cache")


def _triton_cache_problem(error):
    """What to say when Triton cannot use its own cache directory (an unwritable or odd HOME):
    its traceback names neither the directory's role nor the variable that moves it. None for
    other OS errors."""
    try:
        cache = os.path.abspath(_triton_cache_directory())
    except Exception:
        return None
    path = os.path.abspath(getattr(error, "filename", None) or "/\0")
    if not (cache == path or cache.startswith(path + os.sep) or path.startswith(cache + os.sep)):
        return None
    return (f"Triton could not use its own cache directory '{cache}' ({error.strerror or error}: '{path}'); set "
            "TRITON_CACHE_DIR to a writable directory (Triton keeps its intermediate files there; triton_jit's own "
            "cache is TRITON_JIT_CACHE_DIR)")


def _ir_texts(compiled):
    """The compile's text stages in the order Triton produced them: ttir, ttgir, llir, ptx or amdgcn."""
    return [[stage, text] for stage, text in compiled.asm.items() if isinstance(text, str) and stage != "source"]
