"""`install()`: every `kernel[grid](...)` of a Triton kernel in this process launched by this
runtime, with no edit to the code that launches it.

Triton's launchers stay Triton's objects: `install()` replaces `KernelInterface.__getitem__`
(the `kernel[grid]` of JITFunction, Autotuner and Heuristics), so `isinstance`,
`torch.library.wrap_triton`, `triton_op` and `torch.compile` see what they saw before, and
Inductor's own launches, which never go through `kernel[grid]`, are untouched. A kernel is served
by `triton_jit.jit(kernel)`: the runtime's specialisation, variants, cache, autotuning and
heuristics. What it cannot serve identically goes to Triton's own launch:

- a kernel `jit()` refuses (a module-level name bound to another object, a decorator the
  runtime cannot translate, a kernel the runtime cannot compile): that kernel, from then on,
  logged once at INFO on the "triton_jit" logger with the reason;
- a call whose arguments the runtime refuses: that call (Triton then raises its own error, or
  launches what it accepts);
- every call while one of Triton's launch or compile hooks is set, so that the hooks fire.

    import triton_jit
    triton_jit.install()      # or TRITON_JIT_INSTALL=1 in the environment of an unedited program
    ...                       # the program's own kernel[grid](...) calls
    triton_jit.uninstall()
"""
import logging
import threading

_log = logging.getLogger("triton_jit")
_lock = threading.Lock()
_patched = {}  # class -> its own __getitem__ before install() (None: it inherited one)
# id(Triton kernel object) -> (the object, our Kernel or None: Triton's launch). Read on every
# kernel[grid] by the redirect (src/python_entry/redirect.cpp) by the object's address, as Triton's
# kernels hash slowly; the entry holds the object, so its id is not reused while it is here. Our
# Kernel holds the object anyway (it checks the object's globals as Triton does).
_served = {}
_NOT_SEEN = object()


def served(obj):
    """Our Kernel for a Triton kernel object, None when Triton's launch keeps it, or _NOT_SEEN."""
    entry = _served.get(id(obj))
    return _NOT_SEEN if entry is None else entry[1]


def installed():
    return bool(_patched)


def _hooks():
    """Triton's launch and compile hooks as (owner, name) pairs, for the hooks this Triton has
    (triton.knobs.runtime since 3.4; class attributes before), and the type of a chain of hooks
    (3.5 and newer), set when it holds one; None before 3.5."""
    hooks = []
    try:
        from triton import knobs
        runtime = knobs.runtime
        hooks = [(runtime, name) for name in ("launch_enter_hook", "launch_exit_hook", "jit_cache_hook",
                                              "jit_post_compile_hook") if hasattr(runtime, name)]
    except (ImportError, AttributeError):
        pass
    if not hooks:  # Triton 3.3
        from triton.compiler.compiler import CompiledKernel
        from triton.runtime.jit import JITFunction
        hooks = [(owner, name) for owner, name in ((CompiledKernel, "launch_enter_hook"),
                                                   (CompiledKernel, "launch_exit_hook"), (JITFunction, "cache_hook"),
                                                   (JITFunction, "compiled_hook")) if hasattr(owner, name)]
    try:
        from triton.knobs import HookChain as chain
    except ImportError:
        chain = None
    return tuple(hooks), chain


# KernelInterface wrappers of other libraries whose launch is a cache of launches of the kernel
# they hold in .fn, nothing more: the runtime serves them whole, as it does when C++ loads them
# (the compile script follows them to the kernel). FlagGems wraps its kernels in LibEntry.
_LAUNCH_CACHES = frozenset({("flag_gems.utils.libentry", "LibEntry")})


def _serve(obj):
    """Our launcher for a Triton kernel object, or None when Triton's launch keeps it."""
    from triton.runtime.autotuner import Autotuner, Heuristics
    from triton.runtime.jit import JITFunction

    from .launch import jit
    kernel = None
    if not isinstance(obj, (JITFunction, Autotuner, Heuristics)) and \
            (type(obj).__module__, type(obj).__qualname__) not in _LAUNCH_CACHES:
        reason = f"a {type(obj).__name__}, not a JITFunction, Autotuner or Heuristics (or a launch cache over one)"
    else:
        try:
            kernel = jit(obj)
            reason = None
        except Exception as error:  # noqa: BLE001  (any refusal keeps Triton's launch)
            reason = str(error).splitlines()[0] if str(error) else type(error).__name__
    if kernel is None:
        _refuse(obj, reason)
    else:
        _served[id(obj)] = (obj, kernel)
    return kernel


def _refuse(obj, reason):
    _served[id(obj)] = (obj, None)
    name = getattr(getattr(obj, "fn", obj), "__name__", type(obj).__name__)
    _log.info("triton_jit.install: %s keeps Triton's launch: %s", name, reason)


def _fall_back(kernel, grid, original, error, args, kwargs):
    """A call this runtime refused (`error`), given to Triton's launch: arguments the runtime does
    not take (Triton's launch takes them or says why not), or a compile or load refused (the
    kernel goes back to Triton from then on). Anything else is raised as it was."""
    if not isinstance(error, (TypeError, ValueError, OverflowError)):
        from .launch import CompileError, DriverError
        if not isinstance(error, (CompileError, DriverError)):
            raise error
        _refuse(kernel, f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}")
    return original(kernel, grid)(*args, **kwargs)


def install():
    """From now on, `kernel[grid](...)` of every Triton kernel runs through this runtime."""
    from triton.runtime.autotuner import Autotuner, Heuristics
    from triton.runtime.jit import JITFunction, KernelInterface

    from ._launch import Redirect
    with _lock:
        if _patched:
            return
        hooks, chain = _hooks()

        def make(original):  # kernel[grid] in C (src/python_entry/redirect.cpp)
            return Redirect(original, _served, _serve, _fall_back, hooks, chain)

        _patched[KernelInterface] = KernelInterface.__getitem__
        KernelInterface.__getitem__ = make(KernelInterface.__getitem__)
        for cls in (JITFunction, Autotuner, Heuristics):  # any that defines its own
            own = cls.__dict__.get("__getitem__")
            if own is not None:
                _patched[cls] = own
                cls.__getitem__ = make(own)


def uninstall():
    """Triton's own launch again for every kernel; what install() replaced is put back as it was."""
    with _lock:
        for cls, original in _patched.items():
            cls.__getitem__ = original
        _patched.clear()
        _served.clear()
