"""triton_jit for Python: Triton kernels launched through the runtime (triton_jit.jit), the
operator library in torch.ops.triton_jit, and the runtime's settings. Importing it loads the
operators (torch is imported first: the library uses its libtorch); the kernels compile in this
interpreter, with its Triton.

    import torch, triton_jit
    k = triton_jit.jit(add_kernel)        # a @triton.jit function, autotuned or not
    k[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)
    y = torch.ops.triton_jit.rms_norm(x, [x.shape[-1]], weight, 1e-6)
    triton_jit.set_cache_dir("/var/cache/my_app/kernels")
    triton_jit.warmup(torch.float16)      # compile ahead, no GPU needed
    python -m triton_jit.aot manifest.json -o bundle/
    triton_jit.install()                  # every kernel[grid](...) in the process through the runtime
"""
import importlib.metadata as _metadata
import os as _os

import torch as _torch

try:
    __version__ = _metadata.version("triton-jit")
except _metadata.PackageNotFoundError:  # the build tree's copy, which the tests import
    __version__ = "0+build"
_HERE = _os.path.dirname(_os.path.abspath(__file__))
LIBRARY = _os.path.join(_HERE, "lib", "libtriton_jit_ops.so.0")
AOT = _os.path.join(_HERE, "bin", "triton_jit_aot")

try:
    from ._build_info import TORCH_VERSION as _BUILT_WITH
except ImportError:  # not from a wheel
    _BUILT_WITH = ""


def _check_torch(found, built_with):
    """The operators are compiled against one torch minor version's C++ ABI: with another, loading
    them fails on an undefined symbol. Said here instead, naming both."""
    if built_with and ".".join(str(found).split("+")[0].split(".")[:2]) != built_with:
        raise ImportError(f"triton_jit {__version__} was built against torch {built_with}, and this environment has "
                          f"torch {found}; its operators need that torch's C++ ABI. Install torch=={built_with}.* "
                          f"(pip install 'torch=={built_with}.*'), or a triton_jit built for torch "
                          f"{'.'.join(str(found).split('.')[:2])}")


def _load_operators(path):
    """torch.ops.load_library, whose refusals (OSError, the loader's ImportError as its cause's
    cause) are raised as the ImportError they are."""
    try:
        _torch.ops.load_library(path)
    except OSError as error:
        cause = error
        while cause is not None and not isinstance(cause, ImportError):
            cause = cause.__cause__ or cause.__context__
        raise ImportError(str(cause) if cause is not None else f"triton_jit: cannot load the operators ({error}: "
                          f"{error.__cause__ or ''})") from error


_check_torch(_torch.__version__, _BUILT_WITH)
_load_operators(LIBRARY)
ops = _torch.ops.triton_jit

from .launch import CompileError, DriverError, Kernel, Launcher, LaunchMeta, jit, load  # noqa: E402  (after torch's libraries)
from .redirect import install, installed, uninstall  # noqa: E402

if _os.environ.get("TRITON_JIT_INSTALL", "") not in ("", "0"):  # a program one cannot edit (see redirect.py)
    install()


def warmup(dtype):
    """Compiles the variants the library's operators launch most for dtype, for the current
    target (TRITON_JIT_TARGET, or the GPU). Returns their descriptions."""
    return list(ops.warmup(dtype))


def cache_dir():
    """The persistent cache of compiled variants ('' when disabled)."""
    return ops.cache_dir()


def set_cache_dir(directory):
    """Where compiled variants persist; '' disables the disk cache."""
    ops.set_cache_dir(str(directory))


def set_offline(offline=True):
    """Offline: serve only the cache and bundles, never compile."""
    ops.set_offline(bool(offline))


def offline():
    return ops.offline()


def enable_aten(names):
    """Routes the named ATen ops (e.g. ["aten::mm"]) on CUDA tensors to ours; see aten_stand_ins()."""
    ops.enable_aten(list(names))


def disable_aten():
    ops.disable_aten()


def aten_stand_ins():
    return list(ops.aten_stand_ins())


def set_stand_in_routing(enabled=True):
    """Off: every call of an enabled stand-in runs ours, also for the shapes where ATen's kernel is
    faster and the stand-in would send the call back to it (operators/common/stand_in_policy.h)."""
    ops.set_stand_in_routing(bool(enabled))


def stand_in_routes():
    """{"aten::mm": (calls run by ours, calls sent back to ATen), ...} for the stand-ins that route."""
    names, ours, aten = ops.stand_in_routes()
    return {name: (o, a) for name, o, a in zip(names, ours, aten)}
