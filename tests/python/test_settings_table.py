"""One list of the environment: every TRITON_JIT_* variable the library reads (C++, the compile
script, the Python package, the operators, the AOT tool) is a row of docs/installing.md's
environment table, and every row is read somewhere."""
import os
import re
import subprocess

from conftest import ROOT

READ_BY = ("src", "python", "operators", "tools", "include")


def read_by_the_code():
    files = subprocess.run(["git", "-C", ROOT, "ls-files", *READ_BY], capture_output=True, text=True,
                           check=True).stdout.split()
    names = set()
    for f in files:
        if f.endswith((".cpp", ".h", ".py")):
            with open(os.path.join(ROOT, f), encoding="utf-8") as text:
                names.update(re.findall(r"[\"'](TRITON_JIT_[A-Z0-9_]+)[\"']", text.read()))
    return names


def rows_of_the_table():
    with open(os.path.join(ROOT, "docs", "installing.md"), encoding="utf-8") as f:
        text = f.read()
    table = text[text.index("## Environment"):]
    table = table[:table.index("\n## ", 1)] if "\n## " in table[1:] else table
    return set(re.findall(r"^\| `(TRITON_JIT_[A-Z0-9_]+)` \|", table, re.MULTILINE))


def test_every_variable_the_library_reads_is_in_the_environment_table():
    missing = read_by_the_code() - rows_of_the_table()
    assert not missing, f"read by the code, not in docs/installing.md's environment table: {sorted(missing)}"


def test_every_row_of_the_environment_table_is_read_by_the_code():
    unread = rows_of_the_table() - read_by_the_code()
    assert not unread, f"in docs/installing.md's environment table, read by no code: {sorted(unread)}"
