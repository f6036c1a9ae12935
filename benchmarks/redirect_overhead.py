"""The host cost `triton_jit.install()` adds to a `kernel[grid](...)` call of a Triton kernel: the
redirect's own work (finding the kernel's launcher, checking Triton's hooks, the fallback wrapper),
measured against calling the same stand-in launcher directly, so no GPU is needed. The launch
itself is measured on the GPU by python_launch_bench.py.

    python benchmarks/redirect_overhead.py [--redirect path/to/redirect.py]   (another version's, to compare)
"""
import argparse
import importlib.util
import statistics
import time

import triton
import triton.language as tl


@triton.jit
def add(x, y, n, BLOCK: tl.constexpr):
    pass


class StandInLauncher:
    def __call__(self, *args, **kwargs):
        return None


class StandInKernel:
    """What triton_jit.jit(kernel) is to the redirect: kernel[grid] gives a launcher."""
    launcher = StandInLauncher()

    def __getitem__(self, grid):
        return self.launcher


def per_call_ns(call, calls=20000, repeats=15):
    times = []
    for _ in range(repeats):
        start = time.perf_counter_ns()
        for _ in range(calls):
            call()
        times.append((time.perf_counter_ns() - start) / calls)
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--redirect", help="a redirect.py to measure instead of triton_jit's")
    args = parser.parse_args()
    if args.redirect:
        spec = importlib.util.spec_from_file_location("redirect_under_test", args.redirect)
        redirect = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(redirect)
    else:
        from triton_jit import redirect
    redirect.install()
    try:
        stand_in = StandInKernel()
        if isinstance(redirect._served, dict):
            redirect._served[id(add)] = (add, stand_in)
        else:  # an older redirect, keyed by the kernel object
            redirect._served[add] = stand_in
        grid = (4,)
        direct = per_call_ns(lambda: stand_in[grid](1, 2, 3, BLOCK=4))
        redirected = per_call_ns(lambda: add[grid](1, 2, 3, BLOCK=4))
    finally:
        redirect.uninstall()
    print(f"host ns per call, median of 15 runs of 20000 ({args.redirect or 'triton_jit.redirect'})")
    print(f"  {'launcher called directly':44s} {direct:8.0f}")
    print(f"  {'kernel[grid](...) through install()':44s} {redirected:8.0f}")
    print(f"  {'what the redirect adds':44s} {redirected - direct:+8.0f}")


if __name__ == "__main__":
    main()
