"""TRITON_JIT_LOG_LEVEL=info reports each compile with the time of its phases; the default is quiet."""
import os
import subprocess

from conftest import BUILD

DEMO = os.path.join(BUILD, "bin", "triton_jit_demo")


def run_demo(level, tmp_path):
    env = dict(os.environ, TRITON_JIT_TARGET="cuda:90", TRITON_CACHE_DIR=str(tmp_path / "triton"),
               TRITON_JIT_CACHE_DIR=str(tmp_path / "jit"), CUDA_VISIBLE_DEVICES="")
    if level:
        env["TRITON_JIT_LOG_LEVEL"] = level
    return subprocess.run([DEMO], env=env, capture_output=True, text=True, timeout=600)


def test_info_logs_each_phase_of_a_compile(tmp_path):
    result = run_demo("info", tmp_path)
    assert result.returncode == 0, result.stderr
    assert "[triton_jit] INFO  binary_kernel: static signature of 20 parameters from" in result.stderr
    assert "[triton_jit] INFO  binary_kernel: compiled (x_ptr: *fp32:16" in result.stderr
    assert "(Triton compile " in result.stderr


def test_default_level_is_quiet(tmp_path):
    result = run_demo(None, tmp_path)
    assert result.returncode == 0, result.stderr
    assert "[triton_jit]" not in result.stderr
