"""Prints the shared libpython of the interpreter that runs this script, and exits 1 if it has none.

A C++ host loads this libpython before the compiler bridge. The build asks the configured Python
once; an installed library asks the Python it compiles with when it first compiles, so packages
name no libpython of the build machine and an environment made from any install of that Python
version works."""
import os
import sys
import sysconfig


def candidates():
    names = [sysconfig.get_config_var(n) for n in ("INSTSONAME", "LDLIBRARY")]
    version = "%d.%d" % sys.version_info[:2]
    names += ["libpython%s.so.1.0" % version, "libpython%s.so" % version]
    dirs = [sysconfig.get_config_var(n) for n in ("LIBDIR", "LIBPL")]
    multiarch = sysconfig.get_config_var("MULTIARCH")
    if multiarch and dirs[0]:
        dirs.append(os.path.join(dirs[0], multiarch))
    dirs.append(os.path.join(sys.base_prefix, "lib"))
    dirs += ["/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib"]
    for directory in dirs:
        for name in names:
            if directory and name and name.endswith((".so", ".so.1.0")):
                yield os.path.join(directory, name)


def main():
    for path in candidates():
        if os.path.exists(path):
            print(path)
            return 0
    return 1


if __name__ == "__main__":
    sys.exit(main())
