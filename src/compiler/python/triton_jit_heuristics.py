"""Translation of @triton.heuristics functions into expression programs that triton_jit's C++
side evaluates on every call without Python (src/encoding/heuristic_program.h is the evaluator).

A program is a list of instructions for a stack machine; each is a list [op, operand?]:

    ["int", v] ["float", hex] ["bool", b] ["none"] ["str", s] ["dtype", "fp16"]   a constant
    ["arg", i]            push the value of parameter i (an int, float, bool, str or None)
    ["is_none", i]        push whether parameter i is None (a tensor is not)
    ["dtype_of", i]       push the dtype of tensor parameter i
    ["element_size", i]   push the element size of tensor parameter i
    ["is_descriptor", i]  push whether parameter i is a TensorDescriptor
    ["is_tensor", i]      push whether parameter i is a tensor (isinstance(args["x"], torch.Tensor))
    ["add"] ["sub"] ["mul"] ["truediv"] ["floordiv"] ["mod"] ["pow"]
    ["lshift"] ["rshift"] ["and"] ["or"] ["xor"]                    binary, Python semantics
    ["neg"] ["pos"] ["invert"] ["not"]                              unary
    ["eq"] ["ne"] ["lt"] ["le"] ["gt"] ["ge"]                       comparisons
    ["call", name, n]     min, max (n >= 2), abs, int, float, bool, next_power_of_2, cdiv,
                          log2, ceil, floor, sqrt
    ["jump", t]           continue at instruction t
    ["jump_if_false", t]  pop; continue at t when falsy
    ["or_jump", t]        when the top is truthy continue at t keeping it, else pop (`or`)
    ["and_jump", t]       when the top is falsy continue at t keeping it, else pop (`and`)

A def may branch before it returns (if / elif / else, local names bound to expressions): its
body is folded into one conditional expression first, each branch carrying the statements after
it, so the program computes what Python's statements would.

What is not expressible this way (anything else: attribute calls such as `.numel()`, loops,
comprehensions, closures over mutable state) is reported as untranslatable with the reason; the
C++ side then calls the function in the embedded interpreter.
"""

import ast
import copy
import inspect
import math
import textwrap
import types

# Python names of torch dtypes, as Triton names them.
TORCH_DTYPES = {
    "float16": "fp16", "half": "fp16", "bfloat16": "bf16", "float32": "fp32", "float": "fp32",
    "float64": "fp64", "double": "fp64", "int8": "i8", "int16": "i16", "short": "i16", "int32": "i32",
    "int": "i32", "int64": "i64", "long": "i64", "uint8": "u8", "uint16": "u16", "uint32": "u32",
    "uint64": "u64", "bool": "u1", "float8_e4m3fn": "fp8e4nv", "float8_e5m2": "fp8e5",
    "float8_e4m3fnuz": "fp8e4b8", "float8_e5m2fnuz": "fp8e5b16",
}

_BINARY = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "truediv", ast.FloorDiv: "floordiv",
           ast.Mod: "mod", ast.Pow: "pow", ast.LShift: "lshift", ast.RShift: "rshift", ast.BitAnd: "and",
           ast.BitOr: "or", ast.BitXor: "xor"}
_UNARY = {ast.USub: "neg", ast.UAdd: "pos", ast.Invert: "invert", ast.Not: "not"}
_COMPARE = {ast.Eq: "eq", ast.NotEq: "ne", ast.Lt: "lt", ast.LtE: "le", ast.Gt: "gt", ast.GtE: "ge"}
_BUILTINS = {"min": (2, None), "max": (2, None), "abs": (1, 1), "int": (1, 1), "float": (1, 1), "bool": (1, 1)}
_TRITON = {"next_power_of_2": 1, "cdiv": 2}
_MATH = {"log2": 1, "ceil": 1, "floor": 1, "sqrt": 1}


class Untranslatable(Exception):
    pass


def _is_tritons(target):
    """Triton's own cdiv or next_power_of_2 (not a kernel module's function of that name: kernel
    modules are imported under names that start with "triton" too)."""
    import triton
    name = getattr(target, "__name__", "")
    return name in _TRITON and getattr(triton, name, None) is target


def _function_node(fn):
    """The ast of a lambda or def, found in its source lines."""
    try:
        lines, _ = inspect.getsourcelines(fn)
    except (OSError, TypeError) as error:
        raise Untranslatable(f"its source is not available ({error})")
    source = textwrap.dedent("".join(lines))
    tree = None
    # A lambda is usually one item of a decorator's dict: parse progressively shorter prefixes and
    # suffixes of its lines until a piece parses, then find the lambda by position.
    for candidate in (source, "(" + source.strip().rstrip(",") + ")", source.strip().rstrip(",")):
        try:
            tree = ast.parse(candidate)
            break
        except SyntaxError:
            continue
    if tree is None:
        start = source.find("lambda")
        if start < 0:
            raise Untranslatable("its source cannot be parsed")
        text = source[start:]
        for end in range(len(text), 0, -1):
            try:
                tree = ast.parse(text[:end].rstrip().rstrip(","))
                break
            except SyntaxError:
                continue
    if tree is None:
        raise Untranslatable("its source cannot be parsed")
    code = fn.__code__
    candidates = [n for n in ast.walk(tree) if isinstance(n, (ast.Lambda, ast.FunctionDef))]
    if isinstance(fn, types.LambdaType) and fn.__name__ == "<lambda>":
        candidates = [n for n in candidates if isinstance(n, ast.Lambda)]
    else:
        candidates = [n for n in candidates if isinstance(n, ast.FunctionDef) and n.name == fn.__name__]
    # Several lambdas on one line: pick the one whose compiled body has the same names.
    for node in candidates:
        if _same_code(node, code):
            return node
    if len(candidates) == 1:
        return candidates[0]
    raise Untranslatable("its definition cannot be told apart from others on the same lines")


def _same_code(node, code):
    try:
        wrapped = ast.Expression(body=node) if isinstance(node, ast.Lambda) else ast.Module(body=[node],
                                                                                            type_ignores=[])
        compiled = compile(ast.fix_missing_locations(wrapped), "<heuristic>", "eval" if isinstance(node, ast.Lambda)
                           else "exec")
        inner = next(c for c in compiled.co_consts if isinstance(c, types.CodeType))
        return inner.co_code == code.co_code and inner.co_names == code.co_names and inner.co_consts == code.co_consts
    except Exception:
        return False


class _Translator:
    def __init__(self, fn, params, arg_name):
        self.fn = fn
        self.params = params  # name -> index: the kernel's parameters, and options inside an autotuner
        self.arg = arg_name  # the name of the lambda's argument ("args")
        self.scope = dict(fn.__globals__)
        if fn.__closure__:
            self.scope.update(zip(fn.__code__.co_freevars, (c.cell_contents for c in fn.__closure__)))
        self.program = []

    def emit(self, *instruction):
        self.program.append(list(instruction))
        return len(self.program) - 1

    def fail(self, node, what):
        raise Untranslatable(f"{what} (`{ast.unparse(node)}`) is outside what runs without Python")

    # -- values of the environment
    def resolve(self, node):
        """The Python object an expression of names and attributes refers to, or raise."""
        if isinstance(node, ast.Name):
            if node.id in self.scope:
                return self.scope[node.id]
            import builtins
            if hasattr(builtins, node.id):
                return getattr(builtins, node.id)
            self.fail(node, f"the name '{node.id}'")
        if isinstance(node, ast.Attribute):
            return getattr(self.resolve(node.value), node.attr)
        self.fail(node, "this expression")

    def argument(self, node):
        """The parameter name of `args["x"]`, or None."""
        if (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == self.arg
                and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str)):
            name = node.slice.value
            if name not in self.params:
                raise Untranslatable(f"it reads args['{name}'], which is not a parameter of the kernel")
            return name
        return None

    def constant(self, value, node):
        if isinstance(value, bool):
            self.emit("bool", value)
        elif isinstance(value, int):
            if not -2**63 <= value < 2**63:
                self.fail(node, "an integer beyond 64 bits")
            self.emit("int", value)
        elif isinstance(value, float):
            self.emit("float", value.hex())
        elif value is None:
            self.emit("none")
        elif isinstance(value, str):
            self.emit("str", value)
        elif hasattr(value, "value") and type(value).__name__ == "constexpr":
            self.constant(value.value, node)
        elif type(value).__module__ == "torch" and type(value).__name__ == "dtype":
            name = str(value).removeprefix("torch.")
            if name not in TORCH_DTYPES:
                self.fail(node, f"the dtype {value}")
            self.emit("dtype", TORCH_DTYPES[name])
        else:
            self.fail(node, f"a value of type {type(value).__name__}")

    # -- expressions
    def expression(self, node):
        method = getattr(self, "x_" + type(node).__name__, None)
        if method is None:
            self.fail(node, f"a {type(node).__name__}")
        method(node)

    def x_Constant(self, node):
        self.constant(node.value, node)

    def x_Subscript(self, node):
        name = self.argument(node)
        if name is None:
            self.fail(node, "a subscript other than args['name']")
        self.emit("arg", self.params[name])  # a tensor here is an error when evaluated

    def x_Attribute(self, node):
        name = self.argument(node.value)
        if name is not None:
            if node.attr == "dtype":
                return self.emit("dtype_of", self.params[name])
            self.fail(node, f"the attribute '{node.attr}' of args['{name}']")
        try:
            value = self.resolve(node)
        except Untranslatable:
            raise
        except Exception:
            self.fail(node, "this attribute")
        self.constant(value, node)

    def x_Name(self, node):
        if node.id == self.arg:
            self.fail(node, "the whole args dictionary")
        value = self.resolve(node)
        self.constant(value, node)

    def is_string(self, node):
        """A string constant, or a name or attribute bound to one: Python's str operators (and
        float("inf")) are not the evaluator's, so such expressions stay Python's."""
        if isinstance(node, ast.Constant):
            return isinstance(node.value, str)
        if isinstance(node, (ast.Name, ast.Attribute)) and self.argument(node) is None:
            try:
                return isinstance(self.resolve(node), str)
            except Exception:
                return False
        return False

    def x_BinOp(self, node):
        if type(node.op) not in _BINARY:
            self.fail(node, "this operator")
        if self.is_string(node.left) or self.is_string(node.right):
            self.fail(node, "arithmetic with a string")
        self.expression(node.left)
        self.expression(node.right)
        self.emit(_BINARY[type(node.op)])

    def x_UnaryOp(self, node):
        self.expression(node.operand)
        self.emit(_UNARY[type(node.op)])

    def x_BoolOp(self, node):
        op = "and_jump" if isinstance(node.op, ast.And) else "or_jump"
        jumps = []
        for value in node.values[:-1]:
            self.expression(value)
            jumps.append(self.emit(op, None))
        self.expression(node.values[-1])
        for j in jumps:
            self.program[j][1] = len(self.program)

    def x_Compare(self, node):
        # a < b < c is (a < b) and (b < c); the operands have no side effects.
        left = node.left
        jumps = []
        for i, (op, right) in enumerate(zip(node.ops, node.comparators)):
            if isinstance(op, (ast.Is, ast.IsNot)):
                if not (isinstance(right, ast.Constant) and right.value is None):
                    self.fail(node, "'is' with anything but None")
                name = self.argument(left)
                if name is not None:  # a tensor argument is not None, whatever its value
                    self.emit("is_none", self.params[name])
                    if isinstance(op, ast.IsNot):
                        self.emit("not")
                else:
                    self.expression(left)
                    self.emit("none")
                    self.emit("eq" if isinstance(op, ast.Is) else "ne")
            elif isinstance(op, (ast.In, ast.NotIn)):
                if not isinstance(right, (ast.Tuple, ast.List, ast.Set)) or not right.elts:
                    self.fail(node, "'in' with anything but a literal tuple, list or set")
                inner = []
                for k, element in enumerate(right.elts):
                    self.expression(left)
                    self.expression(element)
                    self.emit("eq")
                    if k < len(right.elts) - 1:
                        inner.append(self.emit("or_jump", None))
                for j in inner:
                    self.program[j][1] = len(self.program)
                if isinstance(op, ast.NotIn):
                    self.emit("not")
            elif type(op) in _COMPARE:
                if not isinstance(op, (ast.Eq, ast.NotEq)) and (self.is_string(left) or self.is_string(right)):
                    self.fail(node, "ordering of strings")
                self.expression(left)
                self.expression(right)
                self.emit(_COMPARE[type(op)])
            else:
                self.fail(node, "this comparison")
            if i < len(node.ops) - 1:
                jumps.append(self.emit("and_jump", None))
            left = right
        for j in jumps:
            self.program[j][1] = len(self.program)

    def x_IfExp(self, node):
        self.expression(node.test)
        to_else = self.emit("jump_if_false", None)
        self.expression(node.body)
        to_end = self.emit("jump", None)
        self.program[to_else][1] = len(self.program)
        self.expression(node.orelse)
        self.program[to_end][1] = len(self.program)

    def is_instance(self, node):
        """isinstance(args["x"], C) for C a tensor or TensorDescriptor class, or a tuple of them:
        what the call's argument kinds decide."""
        name = self.argument(node.args[0])
        if name is None:
            self.fail(node, "isinstance of anything but args['name']")
        classes = node.args[1].elts if isinstance(node.args[1], ast.Tuple) else [node.args[1]]
        jumps = []
        for k, cls_node in enumerate(classes):
            try:
                cls = self.resolve(cls_node)
            except Untranslatable:
                raise
            except Exception:
                cls = None
            if getattr(cls, "__name__", "") == "TensorDescriptor":
                self.emit("is_descriptor", self.params[name])
            elif type(cls).__module__.startswith("torch") and getattr(cls, "__name__", "") == "Tensor":
                self.emit("is_tensor", self.params[name])
            else:
                self.fail(node, "isinstance with a class other than torch.Tensor or TensorDescriptor")
            if k < len(classes) - 1:
                jumps.append(self.emit("or_jump", None))
        for j in jumps:
            self.program[j][1] = len(self.program)

    def x_Call(self, node):
        if node.keywords:
            self.fail(node, "a call with keyword arguments")
        func = node.func
        if isinstance(func, ast.Name) and len(node.args) == 2:
            try:
                is_builtin = self.resolve(func) is isinstance
            except Exception:
                is_builtin = False
            if is_builtin:
                return self.is_instance(node)
        # args["x"].element_size()
        if isinstance(func, ast.Attribute) and self.argument(func.value) is not None:
            name = self.argument(func.value)
            if func.attr == "element_size" and not node.args:
                return self.emit("element_size", self.params[name])
            self.fail(node, f"the method '{func.attr}' of args['{name}']")
        try:
            target = self.resolve(func)
        except Untranslatable:
            raise
        except Exception:
            self.fail(node, "this call")
        name = None
        import builtins
        module = getattr(target, "__module__", "") or ""
        if getattr(builtins, getattr(target, "__name__", ""), None) is target and target.__name__ in _BUILTINS:
            name = target.__name__
            low, high = _BUILTINS[name]
            if len(node.args) < low or (high is not None and len(node.args) > high):
                self.fail(node, f"{name} with {len(node.args)} arguments")
            if any(self.is_string(a) for a in node.args):
                self.fail(node, f"{name} of a string")
        elif module.startswith("triton") and _is_tritons(target):
            name = target.__name__
            if len(node.args) != _TRITON[name]:
                self.fail(node, f"{name} with {len(node.args)} arguments")
        elif target in (math.log2, math.ceil, math.floor, math.sqrt):
            name = target.__name__
            if len(node.args) != 1:
                self.fail(node, f"math.{name} with {len(node.args)} arguments")
        else:
            self.fail(node, "a call of this function")
        if name in ("min", "max") and len(node.args) == 1:
            self.fail(node, f"{name} of an iterable")
        for a in node.args:
            self.expression(a)
        self.emit("call", name, len(node.args))


_MAX_FOLDED_NODES = 4000  # a chain of ifs doubles what follows it; past this, Python evaluates it


class _Fold:
    """A def's statements as the one expression they return (None when control runs off the end).
    An `if` becomes a conditional expression whose branches each carry the statements after it;
    a local name bound to an expression is replaced by it where it is read."""

    def __init__(self, fn, arg_name):
        self.locals = set(fn.__code__.co_varnames) - {arg_name}
        self.nodes = 0

    def substituted(self, node, bound):
        fold = self

        class Substitute(ast.NodeTransformer):
            def visit_Name(self, name):
                if isinstance(name.ctx, ast.Load) and name.id in bound:
                    return copy.deepcopy(bound[name.id])
                if isinstance(name.ctx, ast.Load) and name.id in fold.locals:
                    raise Untranslatable(f"the local name '{name.id}' may be read before it is bound")
                return name

        result = Substitute().visit(copy.deepcopy(node))
        self.nodes += sum(1 for _ in ast.walk(result))
        if self.nodes > _MAX_FOLDED_NODES:
            raise Untranslatable("a function with too many branches to fold into one expression")
        return result

    def statements(self, body, bound):
        for i, statement in enumerate(body):
            rest = body[i + 1:]
            if isinstance(statement, ast.Pass) or (isinstance(statement, ast.Expr)
                                                   and isinstance(statement.value, ast.Constant)):
                continue  # a docstring
            if isinstance(statement, ast.Return):
                return ast.Constant(value=None) if statement.value is None else self.substituted(statement.value,
                                                                                                  bound)
            if isinstance(statement, ast.If):
                return ast.IfExp(test=self.substituted(statement.test, bound),
                                 body=self.statements(statement.body + rest, bound),
                                 orelse=self.statements(statement.orelse + rest, bound))
            target, value = None, None
            if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
                target, value = statement.targets[0], statement.value
            elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
                target, value = statement.target, statement.value
            elif isinstance(statement, ast.AugAssign):
                target = statement.target
                value = ast.BinOp(left=ast.Name(id=getattr(target, "id", ""), ctx=ast.Load()), op=statement.op,
                                  right=statement.value)
            if not isinstance(target, ast.Name):
                raise Untranslatable(f"the statement `{ast.unparse(statement)}` is outside what runs without Python")
            bound = dict(bound, **{target.id: self.substituted(value, bound)})
        return ast.Constant(value=None)


def translate(fn, params):
    """(program, None) for a heuristic of a kernel with `params` (name -> index), or
    (None, reason) when it needs Python."""
    try:
        node = _function_node(fn)
        if isinstance(node, ast.Lambda):
            arguments, body = node.args, node.body
        else:
            arguments = node.args
        if len(arguments.args) != 1 or arguments.vararg or arguments.kwarg or arguments.kwonlyargs:
            raise Untranslatable("a function that does not take exactly one argument (the dict of arguments)")
        if not isinstance(node, ast.Lambda):
            body = _Fold(fn, arguments.args[0].arg).statements(node.body, {})
        translator = _Translator(fn, params, arguments.args[0].arg)
        translator.expression(body)
        return translator.program, None
    except Untranslatable as why:
        return None, str(why)
    except Exception as error:  # anything unexpected: Python will evaluate it
        return None, f"it could not be translated ({type(error).__name__}: {error})"
