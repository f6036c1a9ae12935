#!/usr/bin/env bash
# Installs the .deb packages of dist/ (scripts/package.sh) into a fresh Debian 12 root made by
# mmdebstrap, with every dependency from Debian, and uses them as a new user would: a venv with
# pip's triton, a consumer built with find_package (core and aot components, a bundle built in),
# a pkg-config build, triton_jit_aot and its man page. Nothing of this machine is visible inside
# but the packages, the consumer's sources and the triton wheel. Needs root and Debian's mirror.
# Usage: bash scripts/fresh_root_install.sh [dist dir] (log: <dist>/fresh-root.txt)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dist=$(cd "${1:-$root/dist}" && pwd)
mirror=${TRITON_JIT_DEBIAN_MIRROR:-http://deb.debian.org/debian}
command -v mmdebstrap > /dev/null || { apt-get update -qq && apt-get install -y -qq mmdebstrap; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/debs" "$work/wheels"
cp $(ls "$dist"/*.deb | grep -v dbgsym) "$work/debs/"
cp -r "$root/tests/consumer" "$work/consumer"
# Triton's wheel is fetched here, where pip is configured for this network, for Debian 12's Python.
python3 -m pip download -q triton=="$(sed -n 's/^triton==//p' "$root/requirements.txt")" --no-deps -d "$work/wheels" \
  --python-version 3.11 --only-binary=:all: --platform manylinux_2_27_x86_64
cat > "$work/inside.sh" <<'EOF'
set -eu
export DEBIAN_FRONTEND=noninteractive
echo "== apt-get install the five .debs (dependencies from Debian)"
apt-get install -y -qq /tmp/debs/*.deb cmake g++ make pkg-config python3-venv man-db > /tmp/apt.log 2>&1 ||
  { tail -20 /tmp/apt.log; exit 1; }
dpkg-query -W -f '${Package} ${Version}\n' 'libtriton-jit*' 'triton-jit*'
echo "== a venv with pip's triton"
python3 -m venv /opt/tj && /opt/tj/bin/pip install -q --no-index /tmp/wheels/triton-*.whl
/opt/tj/bin/python -c "import sys, triton; print('python', sys.version.split()[0], 'triton', triton.__version__)"
# Only what the README tells a user to set: no TRITON_JIT_LIBPYTHON, no LD_LIBRARY_PATH.
export TRITON_JIT_PYTHON=/opt/tj/bin/python TRITON_JIT_TARGET=cuda:90 TRITON_JIT_CACHE_DIR=/tmp/cache
echo "== consumer: find_package(TritonJIT COMPONENTS core aot), a kernel compiled on first use"
cmake -S /tmp/consumer -B /tmp/build -DCONSUMER_WITH_AOT=ON > /tmp/cmake.log 2>&1 || { tail -20 /tmp/cmake.log; exit 1; }
cmake --build /tmp/build > /tmp/build.log 2>&1 || { tail -20 /tmp/build.log; exit 1; }
/tmp/build/consumer
echo "== the same with its bundle built in, offline, an empty cache"
TRITON_JIT_OFFLINE=1 TRITON_JIT_CACHE_DIR=/tmp/empty /tmp/build/consumer_bundled
echo "== pkg-config build"
g++ -std=c++20 /tmp/consumer/main.cpp -DCONSUMER_KERNEL='"/tmp/consumer/scale.py"' $(pkg-config --cflags --libs triton_jit) -o /tmp/pc
/tmp/pc
echo "== triton_jit_aot"
triton_jit_aot --version
man -w triton_jit_aot
triton_jit_aot --bogus 2>&1 | head -n 1 || true
echo "== the operators, named after their torch, and their loader where no torch is installed"
ls /usr/lib/x86_64-linux-gnu/ | grep '^libtriton_jit_ops.*\.so\.0$'
/opt/tj/bin/python -c "import ctypes; ctypes.CDLL('/usr/lib/x86_64-linux-gnu/libtriton_jit_ops.so.0')" 2>&1 |
  grep -E '^ImportError' > /tmp/refused.txt || true
cat /tmp/refused.txt
grep -q 'loading the operators for torch .* failed: .*(torch is not loaded in this process' /tmp/refused.txt
echo "fresh root: all steps passed"
EOF
log="$dist/fresh-root.txt"
mmdebstrap --variant=apt --mode=root \
  --customize-hook="cp -r '$work/debs' '$work/wheels' '$work/consumer' '$work/inside.sh' \"\$1/tmp/\"" \
  --customize-hook="chroot \"\$1\" sh -e /tmp/inside.sh > '$log' 2>&1" \
  bookworm "$work/root.tar" "$mirror" > "$work/mmdebstrap.log" 2>&1 || { cat "$log" 2>/dev/null; tail -n 20 "$work/mmdebstrap.log"; exit 1; }
cat "$log"
