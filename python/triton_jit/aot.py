"""python -m triton_jit.aot <manifest.json> -o <bundle> [--no-tune]: triton_jit_aot, run with this
interpreter as the Python that compiles (its Triton, its libpython)."""
import os
import sys
import sysconfig

from triton_jit import AOT


def main(argv=None):
    env = dict(os.environ)
    env.setdefault("TRITON_JIT_PYTHON", sys.executable)
    libpython = os.path.join(sysconfig.get_config_var("LIBDIR") or "", sysconfig.get_config_var("INSTSONAME") or "")
    if os.path.exists(libpython):
        env.setdefault("TRITON_JIT_LIBPYTHON", libpython)
    args = list(sys.argv[1:] if argv is None else argv)
    os.execve(AOT, [AOT] + args, env)


if __name__ == "__main__":
    main()
