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
import re
import sys
import types

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


def _jit_function_of(fn):
    """The JITFunction under Triton's wrappers (Autotuner -> Heuristics -> JITFunction), or None."""
    from triton.runtime.jit import JITFunction
    for _ in range(16):
        if isinstance(fn, JITFunction):
            return fn
        fn = getattr(fn, "fn", None)
    return None


def _programs_own(path, name):
    """The program's own JITFunction of a kernel spec, when the program imported its module: a
    launch then checks its globals as Triton does (Note [Globals changed at run time])."""
    module_name, colon, function = str(path).partition(":")
    if colon and not name:
        module = sys.modules.get(module_name)
        return _jit_function_of(getattr(module, function, None)) if module is not None else None
    return None


def load(path, name=""):
    """The kernel `name` of a .py file (absolute, or relative to the runtime's kernel search path),
    or of "package.module:function" (then name may be left out)."""
    key = (str(path), name)
    kernel = _KERNELS.get(key)
    if kernel is None:
        kernel = Kernel(str(path), name)
        watched = _programs_own(path, name)
        if watched is not None:
            kernel._watch(watched)
        kernel = _KERNELS.setdefault(key, kernel)
    return kernel


def _constexpr_expression(value):
    """The Python expression that makes a constexpr value again (Note [Constexpr expressions] in
    src/python_entry/arguments.cpp; the compile script evaluates it in the kernel's module): a
    triton.language dtype ("tl.float16"), a torch dtype ("torch.float16"), an integer, an object
    whose repr rebuilds an equal one (Gluon's layouts, numbers, None); None for anything else."""
    import triton.language as tl
    if isinstance(value, tl.dtype):
        name = value.name
        for attribute in (name, name.replace("fp", "float", 1), name.replace("bf", "bfloat", 1)):
            if getattr(tl, attribute, None) == value:
                return f"tl.{attribute}"
        return None
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(value, torch.dtype):
        return str(value)
    for kind in (bool, int, float, str):  # their subclasses (numpy's float64) as the Python value
        if isinstance(value, kind):
            return repr(kind(value))
    if value is None:
        return "None"
    text = repr(value)
    scope = {"tl": tl, "triton": sys.modules["triton"]}
    try:
        from triton.experimental import gluon
        from triton.experimental.gluon import language as gl
        scope.update(gluon=gluon, gl=gl)
    except ImportError:
        pass
    if torch is not None:
        scope["torch"] = torch
    gl = scope.get("gl")
    for candidate in (text, _through_gl(text, gl) if gl is not None else text):
        try:
            if eval(candidate, scope) == value:  # noqa: S307  (the object's own repr)
                return candidate
        except Exception:
            pass
    return None


_CALLED_NAME = re.compile(r"(?<![\w.])([A-Za-z_]\w*)\(")


def _through_gl(text, gl):
    """A repr with each class of Gluon's language it calls named through `gl.`: Gluon's layouts
    name their classes bare (`SliceLayout(dim=0, parent=BlockedLayout(...))`)."""
    return _CALLED_NAME.sub(lambda m: f"gl.{m.group(0)}" if isinstance(getattr(gl, m.group(1), None), type)
                            else m.group(0), text)


def _jit_function_spec(fn):
    """"module:name" of a @triton.jit function passed as an argument (a module-level name of its
    module, which the runtime imports to compile with it)."""
    function = _function_of(fn)
    module_name = getattr(function, "__module__", None)
    module = sys.modules.get(module_name) if module_name else None
    name = _bound_name(module, fn, function.__name__) if module is not None else None
    if name is None or module_name == "__main__":
        raise TypeError(f"triton_jit: the @triton.jit function {function.__name__} passed as an argument must be a "
                        f"module-level name of an importable module")
    return f"{module_name}:{name}"


def _bound_name(module, fn, name):
    """The name `module` binds `fn` to: its own name, or another that holds it (an alias)."""
    if getattr(module, name, None) is fn:
        return name
    for other, value in vars(module).items():
        if value is fn:
            return other
    return None


def jit(fn):
    """The runtime's launcher of a @triton.jit function object (or one wrapped in @triton.autotune
    and @triton.heuristics). A module-level kernel is read from its module as Triton would; one of
    the __main__ script from the script's file (keep the script's work under
    `if __name__ == "__main__":`); one defined inside a function from the object, with its closure."""
    if isinstance(fn, Kernel):
        return fn
    function = _function_of(fn)
    name = function.__name__
    module_name = getattr(function, "__module__", None)
    module = sys.modules.get(module_name) if module_name else None
    if "<locals>" in function.__qualname__:
        return load(f"{_nested_module(fn, function, name)}:{name}")
    if module is not None and module_name != "__main__":
        bound = _bound_name(module, fn, name)
        if bound is None:
            found = getattr(module, name, None)
            held = f"{module_name}.{name} is {type(found).__name__}" if found is not None else \
                f"{module_name} binds no name to it ({name} is not defined there)"
            raise TypeError(f"triton_jit.jit: {held}, not the object passed: pass the kernel (with its decorators) "
                            f"as a module-level name of its module, as calls use it")
        return load(f"{module_name}:{bound}")
    live = _live_module(fn, function, name) if module is None and module_name != "__main__" else None
    if live is not None:
        return load(f"{live}:{name}")
    source = inspect.getsourcefile(function)
    if source is None:
        raise TypeError(f"triton_jit.jit: {name} has no source file (a kernel defined in an interactive session)")
    return load(source, name)


_NESTED = {}  # id(kernel object) -> (the object, its module's name)
_NESTED_BY_DEFINITION = {}  # (id(code), id(globals)) -> [(plain @triton.jit object, its module's name)]


def _alike(a, b):
    """Two values a closure or a default holds that compile alike: one object, or equal plain
    values (floats by their bits: -0.0 is not 0.0 to a kernel)."""
    if a is b:
        return True
    if type(a) is not type(b):
        return False
    if type(a).__name__ == "constexpr":
        return _alike(getattr(a, "value", a), getattr(b, "value", b))
    if isinstance(a, float):
        return a.hex() == b.hex()
    return isinstance(a, (bool, int, str)) and a == b


def _same_definition(a, b):
    """Two plain @triton.jit objects made by one `def` run again (a kernel defined in a function
    called more than once) that compile alike: the same code and globals, closures and defaults
    holding alike values, the same jit options. Decorated kernels are never taken as alike (their
    configs are new objects each time)."""
    from triton.runtime.jit import JITFunction
    if type(a) is not JITFunction or type(b) is not JITFunction:
        return False
    fa, fb = a.fn, b.fn
    if fa.__code__ is not fb.__code__ or fa.__globals__ is not fb.__globals__:
        return False
    cells_a, cells_b = fa.__closure__ or (), fb.__closure__ or ()
    defaults_a, defaults_b = fa.__defaults__ or (), fb.__defaults__ or ()
    try:
        if not all(_alike(x.cell_contents, y.cell_contents) for x, y in zip(cells_a, cells_b)):
            return False
    except ValueError:  # a cell not yet filled
        return False
    if len(defaults_a) != len(defaults_b) or not all(_alike(x, y) for x, y in zip(defaults_a, defaults_b)):
        return False
    options = ("do_not_specialize", "do_not_specialize_on_alignment", "debug", "noinline", "repr", "_repr",
               "launch_metadata", "version")
    return all(vars(a).get(o) == vars(b).get(o) for o in options)  # as given to @triton.jit


def _nested_module(fn, function, name):
    """The name of the module a kernel defined inside a function is compiled from: one made for
    that kernel object, holding its module's globals and binding `name` to the object. Triton
    compiles such a kernel with its closure (the enclosing function's values it reads); the
    compile script reads them from the object, and they are part of what the persistent cache
    keys it by (the kernel's dependencies record the closure's values), so two kernels made by
    one function with other values are two kernels. Each object is kept, as Triton keeps each
    object's compiled variants, except that a kernel whose `def` runs again (in a function called
    on every step) with alike values is the kernel made the first time: its variants are loaded
    once, not once per call."""
    held = _NESTED.get(id(fn))
    if held is not None and held[0] is fn:
        return held[1]
    scope = getattr(function, "__globals__", None) or {}
    definition = (id(function.__code__), id(scope))
    for earlier, alias in _NESTED_BY_DEFINITION.get(definition, ()):
        if _same_definition(earlier, fn):
            _NESTED[id(fn)] = (fn, alias)
            return alias
    where = str(scope.get("__name__") or "__main__").replace(".", "_")
    qualname = function.__qualname__.replace(".<locals>", "").replace(".", "_")
    # Named by what the closure holds, so that a later process making the same kernel finds it
    # in the persistent cache; another object of the same name in this process gets a suffix.
    base = f"_triton_jit_nested.{where}.{qualname}_{_closure_digest(function)}"
    alias, n = base, 1
    while alias in sys.modules:
        n += 1
        alias = f"{base}_{n}"
    module = types.ModuleType(alias)
    module.__dict__.update(scope)
    module.__name__ = alias
    setattr(module, name, fn)
    sys.modules[alias] = module
    _NESTED[id(fn)] = (fn, alias)
    _NESTED_BY_DEFINITION.setdefault(definition, []).append((fn, alias))
    return alias


def _closure_digest(function):
    """A short digest of the values a function's closure holds, the same in every process for the
    same values (what the persistent cache records of them is the compile script's business)."""
    import hashlib

    def text(value):
        inner = getattr(value, "value", value) if type(value).__name__ == "constexpr" else value
        if inner is None or isinstance(inner, (bool, int, float, str)):
            return repr(inner)
        target = getattr(inner, "fn", inner)
        if hasattr(target, "__qualname__"):
            return f"{type(inner).__qualname__}:{getattr(target, '__module__', '')}.{target.__qualname__}"
        shown = repr(inner)
        return shown if " at 0x" not in shown else type(inner).__qualname__

    cells = zip(function.__code__.co_freevars, function.__closure__ or ())
    parts = []
    for name, cell in cells:
        try:
            parts.append(f"{name}={text(cell.cell_contents)}")
        except ValueError:  # a cell not yet filled
            parts.append(f"{name}=<empty>")
    return hashlib.sha256(";".join(parts).encode()).hexdigest()[:12]


def _live_module(fn, function, name):
    """The name under which a kernel of a module the program made itself, outside sys.modules, is
    compiled from that module as the program holds it, or None. A library that generates kernels
    (FlagGems' pointwise_dynamic) writes a file, executes it as a module it keeps to itself and
    then rebinds that module's globals (the scalar function the kernel calls, and its module's
    names); Triton compiles the kernel with those globals, so executing the file again would not
    do. The module is entered in sys.modules under a private name, once."""
    scope = getattr(function, "__globals__", None)
    if not isinstance(scope, dict) or scope.get(name) is not fn or not scope.get("__name__"):
        return None
    alias = "_triton_jit_live." + scope["__name__"]
    held = sys.modules.get(alias)
    if held is None or getattr(held, name, None) is not fn:
        held = types.ModuleType(alias)
        held.__dict__.update(scope)
        held.__name__ = alias
        sys.modules[alias] = held
    return alias
