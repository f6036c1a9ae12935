#!/usr/bin/env bash
# Builds the Debian packages (dpkg-buildpackage, debhelper) and the RPMs of the core, the AOT tool
# and the libtorch parts into dist/, then runs lintian on the .deb files. The project is compiled
# once: the Debian build's tree, installed again with the RPM's layout (lib64), stages the RPMs
# (rpmbuild --define staged_dir; the spec builds from source when it is not given).
# TRITON_JIT_REPRODUCIBLE=1 builds the Debian packages a second time, from another directory, and
# checks that every .deb is byte for byte the same. Installs its tools with apt-get when missing.
# libtorch comes from the project's Python environment (pip's torch), as Debian has none.
# Both Debian builds go through ccache with the tree they build as its base directory: every path
# under a tree is mapped away in what the compiler writes (dpkg's -ffile-prefix-map, and the
# project's own in packaged builds), so a unit compiles to the same object in any directory and
# the second build takes the first's. What the second build checks is everything else: that no
# generated file, link, strip or packaging step records the build's directory or time (a header
# that named the tree would change its units' hash, and they would compile afresh and differ).
# Compiling everything twice would also test GCC's own determinism, for 10 minutes of a new
# machine's two cores; a warm run never tested it either.
# The Debian build runs in one directory of the machine's cache (scripts/lib/caches.sh), the same
# for every clone; dist/source-dir names it (test_wheel.py builds the wheel there, from the same
# source, with the same base directory, so that its units are the packages' compiles).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dist=${TRITON_JIT_DIST_DIR:-$root/dist}
version=$(sed -n 's/^project(triton_jit VERSION \([0-9.]*\).*/\1/p' "$root/CMakeLists.txt")
python=${TRITON_JIT_PYTHON:-$root/.venv/bin/python}
if [ ! -x "$python" ] || [ -d "$python" ]; then
  echo "package.sh: no Python environment at '$python': run 'bash scripts/setup_env.sh' first (it makes .venv with" \
       "torch and triton), or set TRITON_JIT_PYTHON to the python of an environment that has torch" >&2
  exit 1
fi
if ! TORCH_CMAKE_DIR=$("$python" -c "import torch.utils; print(torch.utils.cmake_prefix_path)")/Torch; then
  echo "package.sh: '$python' has no torch, whose libtorch the torch packages are built against;" \
       "install it there (bash scripts/setup_env.sh) or set TRITON_JIT_PYTHON to a python that has it" >&2
  exit 1
fi
export TORCH_CMAKE_DIR

need=()
for pkg in dpkg-dev debhelper lintian rpm file fakeroot python3-pybind11 python3-dev libfmt-dev nlohmann-json3-dev libxxhash-dev ccache; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || need+=("$pkg")
done
if [ ${#need[@]} -gt 0 ]; then
  echo "package: installing ${need[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2 && apt-get install -y -qq --no-install-recommends "${need[@]}" >&2
fi

source "$root/scripts/lib/caches.sh"
rm -rf "$dist" && mkdir -p "$dist"
work=${TRITON_JIT_PACKAGING_DIR:-$TRITON_JIT_CI_CACHE/packaging}
mkdir -p "$work"
exec 8> "$work.lock"
flock 8  # one packaging at a time on a machine: they share the directory
find "$work" -mindepth 1 -maxdepth 1 -exec rm -rf {} +
src="$work/triton-jit-$version"
mkdir -p "$src"
# The committed tree, as a release tarball would have it.
git -C "$root" archive --format=tar HEAD | tar -x -C "$src"
tar -C "$work" -czf "$dist/triton-jit-$version.tar.gz" "triton-jit-$version"
echo "$src" > "$dist/source-dir"

debian_build() {  # debian_build <source tree> <log>: the .deb files land beside the tree
  local tree=$1
  cp -r "$tree/packaging/debian" "$tree/debian"
  # -d: the CUDA toolkit's headers come from NVIDIA's installer (/usr/local/cuda), not from a
  # Debian package that Build-Depends could name; everything else is checked. -jauto: debhelper
  # builds with one job unless DEB_BUILD_OPTIONS asks for more, which this sets to the core count.
  (cd "$tree" && export CCACHE_BASEDIR=$tree && dpkg-checkbuilddeps && dpkg-buildpackage -us -uc -b -d -jauto) > "$2" 2>&1 || { tail -n 40 "$2" >&2; exit 1; }
}
echo "== Debian packages" >&2
debian_build "$src" "$dist/dpkg-buildpackage.log"
cp "$work"/*.deb "$work"/*.changes "$work"/*.buildinfo "$dist"/
if [ "${TRITON_JIT_REPRODUCIBLE:-0}" = 1 ]; then
  echo "== Debian packages again, from another directory" >&2
  again="$work/again/elsewhere"
  mkdir -p "$again/triton-jit-$version"
  tar -x -C "$again" -f "$dist/triton-jit-$version.tar.gz"
  debian_build "$again/triton-jit-$version" "$dist/dpkg-buildpackage-again.log"
  : > "$dist/reproducible.txt"
  for deb in "$dist"/*.deb; do
    if cmp -s "$deb" "$again/$(basename "$deb")"; then
      echo "identical: $(basename "$deb")" >> "$dist/reproducible.txt"
    else
      echo "DIFFERENT: $(basename "$deb")" >> "$dist/reproducible.txt"
      mkdir -p "$dist/unreproducible" && cp "$again/$(basename "$deb")" "$dist/unreproducible/"
    fi
  done
  cat "$dist/reproducible.txt" >&2
  rm -rf "$work/again"
fi
echo "== lintian" >&2
lintian --fail-on error --no-tag-display-limit "$dist"/*.changes | tee "$dist/lintian.txt" >&2
echo "lintian: $(grep -c '^E:' "$dist/lintian.txt" || true) errors, $(grep -c '^W:' "$dist/lintian.txt" || true) warnings" >&2

echo "== RPM, from the Debian build's tree installed with the RPM's layout" >&2
# RHEL 9's /usr/bin/python3 is 3.9: the RPM records the versioned interpreter (as its spec does).
python_minor=$(/usr/bin/python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')
tree="$src/obj-$(dpkg-architecture -qDEB_HOST_GNU_TYPE)"
stage="$work/rpm-stage"
{ export CCACHE_BASEDIR=$src && cmake -S "$src" -B "$tree" -DCMAKE_INSTALL_LIBDIR=lib64 -DTRITON_JIT_PYTHON="/usr/bin/python$python_minor" \
    -DCMAKE_INSTALL_SO_NO_EXE=OFF &&
  cmake --build "$tree" && DESTDIR="$stage" cmake --install "$tree"; } > "$dist/rpm-stage.log" 2>&1 ||
  { tail -n 40 "$dist/rpm-stage.log" >&2; exit 1; }
top="$work/rpmbuild"
mkdir -p "$top/SOURCES"
cp "$dist/triton-jit-$version.tar.gz" "$top/SOURCES/"
# The spec as rpmbuild would read it from source, checked for what it would build.
rpmspec -P --define "_topdir $top" --define "torch_cmake_dir $TORCH_CMAKE_DIR" "$src/packaging/rpm/triton-jit.spec" \
  > "$dist/rpmspec.txt" 2>&1 || { tail -n 20 "$dist/rpmspec.txt" >&2; exit 1; }
# --nodeps: BuildRequires name RPM packages, which a Debian machine's rpm database does not hold.
rpmbuild -bb --nodeps --define "_topdir $top" --define "torch_cmake_dir $TORCH_CMAKE_DIR" --define "staged_dir $stage" \
  "$src/packaging/rpm/triton-jit.spec" > "$dist/rpmbuild.log" 2>&1 ||
  { tail -n 40 "$dist/rpmbuild.log" >&2; exit 1; }
find "$top/RPMS" -name '*.rpm' -exec mv {} "$dist"/ \;
# The wheel builds from the same source in the same build directory (test_wheel.py): its units
# then compile as the packages' did, and ccache serves them.
rm -rf "$tree"
echo "$tree" > "$dist/build-dir"
ls -1 "$dist"
