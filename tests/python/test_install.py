"""triton_jit.install(): Triton's own `kernel[grid](...)` served by the runtime with no edit to the
calling code, Triton's objects left as they are, and Triton's launch kept for what the runtime
cannot serve (a kernel it refuses, a call whose arguments it refuses, a set launch hook)."""
import logging
import os
import subprocess
import sys

import pytest
import torch
import triton
import triton.language as tl

from conftest import BUILD, KERNELS, requires_gpu

sys.path.insert(0, os.path.join(BUILD, "python"))
sys.path.insert(0, KERNELS)

import triton_jit  # noqa: E402
from python_entry import kernels  # noqa: E402
from triton_jit import redirect as installing  # noqa: E402

pytestmark = pytest.mark.gpu  # the whole file is part of the GPU check (conftest.py)


@pytest.fixture
def installed():
    triton_jit.install()
    yield
    triton_jit.uninstall()


def make_closure_kernel():
    @triton.jit
    def local_add(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=offsets < n) + 1, mask=offsets < n)
    return local_add


def test_install_replaces_only_kernel_subscription_and_uninstall_puts_it_back():
    from triton.runtime.jit import KernelInterface
    before = KernelInterface.__getitem__
    triton_jit.install()
    try:
        assert triton_jit.installed()
        assert KernelInterface.__getitem__ is not before and KernelInterface.__getitem__.__wrapped__ is before
        triton_jit.install()  # a second install is the first
        assert KernelInterface.__getitem__.__wrapped__ is before
    finally:
        triton_jit.uninstall()
    assert KernelInterface.__getitem__ is before and not triton_jit.installed()


def test_kernels_stay_tritons_objects(installed):
    from triton.runtime.autotuner import Autotuner, Heuristics
    from triton.runtime.jit import JITFunction
    assert isinstance(kernels.add, JITFunction)
    assert isinstance(kernels.tuned_add, Autotuner) and isinstance(kernels.scaled_copy, Heuristics)
    launch = kernels.add[(1,)]
    assert isinstance(launch, triton_jit.Launcher)
    wrap_triton = getattr(getattr(torch, "library", None), "wrap_triton", None)
    if wrap_triton is not None:  # torch 2.6 and newer: still accepted, as a Triton kernel
        assert wrap_triton(kernels.add) is not None
        assert wrap_triton(kernels.tuned_add) is not None


def test_decorated_kernels_are_served_whole(installed):
    # The Autotuner (and the Heuristics under it) as the module binds them: the runtime tunes.
    launch = kernels.tuned_add[(1,)]
    assert isinstance(launch, triton_jit.Launcher)
    assert installing.served(kernels.tuned_add) is triton_jit.jit(kernels.tuned_add)
    assert isinstance(kernels.scaled_copy[(1,)], triton_jit.Launcher)


def test_a_kernel_made_inside_a_function_is_served(installed):
    local = make_closure_kernel()
    assert isinstance(local[(1,)], triton_jit.Launcher)
    assert installing.served(local) is triton_jit.jit(local)


def test_a_kernel_the_runtime_refuses_keeps_tritons_launch_and_says_why_once(installed, caplog):
    from triton.runtime.jit import KernelInterface

    class Passthrough(KernelInterface):
        """A library's own wrapper, which the runtime does not know."""

        def __init__(self, fn):
            self.fn = fn

        def run(self, *args, **kwargs):
            return self.fn.run(*args, **kwargs)

    local = Passthrough(make_closure_kernel())
    with caplog.at_level(logging.INFO, logger="triton_jit"):
        first = local[(1,)]
        second = local[(2,)]
    assert not isinstance(first, triton_jit.Launcher) and not isinstance(second, triton_jit.Launcher)
    said = [r.getMessage() for r in caplog.records if "local_add" in r.getMessage()]
    assert len(said) == 1 and "keeps Triton's launch" in said[0] and "Passthrough" in said[0], said


def test_a_set_launch_hook_keeps_tritons_launch_for_as_long_as_it_is_set(installed):
    knobs = getattr(triton, "knobs", None)
    if knobs is None or not hasattr(knobs.runtime, "launch_enter_hook"):
        pytest.skip("this Triton's launch hooks are class attributes (3.3)")
    assert isinstance(kernels.add[(1,)], triton_jit.Launcher)
    previous = knobs.runtime.launch_enter_hook
    hook = lambda metadata: None  # noqa: E731
    if hasattr(previous, "add"):  # a chain of hooks (3.5 and newer)
        previous.add(hook)
    else:
        knobs.runtime.launch_enter_hook = hook
    try:
        assert not isinstance(kernels.add[(1,)], triton_jit.Launcher)
    finally:
        if hasattr(previous, "remove"):
            previous.remove(hook)
        else:
            knobs.runtime.launch_enter_hook = previous
    assert isinstance(kernels.add[(1,)], triton_jit.Launcher)


def test_a_refused_call_goes_to_tritons_launch(installed, monkeypatch):
    seen = []

    def tritons(kernel, grid, original, error, args, kwargs):
        seen.append((kernel, grid, type(error), args, kwargs))
        return "triton's launch"

    monkeypatch.setattr(installing, "_fall_back", tritons)
    triton_jit.uninstall()  # install() again, so that the redirect calls the patched function
    triton_jit.install()
    launch = kernels.add[(1,)]
    assert isinstance(launch, triton_jit.Launcher)
    # An object this runtime does not take for a pointer (Triton's launch takes what has a
    # data_ptr(), or says why not).
    refused = object()
    assert launch(refused, 2, 3, 4, BLOCK=8) == "triton's launch"
    assert seen == [(kernels.add, (1,), TypeError, (refused, 2, 3, 4), {"BLOCK": 8})]
    assert installing.served(kernels.add) is not None  # one refused call does not give the kernel up
    # The runtime's own launcher, from triton_jit.jit, has no Triton launch to fall back to.
    with pytest.raises(TypeError):
        triton_jit.jit(kernels.add)[(1,)](refused, 2, 3, 4, BLOCK=8)


def test_the_fall_back_gives_tritons_launch_the_call_or_raises_what_it_does_not_take():
    calls = []

    def original(kernel, grid):
        return lambda *args, **kwargs: calls.append((kernel, grid, args, kwargs)) or "launched"

    assert installing._fall_back("k", (1,), original, TypeError("no"), (1, 2), {"B": 3}) == "launched"
    assert calls == [("k", (1,), (1, 2), {"B": 3})]
    with pytest.raises(KeyError):
        installing._fall_back("k", (1,), original, KeyError("not a refusal"), (), {})
    assert len(calls) == 1


def test_the_environment_variable_installs_at_import():
    code = ("import sys; sys.path[:0] = sys.argv[1:]; import triton_jit; from triton.runtime.jit import KernelInterface; "
            "print(triton_jit.installed(), hasattr(KernelInterface.__getitem__, '__wrapped__'))")
    env = dict(os.environ, TRITON_JIT_INSTALL="1")
    out = subprocess.run([sys.executable, "-c", code, os.path.join(BUILD, "python")], env=env, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["True", "True"]


@requires_gpu
def test_an_unedited_call_runs_through_the_runtime_with_tritons_results(installed, monkeypatch):
    x = torch.randn(5000, device="cuda")
    y = torch.randn(5000, device="cuda")
    ours, theirs = torch.empty_like(x), torch.empty_like(x)
    # Triton's own launch, counted: installed, the calls must not reach it.
    tritons_runs = []
    tritons_run = type(kernels.add).run
    monkeypatch.setattr(type(kernels.add), "run",
                        lambda self, *a, **k: tritons_runs.append(1) or tritons_run(self, *a, **k))
    for _ in range(3):
        kernels.add[(triton.cdiv(5000, 1024),)](x, y, ours, 5000, BLOCK=1024)
    assert tritons_runs == []
    triton_jit.uninstall()
    kernels.add[(triton.cdiv(5000, 1024),)](x, y, theirs, 5000, BLOCK=1024)
    assert tritons_runs == [1]
    torch.cuda.synchronize()
    assert torch.equal(ours, theirs) and torch.equal(ours, x + y)
    triton_jit.install()
    out = torch.empty_like(x)
    kernels.tuned_add[lambda meta: (triton.cdiv(5000, meta["BLOCK"]),)](x, y, out, 5000)
    torch.cuda.synchronize()
    assert torch.equal(out, x + y)
