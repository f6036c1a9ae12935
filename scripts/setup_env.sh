#!/usr/bin/env bash
# Prepares a fresh machine for building and testing triton_jit:
#   - system packages (compilers' companions, fmt, nlohmann-json, xxHash, GoogleTest, Benchmark, Ninja,
#     clang for the fuzz targets)
#     through apt-get, only those that are missing;
#   - the project's virtual environment with the pins of requirements.txt, kept outside the clone
#     (scripts/lib/caches.sh) and linked as .venv, so that a fresh clone reuses it and a changed
#     pin makes a new one.
# When TRITON_JIT_PYTHON names an interpreter that already has torch and triton (a GPU machine
# without internet), that interpreter is used and nothing is installed into a venv.
# Prints the path of the Python to use on its last line.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

need_pkgs=()
pkgs=(build-essential cmake ninja-build pkg-config ccache clang-format libfmt-dev nlohmann-json3-dev libxxhash-dev
      libgtest-dev libgmock-dev libbenchmark-dev python3-dev)
# The fuzz targets (libFuzzer) need clang and its runtime; machines that only build skip them.
[ "${TRITON_JIT_SKIP_SANITIZERS:-0}" = 1 ] || pkgs+=(clang libclang-rt-14-dev)
[ -n "${TRITON_JIT_PYTHON:-}" ] || pkgs+=(python3-venv)
for pkg in "${pkgs[@]}"; do
  case "$pkg" in  # tools installed outside dpkg count too
    cmake) command -v cmake >/dev/null && continue ;;
    ninja-build) command -v ninja >/dev/null && continue ;;
    ccache) command -v ccache >/dev/null && continue ;;
    clang-format) command -v clang-format >/dev/null && continue ;;
  esac
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || need_pkgs+=("$pkg")
done
# TRITON_JIT_NO_APT=1: a machine without a package mirror (the GPU machine) brings what it needs.
if [ ${#need_pkgs[@]} -gt 0 ] && [ "${TRITON_JIT_NO_APT:-0}" = 1 ]; then
  echo "setup: not installing ${need_pkgs[*]} (TRITON_JIT_NO_APT=1)" >&2
elif [ ${#need_pkgs[@]} -gt 0 ]; then
  if command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
    echo "setup: installing system packages: ${need_pkgs[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    { apt-get update -qq && apt-get install -y -qq --no-install-recommends "${need_pkgs[@]}"; } >&2 ||
      echo "setup: apt-get could not install ${need_pkgs[*]}; the build will say what is missing" >&2
  else
    echo "setup: missing system packages (${need_pkgs[*]}); install them or run as root" >&2
  fi
fi

if [ -n "${TRITON_JIT_PYTHON:-}" ]; then
  "$TRITON_JIT_PYTHON" -c "import triton, pybind11" >&2 || {
    echo "setup: TRITON_JIT_PYTHON=$TRITON_JIT_PYTHON lacks triton or pybind11" >&2; exit 1; }
  echo "$TRITON_JIT_PYTHON"
  exit 0
fi

source "$root/scripts/lib/caches.sh"
base_python=${TRITON_JIT_BASE_PYTHON:-python3}
fill_project_venv() {
  "$base_python" -m venv "$1"
  "$1/bin/python" -m pip install -q --upgrade pip
  "$1/bin/python" -m pip install -q -r "$root/requirements.txt"
  # Packages pinned on a "# no-deps:" line: their own pins conflict with ours; their imports are above.
  local no_deps
  no_deps=$(sed -n 's/^# no-deps: *//p' "$root/requirements.txt")
  if [ -n "$no_deps" ]; then "$1/bin/python" -m pip install -q --no-deps $no_deps; fi
}
venv=$(cached_venv project "$(cat "$root/requirements.txt"; "$base_python" -VV)" fill_project_venv)
# .venv in the clone names it, for the commands the README and the docs show.
if [ "$(readlink "$root/.venv" 2>/dev/null)" != "$venv" ]; then
  rm -rf "$root/.venv"
  ln -s "$venv" "$root/.venv"
fi
echo "$venv/bin/python"
