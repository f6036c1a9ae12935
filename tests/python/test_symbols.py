"""Our shared libraries export none of the C++ standard library's own code. A toolchain that finds
only a static libstdc++ links one into each library; exported, that copy serves every library
loaded after ours (torch's operators included) with iostream state it never initialised, and the
first error message that formats a number crashes the process."""
import ctypes
import glob
import os
import shutil
import subprocess

import pytest

from conftest import BUILD

pytestmark = pytest.mark.gpu  # the whole file is part of the GPU check (conftest.py)

LIBRARIES = ["libtriton_jit.so.0", "libtriton_jit_torch.so.0", "libtriton_jit_ops.so.0", "libtriton_jit_ops-torch*.so.0",
             "libtriton_jit_python.so"]


def definitions(path, kinds):
    """The dynamic symbols that `path` defines, of the given kinds ("FUNC", "OBJECT"), with
    version suffixes dropped: readelf's columns are Num Value Size Type Bind Vis Ndx Name."""
    listing = subprocess.run(["readelf", "--dyn-syms", "--wide", path], capture_output=True, text=True,
                             check=True).stdout
    names = set()
    for line in listing.splitlines():
        fields = line.split()
        if len(fields) >= 8 and fields[0].endswith(":") and fields[6] != "UND" and fields[3] in kinds:
            names.add((fields[7].split("@")[0], fields[4]))
    return names


def loaded_libstdcxx():
    ctypes.CDLL("libstdc++.so.6")
    with open("/proc/self/maps") as maps:
        for line in maps:
            path = line.split()[-1]
            if os.path.basename(path).startswith("libstdc++.so"):
                return path
    pytest.fail("libstdc++.so.6 is loaded but not in /proc/self/maps")


@pytest.mark.skipif(shutil.which("readelf") is None, reason="needs readelf (binutils)")
@pytest.mark.parametrize("name", LIBRARIES)
def test_library_exports_no_code_of_the_standard_library(name):
    path = next(iter(glob.glob(os.path.join(BUILD, "lib", name))), os.path.join(BUILD, "lib", name))
    if not os.path.exists(path):
        built = sorted(os.path.basename(p) for p in glob.glob(os.path.join(BUILD, "lib", "*.so*")))
        pytest.skip(f"{name} is not built in {BUILD} (built: {built})")
    # libstdc++'s compiled code: its strong (GLOBAL) symbols; its templates, which any user of a
    # header instantiates, are WEAK.
    standard = {name for name, bind in definitions(loaded_libstdcxx(), ("FUNC", "OBJECT")) if bind == "GLOBAL"}
    assert len(standard) > 1000, "could not read libstdc++'s symbols"
    shared = sorted({name for name, _ in definitions(path, ("FUNC", "OBJECT"))} & standard)
    assert not shared, f"{name} exports {len(shared)} of libstdc++'s own symbols, e.g. {shared[:5]}"
