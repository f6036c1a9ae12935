"""Time to first launch in a fresh process: triton_jit cold (empty caches), warm (persistent
cache), from an embedded bundle, against Triton's own Python with an empty and a warm Triton
cache. Each scenario runs in new processes; the table gives the median of 5 and whether Python
was loaded. Needs a GPU and a built tree:

    python benchmarks/first_launch/first_launch.py --build build
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
KERNEL = os.path.join(ROOT, "tests", "consumer", "scale.py")
RUNS = 5

TRITON_PROGRAM = r"""
import time
start = time.perf_counter()
import sys
sys.path.insert(0, sys.argv[1])
import torch, triton
from scale import scale
x = torch.arange(256, device="cuda", dtype=torch.float32)
out = torch.empty_like(x)
torch.cuda.synchronize()
ready = time.perf_counter()
scale[(1,)](x, out, 2.0, 256)
torch.cuda.synchronize()
done = time.perf_counter()
assert torch.equal(out, x * 2)
print(f'{{"import_and_setup_ms": {(ready - start) * 1e3:.1f}, "first_launch_ms": {(done - ready) * 1e3:.1f}}}')
"""


def run(cmd, env):
    started = time.perf_counter()
    result = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
    wall = (time.perf_counter() - started) * 1e3
    if result.returncode != 0:
        raise RuntimeError(f"{cmd}: {result.stderr[-2000:]}")
    return dict(json.loads(result.stdout.strip().splitlines()[-1]), process_ms=wall)


def build(prefix, work, bundle=None):
    out = os.path.join(work, "bundle-build" if bundle else "build")
    args = ["cmake", "-S", HERE, "-B", out, "-G", "Ninja", f"-DCMAKE_PREFIX_PATH={prefix}",
            "-DCMAKE_BUILD_TYPE=Release"]
    if bundle:
        args.append(f"-DFIRST_LAUNCH_BUNDLE={bundle}")
    subprocess.run(args, check=True, capture_output=True)
    subprocess.run(["cmake", "--build", out], check=True, capture_output=True)
    return os.path.join(out, "first_launch")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    args = parser.parse_args()
    try:
        import ctypes
        ctypes.CDLL("libcuda.so.1")
    except OSError:
        print("first_launch: skipped: no GPU on this machine")
        return
    work = tempfile.mkdtemp(prefix="first_launch_")
    prefix = os.path.join(work, "prefix")
    subprocess.run(["cmake", "--install", args.build, "--prefix", prefix], check=True, capture_output=True)
    program = build(prefix, work)
    manifest = os.path.join(work, "manifest.json")
    shutil.copy(KERNEL, os.path.join(work, "scale.py"))
    with open(manifest, "w") as f:
        json.dump({"target": "cuda:90", "kernels": [{"kernel": "scale.py", "function": "scale",
                   "signatures": [["*fp32:16", "*fp32:16", "fp32", "i32:16"]]}]}, f)
    subprocess.run([os.path.join(prefix, "bin", "triton_jit_aot"), manifest, "-o", os.path.join(work, "bundle")],
                   check=True, capture_output=True)
    bundled = build(prefix, work, os.path.join(work, "bundle"))

    base = dict(os.environ, TRITON_JIT_TARGET="cuda:90")
    rows = []

    def scenario(name, make_env, cmd):
        samples = [run(cmd, make_env(i)) for i in range(RUNS)]
        rows.append((name, samples))

    cache = os.path.join(work, "jit-cache")
    scenario("triton_jit, cold (empty caches)",
             lambda i: dict(base, TRITON_JIT_CACHE_DIR=os.path.join(work, f"cold-{i}"),
                            TRITON_CACHE_DIR=os.path.join(work, f"cold-triton-{i}")), [program, KERNEL])
    run([program, KERNEL], dict(base, TRITON_JIT_CACHE_DIR=cache))  # fill the persistent cache
    scenario("triton_jit, warm (persistent cache)",
             lambda i: dict(base, TRITON_JIT_CACHE_DIR=cache, TRITON_JIT_OFFLINE="1", PYTHONHOME="/nonexistent"),
             [program, KERNEL])
    scenario("triton_jit, embedded bundle",
             lambda i: dict(base, TRITON_JIT_CACHE_DIR=os.path.join(work, f"none-{i}"), TRITON_JIT_OFFLINE="1",
                            PYTHONHOME="/nonexistent"), [bundled, "/nonexistent/scale.py"])
    triton_cmd = [sys.executable, "-c", TRITON_PROGRAM, os.path.dirname(KERNEL)]
    scenario("Triton Python, empty Triton cache",
             lambda i: dict(base, TRITON_CACHE_DIR=os.path.join(work, f"triton-{i}")), triton_cmd)
    scenario("Triton Python, warm Triton cache",
             lambda i: dict(base, TRITON_CACHE_DIR=os.path.join(work, "triton-0")), triton_cmd)

    print(f"{'scenario':<38} {'first launch ms':>15} {'setup ms':>9} {'process ms':>10} {'python':>7}")
    for name, samples in rows:
        first = statistics.median(s["first_launch_ms"] for s in samples)
        setup = statistics.median(s.get("context_ms", s.get("import_and_setup_ms", 0)) for s in samples)
        process = statistics.median(s["process_ms"] for s in samples)
        python = "yes" if name.startswith("Triton") or any(s.get("libpython") for s in samples) else "no"
        ok = all(s.get("correct", True) for s in samples)
        print(f"{name:<38} {first:>15.1f} {setup:>9.1f} {process:>10.1f} {python:>7}{'' if ok else '  WRONG RESULT'}")
    print("setup: the CUDA context and inputs for triton_jit; import torch + triton and inputs for Triton.")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
