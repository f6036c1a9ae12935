"""The bottom of triton_jit's compile script: the exact bytes each user module was compiled from,
and which modules are the user's (whose text decides a kernel) rather than a framework's.

triton_jit_sources.py fills the snapshots as it loads kernels; it and triton_jit_values.py read
them. Nothing here imports another module of the script.
"""

import functools
import importlib.util
import linecache
import os
import sys
import types

SNAPSHOTS = {}  # real path -> bytes each user module was compiled from
_FRAMEWORKS = {"triton", "torch", "numpy", "builtins", "__main__", "_pytest", "pytest", "pybind11"}


def framework(module_name):
    """Whether a module belongs to Triton, torch, numpy, the standard library or a test runner."""
    top = (module_name or "").partition(".")[0]
    return top in _FRAMEWORKS or top in getattr(sys, "stdlib_module_names", ())


def remember(path, data):
    """Keeps `data` as the text of `path`, for the dependency walk and for tracebacks."""
    real = os.path.realpath(path)
    SNAPSHOTS[real] = data
    lines = importlib.util.decode_source(data).splitlines(True)
    for key in {path, real}:
        linecache.cache[key] = (len(data), None, lines, key)


def module_file(module):
    """The real path of a module's .py file, or None."""
    path = getattr(module, "__file__", None)
    if not path or not path.endswith(".py"):
        return None
    return _real_path(path)


@functools.lru_cache(maxsize=65536)
def _real_path(path):
    # The walks ask for every imported module's file, many times a kernel: resolving the links
    # of each path once a process took longer than the rest of a walk.
    return os.path.realpath(path)


def user_module(module):
    """The file of a module of the user's (not a framework's), or a false value."""
    return isinstance(module, types.ModuleType) and not framework(module.__name__) and module_file(module)


def source_bytes(path):
    """The bytes `path` was compiled from: its snapshot, else the file as it is now."""
    data = SNAPSHOTS.get(path)
    if data is None:
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError:
            data = b""
    return data
