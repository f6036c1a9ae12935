"""Translation of @triton.autotune hooks (a Config's pre_hook, the autotuner's pre_hook and
post_hook) into actions that triton_jit's C++ side runs around each launch without Python
(src/encoding/hook_program.h is the runner).

Real libraries write hooks for two jobs: giving the host-side TensorDescriptors of a call the
block shape the chosen config tiles by, and zeroing (or copying into) a tensor that the kernel
accumulates into. A hook is translated into a list of actions, each guarded by an expression
program (triton_jit_heuristics' instruction set) over the same arguments a Python hook sees:

    {"do": "block_shape", "param": i, "shape": [program, ...], "when": program | null}
    {"do": "zero", "param": i, "when": ...}               nargs[name].zero_() or .fill_(0)
    {"do": "copy", "param": i, "from": j, "when": ...}    nargs[name].copy_(nargs[other])

The body may bind local names to expressions (BLOCK_M = nargs["BLOCK_M"]), read arguments with
nargs["x"] or nargs.get("x", default), branch with if / else, return early, test
isinstance(nargs["x"], TensorDescriptor) (or torch.Tensor) and `nargs["x"] is None`, and loop (a for statement or a
comprehension) over a constant list of names, as flash-attention's init_to_zero does. Anything
else is reported with the line it cannot translate, and the C++ side refuses the kernel at load:
a hook is never skipped silently.
"""

import ast
import copy
import inspect

import triton_jit_heuristics as heuristics

_WHAT_RUNS = ("a hook may set nargs[name].block_shape from the call's and the config's values, and zero_(), "
              "fill_(0) or copy_() a tensor argument, under if / else over those values")


class _Untranslatable(Exception):
    def __init__(self, node, why):
        super().__init__(why)
        self.node = node


class _Substitute(ast.NodeTransformer):
    """Replaces local names by the expressions bound to them."""

    def __init__(self, bound):
        self.bound = bound

    def visit_Name(self, node):
        if isinstance(node.ctx, ast.Load) and node.id in self.bound:
            return copy.deepcopy(self.bound[node.id])
        return node


def _not(expr):
    return ast.UnaryOp(op=ast.Not(), operand=expr)


def _and(a, b):
    if a is None:
        return b
    if b is None:
        return a
    return ast.BoolOp(op=ast.And(), values=[a, b])


def _or(a, b):
    return ast.BoolOp(op=ast.Or(), values=[a, b])


_FALSE = ast.Constant(value=False)


def _is_false(expr):
    return isinstance(expr, ast.Constant) and expr.value is False


class _ExpressionTranslator(heuristics._Translator):
    """Expressions of a hook: a heuristic's, plus nargs.get()."""

    def x_Call(self, node):
        func = node.func
        if (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == self.arg
                and func.attr == "get" and 1 <= len(node.args) <= 2 and not node.keywords
                and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
            name = node.args[0].value
            if name in self.params:
                return self.emit("arg", self.params[name])
            return self.expression(node.args[1]) if len(node.args) == 2 else self.emit("none")
        return super().x_Call(node)


# A name a loop over nothing left unbound: reading it is Python's NameError, so it is refused.
_UNBOUND = ast.Call(func=ast.Name(id="__unbound__", ctx=ast.Load()), args=[], keywords=[])


class _HookTranslator:
    def __init__(self, fn, params, arg_name, defaults=None):
        self.fn = fn
        self.params = params
        self.arg = arg_name
        self.scope = dict(fn.__globals__)
        if fn.__closure__:
            self.scope.update(zip(fn.__code__.co_freevars, (c.cell_contents for c in fn.__closure__)))
        # The hook's other parameters hold their defaults (Triton passes only the arguments'
        # dict): they shadow module globals of the same name.
        self.bound = dict(defaults or {})
        self.actions = []

    # -- helpers
    def substituted(self, node):
        return _Substitute(self.bound).visit(copy.deepcopy(node))

    def program(self, node):
        translator = _ExpressionTranslator(self.fn, self.params, self.arg)
        try:
            translator.expression(self.substituted(node))
        except heuristics.Untranslatable as why:
            raise _Untranslatable(node, str(why))
        return translator.program

    def argument(self, node):
        node = self.substituted(node)
        if (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == self.arg
                and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str)):
            name = node.slice.value
            if name not in self.params:
                raise _Untranslatable(node, f"it names nargs['{name}'], which is not a parameter of the kernel")
            return self.params[name]
        return None

    def constant_names(self, node):
        """The values of a loop's iterable: a constant list or tuple of parameter names."""
        if isinstance(node, (ast.List, ast.Tuple)) and all(isinstance(e, ast.Constant) for e in node.elts):
            values = [e.value for e in node.elts]
        else:
            try:
                values = heuristics._Translator(self.fn, self.params, self.arg).resolve(node)
            except Exception:
                raise _Untranslatable(node, "a loop over something other than a constant list of names")
        if not isinstance(values, (list, tuple)) or not all(isinstance(v, str) for v in values):
            raise _Untranslatable(node, "a loop over something other than a constant list of names")
        return values

    def guard_program(self, guard):
        return None if guard is None else self.program(guard)

    # -- statements; each returns the condition under which control falls through (None: always)
    def block(self, statements, guard):
        for statement in statements:
            guard = self.statement(statement, guard)
            if _is_false(guard):
                break  # the rest is unreachable
        return guard

    def statement(self, node, guard):
        if isinstance(node, ast.Pass):
            return guard
        if isinstance(node, ast.Expr):
            if isinstance(node.value, ast.Constant):  # a docstring
                return guard
            self.effect(node.value, guard)
            return guard
        if isinstance(node, ast.Return):
            if node.value is not None and not (isinstance(node.value, ast.Constant) and node.value.value is None):
                self.effect(node.value, guard)
            return _FALSE
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name):
                if guard is not None:
                    raise _Untranslatable(node, "a name bound inside an if")
                self.bound[target.id] = self.substituted(node.value)
                return guard
            if isinstance(target, ast.Attribute) and target.attr == "block_shape":
                param = self.argument(target.value)
                value = self.substituted(node.value)  # a list literal, or a name the hook bound to one
                if param is None or not isinstance(value, (ast.List, ast.Tuple)) or not value.elts:
                    raise _Untranslatable(node, "a block_shape that is not a list of values set on nargs['x']")
                self.actions.append({"do": "block_shape", "param": param, "shape": [self.program(e) for e in value.elts],
                                     "when": self.guard_program(guard)})
                return guard
        if isinstance(node, ast.If):
            test = self.substituted(node.test)
            entry_in, entry_out = _and(guard, test), _and(guard, _not(test))
            inside = self.block(node.body, entry_in)
            otherwise = self.block(node.orelse, entry_out)
            if inside is entry_in and otherwise is entry_out:
                return guard
            if _is_false(inside):
                return otherwise
            if _is_false(otherwise):
                return inside
            return _or(inside, otherwise)
        if isinstance(node, ast.For) and isinstance(node.target, ast.Name) and not node.orelse:
            # Unrolled as Python runs it: each iteration sees what the one before bound, and after
            # the loop its variable and the names its body bound hold the last iteration's values.
            values = self.constant_names(node.iter)
            for value in values:
                self.bound[node.target.id] = ast.Constant(value=value)
                after = self.block(node.body, guard)
                if after is not guard:
                    raise _Untranslatable(node, "a return or a break inside a loop")
            if not values:
                self.bound[node.target.id] = _UNBOUND
            return guard
        raise _Untranslatable(node, f"a {type(node).__name__} statement")

    def effect(self, node, guard):
        """An expression evaluated for what it does: a method call on an argument, or a
        comprehension of them."""
        if isinstance(node, (ast.ListComp, ast.GeneratorExp, ast.SetComp)) and len(node.generators) == 1:
            gen = node.generators[0]
            if not isinstance(gen.target, ast.Name) or gen.is_async:
                raise _Untranslatable(node, "a comprehension other than `for name in names`")
            for value in self.constant_names(gen.iter):
                saved = dict(self.bound)
                self.bound[gen.target.id] = ast.Constant(value=value)
                condition = guard
                for test in gen.ifs:
                    condition = _and(condition, self.substituted(test))
                self.effect(node.elt, condition)
                self.bound = saved
            return
        if isinstance(node, (ast.List, ast.Tuple)):
            for element in node.elts:
                self.effect(element, guard)
            return
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and not node.keywords:
            param = self.argument(node.func.value)
            method = node.func.attr
            if param is not None:
                if method == "zero_" and not node.args:
                    self.actions.append({"do": "zero", "param": param, "when": self.guard_program(guard)})
                    return
                if method == "fill_" and len(node.args) == 1:
                    value = self.substituted(node.args[0])
                    if isinstance(value, ast.Constant) and not isinstance(value.value, bool) and value.value == 0:
                        self.actions.append({"do": "zero", "param": param, "when": self.guard_program(guard)})
                        return
                    raise _Untranslatable(node, "fill_ with a value other than 0")
                if method == "copy_" and len(node.args) == 1:
                    source = self.argument(node.args[0])
                    if source is None:
                        raise _Untranslatable(node, "copy_ from something other than another argument")
                    self.actions.append({"do": "copy", "param": param, "from": source,
                                         "when": self.guard_program(guard)})
                    return
        raise _Untranslatable(node, "this expression")


def _where(fn):
    try:
        return f"{inspect.getsourcefile(fn)}:{inspect.getsourcelines(fn)[1]}"
    except (OSError, TypeError):
        return "source not available"


def translate(fn, params, label, post_hook=False):
    """({"actions": [...]}, None) for a hook of a kernel with `params` (name -> index), or
    (None, reason): the reason names the hook, where it is defined, the line and why."""
    name = getattr(fn, "__name__", "a function")
    try:
        node = heuristics._function_node(fn)
    except heuristics.Untranslatable as why:
        return None, f"{label} '{name}' ({_where(fn)}): {why}"
    arguments = node.args
    positional = [a.arg for a in arguments.args]
    wanted = 2 if post_hook else 1
    if len(positional) < 1 or len(positional) > wanted + 1 or arguments.vararg or arguments.kwarg:
        return None, f"{label} '{name}' ({_where(fn)}): it does not take the dict of arguments alone"
    defaults = {}
    given = [(p, v) for p, v in zip(reversed(positional), reversed(fn.__defaults__ or ())) if p not in positional[:wanted]]
    given += [(k, v) for k, v in (fn.__kwdefaults__ or {}).items()]
    for parameter, value in given:
        if not isinstance(value, (int, float, str, bool, type(None))):
            return None, (f"{label} '{name}' ({_where(fn)}): its parameter '{parameter}' defaults to a "
                          f"{type(value).__name__}, which a translated hook cannot hold; {_WHAT_RUNS}")
        defaults[parameter] = ast.Constant(value=value)
    extra = [a for a in positional[wanted:] + [a.arg for a in arguments.kwonlyargs] if a not in defaults]
    if extra:
        return None, f"{label} '{name}' ({_where(fn)}): its parameter '{extra[0]}' has no default, and Triton passes it none"
    translator = _HookTranslator(fn, params, positional[0], defaults)
    try:
        if isinstance(node, ast.Lambda):
            translator.effect(node.body, None)
        else:
            translator.block(node.body, None)
    except _Untranslatable as why:
        line = getattr(why.node, "lineno", None)
        try:
            first = inspect.getsourcelines(fn)[1]
        except (OSError, TypeError):
            first = None
        at = f"line {first + line - 1}" if line is not None and first is not None else "a line"
        text = ast.unparse(why.node) if isinstance(why.node, ast.AST) else ""
        return None, (f"{label} '{name}' ({_where(fn)}) cannot run without Python: {at}, `{text}`: {why}; "
                      f"{_WHAT_RUNS}")
    except Exception as error:  # anything unexpected is refused, never guessed
        return None, f"{label} '{name}' ({_where(fn)}) could not be translated ({type(error).__name__}: {error})"
    return {"actions": translator.actions}, None
