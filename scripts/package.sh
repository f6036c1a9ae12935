#!/usr/bin/env bash
# Builds the Debian packages (dpkg-buildpackage, debhelper) and an RPM (rpmbuild) of the core
# into dist/, then runs lintian on the .deb files. Installs its tools with apt-get when missing.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dist=${TRITON_JIT_DIST_DIR:-$root/dist}
version=$(sed -n 's/^project(triton_jit VERSION \([0-9.]*\).*/\1/p' "$root/CMakeLists.txt")

need=()
for pkg in dpkg-dev debhelper lintian rpm fakeroot python3-pybind11 python3-dev libfmt-dev nlohmann-json3-dev libxxhash-dev; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || need+=("$pkg")
done
if [ ${#need[@]} -gt 0 ]; then
  echo "package: installing ${need[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2 && apt-get install -y -qq --no-install-recommends "${need[@]}" >&2
fi

rm -rf "$dist" && mkdir -p "$dist"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
src="$work/triton-jit-$version"
mkdir -p "$src"
# The committed tree, as a release tarball would have it.
git -C "$root" archive --format=tar HEAD | tar -x -C "$src"
tar -C "$work" -czf "$dist/triton-jit-$version.tar.gz" "triton-jit-$version"

echo "== Debian packages" >&2
cp -r "$src/packaging/debian" "$src/debian"
# -d: the CUDA toolkit's headers come from NVIDIA's installer (/usr/local/cuda), not from a
# Debian package that Build-Depends could name; everything else is checked.
(cd "$src" && dpkg-checkbuilddeps && dpkg-buildpackage -us -uc -b -d) > "$dist/dpkg-buildpackage.log" 2>&1 ||
  { tail -n 40 "$dist/dpkg-buildpackage.log" >&2; exit 1; }
mv "$work"/*.deb "$work"/*.changes "$work"/*.buildinfo "$dist"/
echo "== lintian" >&2
lintian --fail-on error --no-tag-display-limit "$dist"/*.changes | tee "$dist/lintian.txt" >&2
echo "lintian: $(grep -c '^E:' "$dist/lintian.txt" || true) errors, $(grep -c '^W:' "$dist/lintian.txt" || true) warnings" >&2

echo "== RPM" >&2
top="$work/rpmbuild"
mkdir -p "$top/SOURCES"
cp "$dist/triton-jit-$version.tar.gz" "$top/SOURCES/"
# --nodeps: BuildRequires name RPM packages, which a Debian machine's rpm database does not hold.
rpmbuild -bb --nodeps --define "_topdir $top" "$src/packaging/rpm/triton-jit.spec" > "$dist/rpmbuild.log" 2>&1 ||
  { tail -n 40 "$dist/rpmbuild.log" >&2; exit 1; }
find "$top/RPMS" -name '*.rpm' -exec mv {} "$dist"/ \;
ls -1 "$dist"
