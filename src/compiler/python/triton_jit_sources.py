"""Kernel sources for triton_jit's compile script: loading kernels from snapshots of their text,
and finding every file whose text decides what is compiled for them.

The compile script (triton_jit_compile.py) reports those files, with the exact bytes it compiled
from, to the C++ side, which keys and validates its persistent cache with them. Loading and the
dependency walk share the snapshots, so they stay in one module (a little over 400 lines).
"""

import ast
import builtins
import contextlib
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import inspect
import os
import sys
import threading
import types

from triton_jit_files import SNAPSHOTS as _SNAPSHOTS
from triton_jit_files import framework as _framework
from triton_jit_files import module_file as _module_file
from triton_jit_files import remember as _remember
from triton_jit_files import source_bytes as _source_bytes
from triton_jit_files import user_module as _user_module
from triton_jit_values import ImportTimeValues


class KernelLookupError(Exception):
    """The kernel file, module or function cannot be found, or is not a Triton JIT function."""


class KernelImportError(Exception):
    """Importing a kernel's module raised: the message names the file, the line and the exception;
    the exception it comes from (`__cause__`) keeps the traceback."""


def _import_failure(where, path, error):
    """A KernelImportError for `error`, raised while importing `where` (a kernel file's path, or a
    module name) whose file is `path`: at the deepest line of code that is neither torch's, Triton's,
    this script's nor Python's own library, else at the deepest frame of the traceback."""
    import traceback
    line = None
    if isinstance(error, SyntaxError) and error.lineno is not None:
        place = f"line {error.lineno}" + ("" if os.path.realpath(error.filename or "") == path
                                         else f" of '{error.filename}'")
        text = error.msg
    else:
        frames = traceback.extract_tb(error.__traceback__)
        # The deepest frame of the kernel's or its library's code: the line to change is there,
        # not in torch or Triton, which raised on its behalf.
        theirs = [f for f in frames if not _is_runtime_file(f.filename)]
        frame = theirs[-1] if theirs else (frames[-1] if frames else None)
        in_path = frame is not None and path and os.path.realpath(frame.filename) == path
        place = "an unknown line" if frame is None else (
            f"line {frame.lineno}" + ("" if in_path else f" of '{frame.filename}'"))
        line = frame.line if frame is not None else None
        text = str(error)
    message = f"importing {where} failed at {place}: {type(error).__name__}: {text}"
    if line:
        message += f"\n    {line.strip()}"
    if isinstance(error, RuntimeError) and "active drivers" in text:
        message += "\n(the module asks Triton's GPU driver for something at import, and this machine has no GPU)"
    if isinstance(error, (RuntimeError, AssertionError)) and ("NVIDIA driver" in text or "CUDA driver" in text
                                                              or "Torch not compiled with CUDA" in text):
        message += ("\n(the module asks torch.cuda about the GPU while it is imported, and this machine has none: "
                    "compile its kernels on a machine with the GPU, or ship them there in a bundle made on one)")
    missing = getattr(error, "name", None) or ""
    if isinstance(error, ModuleNotFoundError) and missing.startswith("triton.experimental"):
        import triton
        message += (f"\n(the module uses Gluon, triton.experimental.gluon, which Triton {triton.__version__} does not "
                    "have: Gluon came with Triton 3.5)")
    return KernelImportError(message)


def _is_runtime_file(filename):
    """A file of torch, Triton, this compile script or Python's own library (<frozen ...> too)."""
    import sysconfig
    real = os.path.realpath(filename)
    if filename.startswith("<"):
        return True
    roots = [os.path.dirname(os.path.realpath(__file__)), os.path.realpath(sysconfig.get_paths()["stdlib"])]
    for name in ("torch", "triton"):
        module = sys.modules.get(name)
        if module is not None and getattr(module, "__file__", None):
            roots.append(os.path.dirname(os.path.realpath(module.__file__)))
    return any(real == root or real.startswith(root + os.sep) for root in roots)


# ---- loading kernels from snapshots of their sources -------------------------------------------
#
# Triton compiles a JIT function from the text `inspect.getsource` returns, which linecache reads
# from disk when first asked, possibly long after the module was imported. A file edited in
# between would be compiled in one version and recorded in another. So user modules imported on
# our behalf are compiled from bytes read once, those same bytes are given to linecache (with no
# mtime, so that it never re-reads them), and they are what we report. Framework and standard
# library modules are imported as usual.

_LOCK = threading.RLock()


def _after_fork_in_child():
    # The thread that held the lock at fork() does not exist in the child.
    global _LOCK
    _LOCK = threading.RLock()


os.register_at_fork(after_in_child=_after_fork_in_child)
_KERNELS = {}  # (file or module, function) -> _Kernel
_FILE_MODULES = {}  # real path of a kernel file -> its module
class _SnapshotLoader(importlib.machinery.SourceFileLoader):
    """Compiles a module from bytes read once, and records them (no bytecode cache)."""

    def get_code(self, fullname):
        path = self.get_filename(fullname)
        data = self.get_data(path)
        _remember(path, data)
        return builtins.compile(data, path, "exec", dont_inherit=True)


class _SnapshotFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path, target=None):
        if _framework(fullname):
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path, target)
        if spec is not None and type(spec.loader) is importlib.machinery.SourceFileLoader:
            spec.loader = _SnapshotLoader(spec.loader.name, spec.loader.path)
        return spec


class _Snapshots:
    """While active, user modules are imported through _SnapshotFinder."""

    finder = _SnapshotFinder()

    def __enter__(self):
        position = next((i for i, f in enumerate(sys.meta_path) if f is importlib.machinery.PathFinder),
                        len(sys.meta_path))
        sys.meta_path.insert(position, self.finder)

    def __exit__(self, *exc):
        sys.meta_path.remove(self.finder)


def _package_root(file_path):
    """(directory to put on sys.path, dotted module name) for a file inside packages, or a lone file."""
    directory, filename = os.path.split(file_path)
    parts = [os.path.splitext(filename)[0]]
    while os.path.isfile(os.path.join(directory, "__init__.py")):
        directory, package = os.path.split(directory)
        parts.insert(0, package)
    return directory, ".".join(parts)


def _import_file(file_path):
    module = _FILE_MODULES.get(file_path)
    if module is not None:
        return module
    if not os.path.isfile(file_path):
        raise KernelLookupError(f"kernel file '{file_path}' not found")
    root, dotted = _package_root(file_path)
    # A Python host that imported the package already keeps its module: importing it again would
    # replace the objects the host holds (its kernels, their autotuners' state) with copies.
    host = sys.modules.get(dotted) if "." in dotted else None
    if host is not None and _module_file(host) == os.path.realpath(file_path):
        _FILE_MODULES[file_path] = host
        return host
    with _Snapshots():
        if "." in dotted:
            if root not in sys.path:
                sys.path.insert(0, root)
            for name in [n for n in sys.modules if n == dotted or n.startswith(dotted + ".")]:
                del sys.modules[name]
            try:
                module = importlib.import_module(dotted)
            except KernelLookupError:
                raise
            except Exception as error:
                raise _import_failure(f"'{file_path}'", os.path.realpath(file_path), error) from error
        else:
            unique = "triton_jit_kernel_" + str(abs(hash(file_path)))
            loader = _SnapshotLoader(unique, file_path)
            spec = importlib.util.spec_from_file_location(unique, file_path, loader=loader)
            module = importlib.util.module_from_spec(spec)
            # Triton reads kernel sources through inspect, which needs the module registered.
            sys.modules[unique] = module
            directory = os.path.dirname(file_path)
            if directory not in sys.path:
                sys.path.insert(0, directory)
            try:
                loader.exec_module(module)
            except Exception as error:
                del sys.modules[unique]
                raise _import_failure(f"'{file_path}'", os.path.realpath(file_path), error) from error
            except BaseException:
                del sys.modules[unique]
                raise
    _FILE_MODULES[file_path] = module
    return module


def program_imported(file, module_name):
    """Whether the program running this interpreter imported the kernel's module itself (the
    module the runtime compiles from is then the program's)."""
    if module_name:
        return module_name in sys.modules
    root, dotted = _package_root(file)
    host = sys.modules.get(dotted) if "." in dotted else None
    return host is not None and _module_file(host) == os.path.realpath(file)


def _import_module(module_name, search_path):
    # A module that another thread is still importing is taken as it stands: its import may be
    # waiting for the thread that asked for this compile (a module that starts a thread to warm
    # up one of its kernels and joins it), and importing it again would wait for that import.
    # Triton's own launch uses the function object it is given, which exists already.
    partial = sys.modules.get(module_name)
    if partial is not None and getattr(getattr(partial, "__spec__", None), "_initializing", False):
        return partial
    for base in search_path:
        if base not in sys.path:
            sys.path.insert(0, base)
    try:
        with _Snapshots():
            return importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        if error.name is not None and (error.name == module_name or module_name.startswith(error.name + ".")):
            raise KernelLookupError(f"cannot import module '{module_name}': {error}") from None
        raise _import_failure(f"module '{module_name}'", _spec_file(module_name), error) from error
    except KernelLookupError:
        raise
    except Exception as error:
        raise _import_failure(f"module '{module_name}'", _spec_file(module_name), error) from error


def _spec_file(module_name):
    """The real path of a module's file, or "" where it has none (for messages)."""
    try:
        spec = importlib.util.find_spec(module_name)
    except Exception:
        return ""
    return os.path.realpath(spec.origin) if spec is not None and spec.origin else ""


def is_autotuner(wrapper):
    """@triton.autotune's wrapper, or a subclass of it (FlagGems' LibTuner): tuned as Triton's
    Autotuner tunes (its configs, key, prune, reset_to_zero, restore_value, hooks); what the
    subclass adds in Python (its own cache of choices, key strategies) is not run."""
    from triton.runtime.autotuner import Autotuner
    return isinstance(wrapper, Autotuner)


def _unwrap(obj, name):
    """The JIT function inside @triton.autotune / @triton.heuristics wrappers (or subclasses of
    them), and those wrappers from the outermost in. Other KernelInterface wrappers that hold the
    next one in `.fn` (FlagGems' LibEntry, a Python-side cache of launches) are followed and left
    out of the chain: launching from C++ does what they cache."""
    from triton.runtime.autotuner import Autotuner, Heuristics
    from triton.runtime.jit import JITFunction, KernelInterface
    chain = []
    current = obj
    while not isinstance(current, JITFunction):
        if isinstance(current, (Autotuner, Heuristics)):
            chain.append(current)
        elif not isinstance(current, KernelInterface):
            kind = type(current).__name__
            outer = "" if current is obj else f" (inside {type(obj).__name__})"
            raise KernelLookupError(f"'{name}' is not a Triton JIT function: it is a {kind}{outer}; decorate it with "
                                    "@triton.jit (wrappers of one are followed when they derive from Triton's "
                                    "KernelInterface and hold it in .fn)")
        inner = getattr(current, "fn", None)
        if inner is None:
            raise KernelLookupError(f"'{name}' wraps no Triton JIT function: its {type(current).__name__} has no .fn")
        current = inner
    return current, chain


class _Kernel:
    def __init__(self, obj, name):
        self.fn, self.chain = _unwrap(obj, name)
        dependencies = Dependencies(self)
        self.sources = dependencies.sources()
        self.values = dependencies.values.text()


def gpu_target(text):
    """Triton's GPUTarget for "cuda:90", "cuda:90a" or "hip:gfx942"."""
    from triton.backends.compiler import GPUTarget
    backend, _, arch = text.partition(":")
    if backend == "hip" and arch.startswith("gfx"):
        # A wavefront of 64 lanes on CDNA (gfx9), 32 on RDNA (gfx10 to gfx12), as Triton's AMD driver says.
        return GPUTarget("hip", arch, 32 if arch[3:5] in ("10", "11", "12") else 64)
    if backend != "cuda" or not arch:
        raise ValueError(f"unsupported target '{text}'; expected 'cuda:<arch>' or 'hip:<gfx>', for example cuda:90")
    return GPUTarget("cuda", int(arch.rstrip("a")), 32)


_COMPILE_ONLY_TARGET = "cuda:90"


def set_compile_only_target(text):
    """The target Triton's driver answers with while a kernel module imports on a machine without
    a GPU (the C++ side's configured one, TRITON_JIT_TARGET)."""
    global _COMPILE_ONLY_TARGET
    _COMPILE_ONLY_TARGET = text


class _CompileOnlyDriver:
    """Stands in for Triton's active driver while a kernel module is imported. Modules ask it for
    the target or the device at import (`DEVICE = triton.runtime.driver.active.get_active_torch_device()`,
    `is_hopper()` choosing configs), and Triton 3.3's @triton.autotune asks for its benchmarker.
    With a GPU every question goes to the real driver; without one (Triton finds no active driver)
    it answers as a compile for the configured target needs: that target, device 0, stream 0, a
    benchmarker that finds the real driver when it runs; anything else is an error naming what was
    asked. Nothing is asked of the real driver before the module asks: probing it imports torch."""

    _ANSWERED = ("get_current_target", "get_current_device", "get_current_stream", "get_active_torch_device",
                 "get_benchmarker", "set_current_device")

    def __init__(self):
        self._real = None
        self._missing = False

    def _driver(self):
        if self._real is None and not self._missing:
            from triton.runtime.driver import driver
            try:
                real = driver.default
                real.get_current_target  # Triton 3.3's default is a lazy proxy: made here, or raises
                self._real = real
            except RuntimeError:
                self._missing = True
        return self._real

    def __getattr__(self, name):
        if name == "get_benchmarker":  # asked at decoration by Triton 3.3: answered without probing
            return self._no_gpu_get_benchmarker
        real = self._driver()
        if real is not None:
            return getattr(real, name)
        if name in self._ANSWERED:
            return getattr(self, "_no_gpu_" + name)
        raise RuntimeError(f"the kernel module asks Triton's driver for '{name}' while it is imported, and this "
                           f"machine has no GPU; without one, {', '.join(self._ANSWERED)} are answered for the "
                           f"target {_COMPILE_ONLY_TARGET or '(none: TRITON_JIT_TARGET is not a target)'}")

    @staticmethod
    def _no_gpu_get_current_target():
        return gpu_target(_COMPILE_ONLY_TARGET)

    @staticmethod
    def _no_gpu_get_current_device():
        return 0

    @staticmethod
    def _no_gpu_set_current_device(device):
        pass

    @staticmethod
    def _no_gpu_get_current_stream(device=None):
        return 0

    @staticmethod
    def _no_gpu_get_active_torch_device():
        import torch
        return torch.device("cuda", 0)

    @staticmethod
    def _no_gpu_get_benchmarker():
        def bench(*args, **kwargs):
            from triton.runtime.driver import driver
            return driver.default.get_benchmarker()(*args, **kwargs)
        return bench


@contextlib.contextmanager
def _driver_for_import():
    """_CompileOnlyDriver as Triton's active driver while a module is imported; what was active
    before is put back as it was (reset_active() would probe the real driver)."""
    from triton.runtime.driver import driver
    # The attribute itself: Triton 3.4 and newer keep `_active` behind a property, which would
    # probe the real driver; 3.3 keeps `active` as a plain attribute.
    field = "_active" if "_active" in vars(driver) else "active"
    saved = vars(driver).get(field)
    driver.set_active(_CompileOnlyDriver())
    try:
        yield
    finally:
        setattr(driver, field, saved)


def load_kernel(file, module, function, search_path):
    key = (file or module, function)
    with _LOCK:
        kernel = _KERNELS.get(key)
        if kernel is not None:
            return kernel
        with _driver_for_import():
            if file:
                mod = _import_file(file)
                where = f"'{file}'"
            else:
                mod = _import_module(module, search_path)
                where = f"module '{module}'"
        if not function:
            raise KernelLookupError(f"no function name given for {where}")
        if not hasattr(mod, function):
            raise KernelLookupError(f"{where} has no function '{function}'")
        kernel = _Kernel(getattr(mod, function), function)
        _KERNELS[key] = kernel
        return kernel


# ---- what a kernel depends on ------------------------------------------------------------------


class Dependencies:
    """The files whose text decides what is compiled for a kernel: its own, those of every JIT
    function it calls (by name, or through any chain of modules: `lib.sub.fn`), of the modules
    its globals, constexpr defaults and decorator arguments come from (following `from x import
    y`, `import x as y` and `*` imports), and of the Python functions its decorators call."""

    def __init__(self, kernel):
        self.files = {}
        self.seen = set()
        self.imports = {}
        self.values = ImportTimeValues(self)
        fn = kernel.fn
        self.add_file(self.code_file(fn.fn))
        self.jit(fn)
        for wrapper in kernel.chain:
            for value in vars(wrapper).values():
                self.value(value)
            for value in getattr(wrapper, "values", {}).values():
                self.value(value)
        self.decorators(fn, kernel.chain)
        self.defaults(fn)

    def sources(self):
        return [(path, _source_bytes(path)) for path in self.files]

    # -- files
    @staticmethod
    def code_file(func):
        code = getattr(func, "__code__", None)
        path = getattr(code, "co_filename", None)
        if not path or path.startswith("<") or not os.path.exists(path):
            return None
        return os.path.realpath(path)

    def add_file(self, path):
        if path and path not in self.files and not path.startswith(_TRITON_DIR):
            self.files[path] = None

    def add_module(self, module):
        if _user_module(module):
            self.add_file(_module_file(module))

    def add_code(self, func, module):
        """The file a function's code was read from; for code made by exec() or compile() of a
        string ("<string>"), the file of the module that made it, whose text holds that string."""
        path = self.code_file(func)
        if path is not None:
            self.add_file(path)
        elif module is not None:
            self.add_module(module)

    # -- where a module's global name comes from
    def import_map(self, module):
        name = module.__name__
        if name in self.imports:
            return self.imports[name]
        names, stars = {}, []
        self.imports[name] = (names, stars)
        path = _module_file(module)
        try:
            tree = ast.parse(_source_bytes(path)) if path else None
        except (SyntaxError, ValueError):
            tree = None
        package = getattr(module, "__package__", None) or ""
        for node in ast.walk(tree) if tree is not None else ():
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        names[alias.asname] = (alias.name, None)
                    else:
                        top = alias.name.partition(".")[0]
                        names[top] = (top, None)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    try:
                        base = importlib.util.resolve_name("." * node.level + base, package)
                    except (ImportError, ValueError):
                        continue
                for alias in node.names:
                    if alias.name == "*":
                        stars.append(base)
                    else:
                        names[alias.asname or alias.name] = (base, alias.name)
        return names, stars

    def origin(self, module, name, depth=0):
        if module is None or depth > 16 or not _user_module(module):
            return
        names, stars = self.import_map(module)
        if name in names:
            source_name, attr = names[name]
            source = sys.modules.get(source_name)
            self.add_module(source)
            if attr is not None:
                self.add_module(sys.modules.get(f"{source_name}.{attr}"))
                self.origin(source, attr, depth + 1)
            return
        for star in stars:
            source = sys.modules.get(star)
            if source is not None and hasattr(source, name):
                self.add_module(source)
                self.origin(source, name, depth + 1)
                return

    # -- values
    def value(self, value):
        from triton.runtime.jit import JITFunction
        from triton.runtime.jit import KernelInterface
        if isinstance(value, (JITFunction, KernelInterface)) or type(value).__name__ == "JITCallable":
            self.jit(value)
        elif isinstance(value, types.FunctionType):
            self.python(value)
        elif isinstance(value, types.ModuleType):
            self.add_module(value)
        elif isinstance(value, (list, tuple)):
            for item in value[:1024]:
                self.value(item)
        elif isinstance(value, dict):
            for item in list(value.values())[:1024]:
                self.value(item)

    def jit(self, fn):
        while not hasattr(fn, "src") and hasattr(fn, "fn"):  # Autotuner / Heuristics
            fn = fn.fn
        if id(fn) in self.seen or not hasattr(fn, "fn"):
            return
        self.seen.add(id(fn))
        module = sys.modules.get(getattr(fn.fn, "__module__", None))
        self.add_code(fn.fn, module)
        scope = dict(fn.fn.__globals__)
        if fn.fn.__closure__:
            scope.update(zip(fn.fn.__code__.co_freevars, (c.cell_contents for c in fn.fn.__closure__)))
        try:
            tree = fn.parse() if hasattr(fn, "parse") else ast.parse(fn.src)
        except (SyntaxError, ValueError, AssertionError):
            return
        local = {a.arg for a in ast.walk(tree) if isinstance(a, ast.arg)}
        local.update(n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store))
        self.walk(tree, scope, module, local)

    def python(self, func):
        if id(func) in self.seen or _framework(getattr(func, "__module__", None)):
            return
        self.seen.add(id(func))
        module = sys.modules.get(getattr(func, "__module__", None))
        self.add_code(func, module)
        scope = func.__globals__
        codes = [func.__code__]
        names = set()
        while codes:
            code = codes.pop()
            names.update(code.co_names)
            codes.extend(c for c in code.co_consts if isinstance(c, types.CodeType))
        for name in names:
            if name in scope:
                self.origin(module, name)
                value = scope[name]
                self.values.read_global(module, name, value)
                self.value(value)
                if isinstance(value, types.ModuleType):
                    for attr in names:
                        if hasattr(value, attr):
                            self.origin(value, attr)
                            self.value(getattr(value, attr))

    def walk(self, tree, scope, module, local=frozenset()):
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                if node.id in scope and node.id not in local:
                    self.origin(module, node.id)
                    self.values.read_global(module, node.id, scope[node.id])
                    self.value(scope[node.id])
            elif isinstance(node, ast.Attribute):
                chain = []
                current = node
                while isinstance(current, ast.Attribute):
                    chain.append(current.attr)
                    current = current.value
                if not isinstance(current, ast.Name) or current.id not in scope or current.id in local:
                    continue
                obj = scope[current.id]
                for attr in reversed(chain):
                    owner = obj if isinstance(obj, types.ModuleType) else None
                    if owner is not None:
                        self.add_module(obj)
                        self.origin(obj, attr)
                        self.add_module(sys.modules.get(f"{obj.__name__}.{attr}"))
                    try:
                        obj = getattr(obj, attr)
                    except Exception:
                        break
                    if owner is not None and _user_module(owner):
                        self.values.read_global(owner, attr, obj)
                    self.value(obj)

    def definition(self, fn):
        """The kernel's `def` in its file's text, or None."""
        path = self.code_file(fn.fn)
        try:
            tree = ast.parse(_source_bytes(path)) if path else None
        except (SyntaxError, ValueError):
            return None
        first_line = fn.fn.__code__.co_firstlineno
        for node in ast.walk(tree) if tree is not None else ():
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == fn.__name__:
                if first_line in [node.lineno] + [d.lineno for d in node.decorator_list]:
                    return node
        return None

    def decorators(self, fn, chain):
        """Names in the decorator expressions of the kernel's definition; what the decorators
        were given, when an expression is computed at import rather than written out."""
        module = sys.modules.get(getattr(fn.fn, "__module__", None))
        node = self.definition(fn)
        for decorator in node.decorator_list if node is not None else ():
            self.walk(decorator, fn.fn.__globals__, module)
            self.values.import_time_expression(decorator, module, f"@{fn.__name__}", _decorated_state(chain))

    def defaults(self, fn):
        """The kernel's parameter defaults, evaluated when it was defined."""
        module = sys.modules.get(getattr(fn.fn, "__module__", None))
        node = self.definition(fn)
        if node is None:
            return
        positional = node.args.posonlyargs + node.args.args
        pairs = list(zip(positional[len(positional) - len(node.args.defaults):], node.args.defaults))
        pairs += [(a, d) for a, d in zip(node.args.kwonlyargs, node.args.kw_defaults) if d is not None]
        defaults = {p.name: p.default for p in getattr(fn, "params", ()) if getattr(p, "has_default", False)}
        for arg, default in pairs:
            self.values.import_time_expression(default, module, f"{fn.__name__}({arg.arg}=)", defaults.get(arg.arg))


def _decorated_state(chain):
    """What the autotune and heuristics decorators hold that a compile depends on."""
    state = []
    for wrapper in chain:
        if hasattr(wrapper, "configs"):
            state.append(("autotune", list(wrapper.configs), list(getattr(wrapper, "keys", []) or []),
                          getattr(wrapper, "arg_names", None)))
        else:
            state.append(("heuristics", sorted(getattr(wrapper, "values", {}))))
    return state


def triton_dir():
    import triton
    return os.path.dirname(os.path.realpath(triton.__file__))


_TRITON_DIR = triton_dir() + os.sep
