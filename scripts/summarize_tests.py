"""Adds up GoogleTest JSON and pytest JUnit XML results (in a directory and its subdirectories,
each named by its path without the extension: 'asan/test_hooks') into one closing line:
'N passed, N failed, N skipped'. Exits 1 when anything failed, an expected result is missing, or
no test ran."""
import glob
import json
import os
import sys
import xml.etree.ElementTree as ET


def gtest_counts(path):
    passed = failed = skipped = 0
    with open(path) as f:
        data = json.load(f)
    for suite in data.get("testsuites", []):
        for test in suite.get("testsuite", []):
            if test.get("result") == "SKIPPED":
                skipped += 1
            elif test.get("failures"):
                failed += 1
            else:
                passed += 1
    return passed, failed, skipped


def junit_counts(path):
    root = ET.parse(path).getroot()
    suites = [root] if root.tag == "testsuite" else root.findall("testsuite")
    passed = failed = skipped = 0
    for s in suites:
        total = int(s.get("tests", 0))
        f = int(s.get("failures", 0)) + int(s.get("errors", 0))
        k = int(s.get("skipped", 0))
        passed += total - f - k
        failed += f
        skipped += k
    return passed, failed, skipped


def main(directory, expected):
    totals = [0, 0, 0]
    seen = set()
    for path in sorted(glob.glob(os.path.join(directory, "**", "*.*"), recursive=True)):
        counts = gtest_counts(path) if path.endswith(".json") else junit_counts(path)
        name = os.path.relpath(path, directory)
        seen.add(os.path.splitext(name)[0])
        print(f"  {name}: {counts[0]} passed, {counts[1]} failed, {counts[2]} skipped")
        totals = [a + b for a, b in zip(totals, counts)]
    missing = [name for name in expected if name not in seen]
    for name in missing:
        print(f"  {name}: produced no results (crashed?)")
    totals[1] += len(missing)
    print(f"{totals[0]} passed, {totals[1]} failed, {totals[2]} skipped")
    return 1 if totals[1] or totals[0] == 0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2:]))
