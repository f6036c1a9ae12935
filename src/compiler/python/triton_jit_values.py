"""Values a kernel reads that were computed when its modules were imported.

Triton compiles a kernel with the values of the globals it reads (and its decorators' arguments,
its constexpr defaults), and its runtime recompiles when one of them changes. The C++ side keys
its persistent cache with the texts of the files those values come from, which decides them only
when each value is written out in those texts, or computed from them alone. This module sorts
every value a kernel reads at import into the two kinds:

- *pinned by its sources*: the value's assignment, and everything that expression uses (names of
  its module, of modules it imports from, the bodies of the functions it calls) is made of
  literals, pure builtins, Triton's language and functions of user modules whose text is
  recorded. Each file it went through is added to the kernel's sources, so a changed text is a
  changed key.
- *computed at import*: anything else, for example a value read from the environment, a file, the
  machine (`torch.cuda...`, Triton's driver), or assigned under a condition. These are reported
  with a fingerprint of their value; a later process must import the module and find the same
  fingerprints before it trusts what was compiled with them (see Note [Values computed at import]
  in variant_builder.cpp).

The analysis is static and conservative: what it cannot show to be pinned counts as computed,
which costs a later process an import, never a stale binary.
"""

import ast
import builtins
import json
import os
import sys
import types

# Builtins whose result depends only on their arguments.
_PURE_BUILTINS = frozenset({
    "abs", "all", "any", "bin", "bool", "chr", "dict", "divmod", "enumerate", "filter", "float", "format",
    "frozenset", "getattr", "hasattr", "hex", "int", "isinstance", "issubclass", "iter", "len", "list", "map",
    "max", "min", "next", "object", "oct", "ord", "pow", "range", "repr", "reversed", "round", "set", "slice",
    "sorted", "str", "sum", "tuple", "type", "zip", "True", "False", "None", "NotImplemented", "Ellipsis",
    "property", "staticmethod", "classmethod", "super", "__name__",
})

# Framework and standard-library modules whose functions depend only on their arguments. Triton's
# runtime (the driver: which GPU this is) is not among them.
_PURE_MODULES = frozenset({"math", "cmath", "operator", "functools", "itertools", "enum", "typing", "dataclasses",
                           "collections", "numbers", "fractions", "string", "abc"})


def _pure_framework_module(name):
    if name == "triton" or name == "triton.language" or name.startswith("triton.language."):
        return True
    return name.partition(".")[0] in _PURE_MODULES


def fingerprint(value, depth=0):
    """A text that changes when the value does, the same in every process (no addresses)."""
    if depth > 16:
        return "..."
    if value is None or isinstance(value, (bool, int, str, bytes)):
        return repr(value)
    if isinstance(value, float):
        return value.hex()
    if isinstance(value, (list, tuple)):
        items = ",".join(fingerprint(v, depth + 1) for v in value[:4096])
        return f"{type(value).__name__}({items})"
    if isinstance(value, (set, frozenset)):  # in an order that does not depend on the hash seed
        return f"{type(value).__name__}(" + ",".join(sorted(fingerprint(v, depth + 1) for v in value)) + ")"
    if isinstance(value, dict):
        items = sorted((fingerprint(k, depth + 1), fingerprint(v, depth + 1)) for k, v in list(value.items())[:4096])
        return "dict(" + ",".join(f"{k}:{v}" for k, v in items) + ")"
    cls = type(value)
    if cls.__name__ == "constexpr" and hasattr(value, "value"):
        return f"constexpr({fingerprint(value.value, depth + 1)})"
    if cls.__name__ == "Config" and hasattr(value, "kwargs"):
        fields = {name: getattr(value, name) for name in ("num_warps", "num_stages", "num_ctas", "maxnreg")
                  if hasattr(value, name)}
        hook = getattr(value, "pre_hook", None)
        fields["pre_hook"] = getattr(hook, "__qualname__", None) if hook is not None else None
        return f"Config({fingerprint(dict(value.kwargs), depth + 1)},{fingerprint(fields, depth + 1)})"
    if isinstance(value, (types.FunctionType, types.BuiltinFunctionType, type)):
        return f"{getattr(value, '__module__', '')}.{getattr(value, '__qualname__', '')}"
    try:
        text = repr(value)
    except Exception:
        text = ""
    if " at 0x" in text:
        text = ""
    return f"{cls.__module__}.{cls.__qualname__}:{text}"


def _safe_fingerprint(value):
    try:
        return fingerprint(value)
    except Exception as error:  # a value whose repr or attributes raise: its type, and why
        return f"{type(value).__module__}.{type(value).__qualname__}:unreadable({type(error).__name__})"


class ImportTimeValues:
    """The values a kernel reads that its recorded sources do not decide. Uses the kernel's
    Dependencies walk (what names it reads, where they come from) and adds to its files those
    every pinned value was computed from."""

    def __init__(self, dependencies):
        from triton_jit_sources import _framework, _module_file, _source_bytes, _user_module
        self.deps = dependencies
        self._framework = _framework
        self._module_file = _module_file
        self._source_bytes = _source_bytes
        self._user_module = _user_module
        self.pure_names = {}  # (module name, name) -> bool
        self.pure_functions = {}  # id(code) -> bool
        self.assignments_of = {}  # module name -> {name: [(value node or None, conditional)]}
        self.computed = {}  # (module name, name) -> fingerprint

    def text(self):
        """The computed values as canonical JSON: [[module, name, fingerprint], ...], sorted."""
        return json.dumps(sorted([module, name, fp] for (module, name), fp in self.computed.items()),
                          separators=(",", ":"))

    def _label(self, module):
        # A kernel file imported on its own has a per-process module name (see _import_file).
        if module.__name__.startswith("triton_jit_kernel_"):
            return os.path.basename(self._module_file(module) or module.__name__)
        return module.__name__

    # -- what the kernel reads
    def read_global(self, module, name, value):
        """A global the kernel, a function it calls or a decorator reads by name."""
        if module is None or not isinstance(module, types.ModuleType) or self._skip(value):
            return
        if name.startswith("__") and name.endswith("__"):
            return  # __file__, __name__: where the module is, which its identity already says
        if not self._safely(self.pure_name, module, name):
            self.computed[(self._label(module), name)] = _safe_fingerprint(value)

    def import_time_expression(self, node, module, label, value):
        """An expression evaluated when the kernel was defined (a decorator, a parameter's
        default): when it is not pinned, its value is recorded under `label`."""
        if module is not None and not self._safely(self.pure_expression, node, module):
            self.computed[(self._label(module), label)] = _safe_fingerprint(value)

    @staticmethod
    def _safely(check, *args):
        """A check that meets something unexpected (a module whose attributes raise, a text that
        does not parse) answers "computed": an import later, never a stale binary."""
        try:
            return check(*args)
        except Exception:
            return False

    def _skip(self, value):
        """Values whose code is recorded as sources instead (functions, JIT functions, modules)."""
        from triton.runtime.jit import JITFunction, KernelInterface
        return isinstance(value, (types.ModuleType, types.FunctionType, types.BuiltinFunctionType, type, JITFunction,
                                  KernelInterface)) or type(value).__name__ == "JITCallable"

    # -- pinned or computed
    def pure_module(self, module):
        if self._user_module(module):
            self.deps.add_module(module)
            return True
        return _pure_framework_module(module.__name__)

    def pure_name(self, module, name):
        key = (module.__name__, name)
        known = self.pure_names.get(key)
        if known is not None:
            return known
        self.pure_names[key] = True  # a cycle of names is as pure as the rest of it
        result = self._pure_name(module, name)
        self.pure_names[key] = result
        return result

    def _pure_name(self, module, name):
        scope = vars(module)
        if name not in scope:
            return name in _PURE_BUILTINS or name.endswith(("Error", "Exception", "Warning"))
        if not self._user_module(module):
            return _pure_framework_module(module.__name__)
        value = scope[name]
        if isinstance(value, types.ModuleType):
            return self.pure_module(value)
        names, _ = self.deps.import_map(module)
        if name in names:  # imported: as pure as where it comes from
            source_name, attr = names[name]
            source = sys.modules.get(source_name)
            if source is None:
                return False
            if attr is None:
                return self.pure_module(source)
            if not self.pure_module(source):
                return False
            if isinstance(getattr(source, attr, None), types.ModuleType):
                return self.pure_module(getattr(source, attr))
            return self.pure_name(source, attr)
        if self._skip(value):
            return self.pure_callable(value)
        conditional_or_missing = True
        for node, conditional in self.assignments(module).get(name, ()):
            if conditional:
                return False
            conditional_or_missing = False
            if node is not None and not self.pure_expression(node, module):
                return False
        return not conditional_or_missing

    def pure_callable(self, value):
        """A function, class or JIT function a pinned expression uses."""
        if isinstance(value, types.ModuleType):
            return self.pure_module(value)
        module = sys.modules.get(getattr(value, "__module__", None) or "")
        if module is None or not self._user_module(module):
            return module is not None and _pure_framework_module(module.__name__)
        self.deps.add_module(module)
        if isinstance(value, types.FunctionType):
            self.deps.add_code(value, module)
            return self.pure_function(value.__code__, value.__globals__, module)
        return True  # a class, or a JIT function: its text is recorded

    def pure_function(self, code, scope, module):
        """A function whose globals (and the builtins it calls) are all pure. Attribute names
        share co_names with globals; those found in neither are attributes of local values."""
        key = id(code)
        if key in self.pure_functions:
            return self.pure_functions[key]
        self.pure_functions[key] = True
        result = True
        codes = [code]
        while codes and result:
            current = codes.pop()
            codes.extend(c for c in current.co_consts if isinstance(c, types.CodeType))
            for name in current.co_names:
                if name in scope:
                    if not self.pure_name(module, name):
                        result = False
                        break
                elif hasattr(builtins, name) and not (name in _PURE_BUILTINS or name.endswith(("Error", "Exception"))):
                    result = False  # open, eval, exec, input, __import__, globals, ...
                    break
        self.pure_functions[key] = result
        return result

    def pure_expression(self, node, module):
        bound = {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del))}
        for sub in ast.walk(node):
            if isinstance(sub, ast.Lambda):
                bound.update(a.arg for a in ast.walk(sub.args) if isinstance(a, ast.arg))
        called = {id(sub.func) for sub in ast.walk(node) if isinstance(sub, ast.Call)}
        for sub in ast.walk(node):
            if isinstance(sub, (ast.Await, ast.Yield, ast.YieldFrom)):
                return False
            if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load) and sub.id not in bound:
                if not self.pure_use(module, sub.id, id(sub) in called):
                    return False
            elif isinstance(sub, ast.Attribute) and not self.pure_attribute(sub, module, bound, id(sub) in called):
                return False
        return True

    def pure_use(self, module, name, called):
        """A name an expression uses. A function or class named but not called (a Config's
        pre_hook) only needs its text recorded; one that is called must be pure."""
        value = vars(module).get(name)
        if not called and self._skip(value) and not isinstance(value, types.ModuleType):
            return self.reference(value)
        return self.pure_name(module, name)

    def reference(self, value):
        module = sys.modules.get(getattr(value, "__module__", None) or "")
        if module is not None and self._user_module(module):
            self.deps.add_module(module)
            if isinstance(value, types.FunctionType):
                self.deps.add_code(value, module)
        return True

    def pure_attribute(self, node, module, bound, called):
        """`a.b.c` where `a` is a module: each module passed through must be pure, and the name
        reached in a user module pinned."""
        chain = []
        current = node
        while isinstance(current, ast.Attribute):
            chain.append(current.attr)
            current = current.value
        if not isinstance(current, ast.Name) or current.id in bound:
            return True  # an attribute of a value: that value is checked where it is named
        obj = vars(module).get(current.id)
        for attr in reversed(chain):
            if not isinstance(obj, types.ModuleType):
                return True
            if not self.pure_module(obj):
                return False
            if self._user_module(obj) and not isinstance(getattr(obj, attr, None), types.ModuleType):
                return self.pure_use(obj, attr, called and attr == chain[0])
            obj = getattr(obj, attr, None)
        return not isinstance(obj, types.ModuleType) or self.pure_module(obj)

    def assignments(self, module):
        """name -> [(assigned expression or None, whether under a condition, a loop or a function)]"""
        known = self.assignments_of.get(module.__name__)
        if known is not None:
            return known
        found = {}
        self.assignments_of[module.__name__] = found
        path = self._module_file(module)
        try:
            tree = ast.parse(self._source_bytes(path)) if path else None
        except (SyntaxError, ValueError):
            tree = None
        if tree is None:
            return found

        def targets(target):
            if isinstance(target, ast.Name):
                yield target.id
            elif isinstance(target, (ast.Tuple, ast.List)):
                for item in target.elts:
                    yield from targets(item)
            elif isinstance(target, ast.Starred):
                yield from targets(target.value)

        for statement in tree.body:
            if isinstance(statement, ast.Assign):
                for target in statement.targets:
                    for name in targets(target):
                        found.setdefault(name, []).append((statement.value, False))
            elif isinstance(statement, (ast.AnnAssign, ast.AugAssign)):
                for name in targets(statement.target):
                    found.setdefault(name, []).append((statement.value, False))
            elif not isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Import,
                                            ast.ImportFrom, ast.Expr)):
                for sub in ast.walk(statement):  # if, try, for, with: what they assign is conditional
                    if isinstance(sub, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.For, ast.With, ast.NamedExpr)):
                        for target in getattr(sub, "targets", None) or [getattr(sub, "target", None)]:
                            for name in targets(target):
                                found.setdefault(name, []).append((None, True))
            for sub in ast.walk(statement):
                if isinstance(sub, ast.Global):  # assigned inside a function too
                    for name in sub.names:
                        found.setdefault(name, []).append((None, True))
        return found
