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
import hashlib
import inspect
import json
import os
import re
import sys
import types

import triton_jit_files as files

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


def _environment_read_by(node, module):
    """The environment variables that the user functions an expression names read, with their
    values now: ";env(NAME=value,...)", or a digest of the whole environment when one reads it
    otherwise than by a constant name (iterates it, builds the name); "" when none reads it."""
    keys, everything = set(), False
    for sub in ast.walk(node):
        fn = vars(module).get(sub.id) if isinstance(sub, ast.Name) else None
        fn = getattr(fn, "__func__", fn)
        if not callable(fn) or not hasattr(fn, "__code__") or isinstance(fn, type):
            continue
        try:
            tree = ast.parse(inspect.cleandoc("\n" + inspect.getsource(fn)))
        except (OSError, TypeError, SyntaxError):
            everything = True
            continue
        uses = {id(n) for n in ast.walk(tree) if _is_environ(n)}
        for inner in ast.walk(tree):
            base, key = None, None
            if isinstance(inner, ast.Subscript) and _is_environ(inner.value):
                base, key = inner.value, inner.slice
            elif isinstance(inner, ast.Call) and inner.args and isinstance(inner.func, ast.Attribute) \
                    and inner.func.attr in ("get", "pop") and _is_environ(inner.func.value):
                base, key = inner.func.value, inner.args[0]
            elif isinstance(inner, ast.Call) and inner.args and (
                    (isinstance(inner.func, ast.Attribute) and inner.func.attr == "getenv")
                    or (isinstance(inner.func, ast.Name) and inner.func.id == "getenv")):
                key = inner.args[0]
            if key is None:
                continue
            if isinstance(key, ast.Constant) and isinstance(key.value, str):
                keys.add(key.value)
                uses.discard(id(base))
            else:
                everything = True
        everything = everything or bool(uses)
    if everything:
        return ";env(" + hashlib.sha256(repr(sorted(os.environ.items())).encode()).hexdigest()[:32] + ")"
    if not keys:
        return ""
    return ";env(" + ",".join(f"{k}={os.environ.get(k)!r}" for k in sorted(keys)) + ")"


def _is_environ(node):
    return (isinstance(node, ast.Attribute) and node.attr == "environ") or (isinstance(node, ast.Name) and node.id == "environ")


_TEXTS = {}  # path -> (mtime, size, bytes): module texts read once a process
_REBINDS = {}  # (path, mtime, size) -> {(module name, name or None for any)} the module rebinds


def _cached_text(path, read):
    try:
        stat = os.stat(path)
    except (OSError, TypeError):
        return b""
    known = _TEXTS.get(path)
    if known is None or known[:2] != (stat.st_mtime_ns, stat.st_size):
        known = (stat.st_mtime_ns, stat.st_size, read(path))
        _TEXTS[path] = known
    return known[2]


# What a rebinding _rebinds_of finds needs in a module's text, one of: globals() or vars()
# subscripted or updated, sys.modules[...], or a setattr on or an assignment (plain, augmented or
# annotated) to an attribute of a name an `import` statement binds.
# Most modules' texts have none, and are not parsed (a library of a thousand modules took half a
# minute to parse). Each assigned attribute (`.attr =`) is read back to its line's start, after
# backslash continuations are joined: its base name is a target where it opens the statement,
# follows `;` or `=`, or follows the colon of a compound statement's header (`if c: m.X = 1`).
_REBINDING_CALL = re.compile(rb"\b(?:globals|vars)\s*\([^\n]*?\)\s*(?:\[|\.\s*update\b)|\bmodules\s*\[")
_SETATTR_BASE = re.compile(rb"\bsetattr\s*\(\s*([A-Za-z_]\w*)\s*[,)]")  # setattr(module, ...)
_IMPORT_LIST = re.compile(rb"\bimport\s+([\w.]+(?:\s+as\s+\w+)?(?:\s*,\s*[\w.]+(?:\s+as\s+\w+)?)*)")
_ASSIGNED_ATTRIBUTE = re.compile(
    rb"\.[ \t]*[A-Za-z_]\w*[ \t]*\)*[ \t]*(?::[^\n=]*=(?!=)|(?:[-+*/%&|^@]|//|>>|<<|\*\*)?=(?!=))")
_BASE = re.compile(rb"([A-Za-z_]\w*)[ \t]*$")
_COMPOUND_HEADER = re.compile(rb"[ \t]*(?:if|elif|else|for|while|with|try|except|finally|def|class|async|match|case)\b")


def _opens_target(line, base_start):
    """Whether the name at line[base_start:] is an assignment's target: what comes before it."""
    before = line[:base_start].rstrip(b" \t(")
    if not before or before.endswith((b";", b"=")):
        return True
    if not before.endswith(b":") or not _COMPOUND_HEADER.match(line):
        return False
    header = before[:-1]  # the colon that ends a header is outside every bracket
    return sum(header.count(c) for c in b"([{") == sum(header.count(c) for c in b")]}")


def _may_rebind(text):
    """False when `text` holds nothing _rebinds_of would find (a superset test: True may find none)."""
    if _REBINDING_CALL.search(text):
        return True
    text = text.replace(b"\\\r\n", b" ").replace(b"\\\n", b" ")
    targets = set(_SETATTR_BASE.findall(text))
    for assigned in _ASSIGNED_ATTRIBUTE.finditer(text):
        line = text[text.rfind(b"\n", 0, assigned.start()) + 1:assigned.start()].rstrip(b" \t)")  # (m).X = 1
        base = _BASE.search(line)
        if base is not None and _opens_target(line, base.start()):
            targets.add(base.group(1))
    if not targets:
        return False
    imported = set()
    for names in _IMPORT_LIST.findall(text):
        for item in names.split(b","):
            words = item.split()
            imported.add(words[-1] if len(words) == 3 else words[0].split(b".")[0])
    return not targets.isdisjoint(imported)


def _rebinds_of(module, path, text, import_map):
    """The globals of modules that `module`'s code rebinds outside their assignments."""
    key = (path,) + _TEXTS.get(path, (0, 0, b""))[:2]
    known = _REBINDS.get(key)
    if known is not None:
        return known
    found = set()
    _REBINDS[key] = found
    if not _may_rebind(text):
        return found
    tree = ast.parse(text)
    own = module.__name__
    imported = set()  # names `import` statements bind, gathered in the same walk
    names = None  # the import map (another parse of the text), read only when one is used

    def module_named(node):
        """The module an expression names: an imported module, sys.modules[...] or this one."""
        nonlocal names
        if isinstance(node, ast.Name) and node.id in imported:
            if names is None:
                names = import_map(module)[0]
            return names[node.id][0] if node.id in names and names[node.id][1] is None else None
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "modules":
            key = node.slice
            if isinstance(key, ast.Name) and key.id == "__name__":
                return own
            if isinstance(key, ast.Constant) and isinstance(key.value, str):
                return key.value
            return ""  # a module chosen at run time: any
        return None

    def on_module(node, attr):
        where = module_named(node)
        if where is not None:
            found.add((where, attr) if where else ("", None))

    named = []  # (expression that may name a module, the attribute set on it), once imports are known
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported.update(alias.asname or alias.name.partition(".")[0] for alias in node.names)
        targets = []
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        for target in targets:
            if isinstance(target, ast.Attribute):
                named.append((target.value, target.attr))
            elif isinstance(target, ast.Subscript) and isinstance(target.value, ast.Call) and \
                    isinstance(target.value.func, ast.Name) and target.value.func.id in ("globals", "vars"):
                key = target.slice
                found.add((own, key.value) if isinstance(key, ast.Constant) else (own, None))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "setattr" \
                and len(node.args) >= 2:
            key = node.args[1]
            named.append((node.args[0], key.value if isinstance(key, ast.Constant) else None))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "update" \
                and isinstance(node.func.value, ast.Call) and isinstance(node.func.value.func, ast.Name) \
                and node.func.value.func.id in ("globals", "vars"):
            found.add((own, None))
    for node, attr in named:
        on_module(node, attr)
    return found


def _is_config(func):
    """triton.Config / Config as a call's callee."""
    return (isinstance(func, ast.Attribute) and func.attr == "Config") or (isinstance(func, ast.Name) and func.id == "Config")


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
    if type(value).__name__ in ("JITFunction", "GluonJITFunction", "JITCallable") and hasattr(value, "fn"):
        return "jit:" + fingerprint(value.fn, depth + 1)
    if isinstance(value, (types.FunctionType, types.BuiltinFunctionType, type)):
        module = getattr(value, "__module__", "") or ""
        if module.startswith("triton_jit_kernel_"):  # a kernel file's module: its name is per process
            code = getattr(value, "__code__", None)
            module = os.path.basename(code.co_filename) if code is not None else "kernel file"
        return f"{module}.{getattr(value, '__qualname__', '')}"
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


_MISSING = object()


class _SourceNames(dict):
    """The names a pinned expression reads, bound as a fresh import would bind them."""

    def __init__(self, values, module, depth):
        super().__init__()
        self._values, self._module, self._depth = values, module, depth

    def __missing__(self, name):
        value = self._values.source_value(self._module, name, self._depth)
        self[name] = value
        return value


class ImportTimeValues:
    """The values a kernel reads that its recorded sources do not decide. Uses the kernel's
    Dependencies walk (what names it reads, where they come from) and adds to its files those
    every pinned value was computed from."""

    def __init__(self, dependencies):
        self.deps = dependencies
        self._framework = files.framework
        self._module_file = files.module_file
        self._source_bytes = files.source_bytes
        self._user_module = files.user_module
        self.pure_names = {}  # (module name, name) -> bool
        self.pure_functions = {}  # id(code) -> bool
        self.assignments_of = {}  # module name -> {name: [(value node or None, conditional)]}
        self.computed = {}  # (module name, name) -> fingerprint
        self.source_values = {}  # (module name, name) -> what a fresh import binds
        self.rebinds = {}  # module name -> {(module name, name or None)} code of this process rebinds

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
        if module is None or not isinstance(module, types.ModuleType):
            return
        if name.startswith("__") and name.endswith("__"):
            return  # __file__, __name__: where the module is, which its identity already says
        user = self._safely(self._user_module, module)
        if self._skip(value):
            # A function's text is recorded; which function the name holds is the module's choice
            # (`helper = fast if os.environ.get(...) else slow`), pinned only by a def or a pure
            # assignment.
            if user and not self._safely(self.pure_binding, module, name):
                self.computed[(self._label(module), name)] = _safe_fingerprint(value)
            return
        if not self._safely(self.pure_name, module, name) or (
                user and not self._safely(self.as_assigned, module, name, value)):
            self.computed[(self._label(module), name)] = _safe_fingerprint(value)

    def import_time_expression(self, node, module, label, value):
        """An expression evaluated when the kernel was defined (a decorator, a parameter's
        default): when it is not pinned, its value is recorded under `label`, with the environment
        variables its functions read when they run later (a prune function reading os.environ
        decides at tuning time, where the value itself does not change)."""
        if module is not None and not self._safely(self.pure_expression, node, module):
            self.computed[(self._label(module), label)] = (_safe_fingerprint(value)
                                                           + _environment_read_by(node, module))

    # Note [Globals changed at run time] (src/python_entry/launch.cpp has the launch's side)
    # A global whose assignment is pinned by its module's text may still hold another value: the
    # program set it (module.FACTOR = 3), another module patched it at import, or globals()[...] or
    # setattr() rebound it. Its value is then not what the text says, and a binary compiled with it
    # must not be found by the text alone. So a pinned global counts as pinned only while it holds
    # what a fresh import would give it: its one assignment evaluated again, with every name it
    # uses bound the same way (a pinned expression has no side effects to repeat).
    def as_assigned(self, module, name, value):
        return _safe_fingerprint(self.source_value(module, name)) == _safe_fingerprint(value)

    def source_value(self, module, name, depth=0):
        """What importing `module` afresh binds to `name` (for a name the analysis pinned)."""
        if depth > 32:
            raise RecursionError(name)
        key = (module.__name__, name)
        if key in self.source_values:
            return self.source_values[key]
        scope = vars(module)
        value = scope.get(name, _MISSING)
        if isinstance(value, types.ModuleType) or (value is not _MISSING and self._skip(value)):
            found = value  # its text is recorded, not its value
        else:
            names, _ = self.deps.import_map(module)
            assigned = self.assignments(module).get(name, ())
            if name in names and not assigned:
                source_name, attr = names[name]
                source = sys.modules[source_name]
                found = source if attr is None else self.source_value(source, attr, depth + 1)
            elif not assigned and value is _MISSING and hasattr(builtins, name):
                found = getattr(builtins, name)
            elif len(assigned) != 1 or assigned[0][0] is None or assigned[0][1]:
                raise LookupError(f"{name} has no single assignment")
            else:
                # Its names, comprehensions' and lambdas' included, bound as a fresh import binds them.
                names_of = _SourceNames(self, module, depth + 1)
                names_of["__builtins__"] = builtins
                code = compile(ast.Expression(body=assigned[0][0]), "<pinned>", "eval")
                found = eval(code, names_of)  # noqa: S307  (pinned: no side effects)
        self.source_values[key] = found
        return found

    def rebound(self, module, name):
        """Whether code of a module this process imported may rebind `name` of `module` outside
        its assignments: `consts.FACTOR = ...` in another module, `globals()["FACTOR"] = ...`,
        `setattr(module, "FACTOR", ...)`. Such a name counts as computed even when today's
        rebinding left the value its assignment gives (a later process may not). Only modules
        whose text names `module` (or that rebind their own globals) are parsed, once a process."""
        found = self.rebinds.get(module.__name__)
        if found is None:
            short = module.__name__.rpartition(".")[2].encode()
            found = set()
            for other in list(sys.modules.values()):
                if not isinstance(other, types.ModuleType) or not self._safely(self._user_module, other):
                    continue
                path = self._module_file(other)
                text = _cached_text(path, self._source_bytes)
                if other is not module and short not in text:
                    continue
                found |= self._safely(_rebinds_of, other, path, text, self.deps.import_map) or set()
            self.rebinds[module.__name__] = found
        return bool({(module.__name__, name), (module.__name__, None), ("", None)} & found)

    def pure_binding(self, module, name):
        """A name holding a function, class or module: bound by def, class or import (pinned by
        the text), or assigned by a pure expression."""
        if self.rebound(module, name):
            return False
        for node, conditional in self.assignments(module).get(name, ()):
            if conditional or node is None or not self.pure_expression(node, module):
                return False
        names, _ = self.deps.import_map(module)
        if name in names and names[name][1] is not None:
            source = sys.modules.get(names[name][0])
            return source is None or not self._user_module(source) or self.pure_binding(source, names[name][1])
        return True

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
        if self.rebound(module, name):
            return False
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
        if isinstance(value, type):
            return self.pure_class(value, module)
        return True  # a JIT function: its text is recorded

    def pure_class(self, cls, module):
        """A user class used at import (constructed, or a method or attribute read): pure when its
        body's assignments and its methods are (a class attribute read from the environment, a
        classmethod that reads a file, are computed), and so are its user bases."""
        key = ("class", id(cls))
        if key in self.pure_functions:
            return self.pure_functions[key]
        self.pure_functions[key] = True
        result = all(self.pure_callable(base) for base in cls.__bases__ if base is not object)
        path = self._module_file(module)
        for attribute, member in list(vars(cls).items()) if result else ():
            member = getattr(member, "__func__", member)  # classmethod, staticmethod
            if isinstance(member, property):
                member = member.fget
            code = getattr(member, "__code__", None)
            if code is not None and os.path.realpath(code.co_filename) == path:  # not dataclass-generated
                if not self.pure_function(code, member.__globals__, module):
                    result = False
        if result:
            result = self._pure_class_body(cls, module)
        self.pure_functions[key] = result
        return result

    def _pure_class_body(self, cls, module):
        path = self._module_file(module)
        tree = ast.parse(self._source_bytes(path)) if path else None
        for node in ast.walk(tree) if tree is not None else ():
            if isinstance(node, ast.ClassDef) and node.name == cls.__name__:
                for statement in node.body:
                    if isinstance(statement, (ast.Assign, ast.AnnAssign)):
                        if statement.value is not None and not self.pure_expression(statement.value, module):
                            return False
                    elif not isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Expr, ast.Pass,
                                                    ast.ClassDef)):
                        return False  # an if, for, try or with in a class body: conditional
                return True
        return False  # not found in its module's text: nothing says what it holds

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
        # A function handed to a call (map(f, ...), functools.partial(f, ...), sorted(key=f)) runs
        # as surely as one called by name; a Config's hooks run around launches, translated.
        for sub in ast.walk(node):
            if isinstance(sub, ast.Call) and not _is_config(sub.func):
                handed = list(sub.args) + [k.value for k in sub.keywords if k.arg not in ("pre_hook", "post_hook")]
                for arg in handed:  # prune_configs_by={"early_config_prune": prune}: in a literal too
                    called.add(id(arg))
                    if isinstance(arg, (ast.Dict, ast.List, ast.Tuple, ast.Set)):
                        called.update(id(e) for e in (arg.values if isinstance(arg, ast.Dict) else arg.elts))
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
        """A name an expression uses. A function named but not called (a Config's pre_hook) only
        needs its text recorded; one that is called must be pure, and so must a class (its
        attributes and methods are read through it)."""
        value = vars(module).get(name)
        if not called and self._skip(value) and not isinstance(value, (types.ModuleType, type)):
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
