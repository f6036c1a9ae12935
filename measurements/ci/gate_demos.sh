#!/usr/bin/env bash
# Each CI gate shown red on a deliberately broken change: a clone of HEAD gets one defect, is
# committed, and only the stage that should catch it runs (scripts/test.sh --only STAGE). The
# clones are thrown away; each stage's tail goes to OUT (default ./gate-demos).
#   bash measurements/ci/gate_demos.sh [packaging tsan asan torch-matrix]
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
out=${OUT:-$PWD/gate-demos}
mkdir -p "$out"

break_packaging() {  # a public header left out of the install lists
  sed -i 's|PATTERN "torch.h" EXCLUDE|PATTERN "jit_function_arg.h" EXCLUDE PATTERN "torch.h" EXCLUDE|' CMakeLists.txt
  echo "packaging: include/triton_jit/jit_function_arg.h, which triton_jit.h includes, excluded from the install"
}
break_tsan() {  # the finished flight erased after the owner's lock is released
  python3 - <<'PY'
p = "src/variants/single_flight.h"
s = open(p).read()
old = "      flight->done = true;\n      std::erase(flights_, flight);\n      done_->notify_all();\n    });\n"
new = "      flight->done = true;\n      done_->notify_all();\n    });\n    std::erase(flights_, flight);\n"
assert old in s
open(p, "w").write(s.replace(old, new))
PY
  echo "tsan: SingleFlight::run erases its finished flight from the list after releasing the owner's mutex"
}
break_asan() {  # a NUL-terminated copy one byte short
  python3 - <<'PY'
p = "src/cache/entry_format.cpp"
s = open(p).read()
old = "  header = json::parse(body.substr(0, end), nullptr, /*allow_exceptions=*/false);\n"
new = ("  std::unique_ptr<char[]> line(new char[end]);  // NUL-terminated for the parser\n"
       "  std::memcpy(line.get(), body.data(), end);\n"
       "  line[end] = '\\0';\n"
       "  header = json::parse(line.get(), nullptr, /*allow_exceptions=*/false);\n")
assert old in s
s = s.replace(old, new).replace("#include <fmt/format.h>\n", "#include <fmt/format.h>\n\n#include <cstring>\n#include <memory>\n", 1)
open(p, "w").write(s)
PY
  echo "asan: the entry parser copies the header line into a buffer one byte too short for its NUL"
}
break_torch_matrix() {  # a header only the newest torch has
  sed -i '0,/#include <c10\//s||#include <c10/core/DeviceCapability.h>  // torch 2.10 and newer\n#include <c10/|' src/torch/torch_adapter.cpp
  echo "torch-matrix: the adapter includes c10/core/DeviceCapability.h, which torch 2.9 does not ship"
}

for stage in ${*:-packaging tsan asan torch-matrix}; do
  clone=$(mktemp -d /tmp/gate-demo-XXXX)
  git clone -q "$root" "$clone"
  (
    cd "$clone" || exit 1
    what=$(break_${stage//-/_})
    git -c user.name=demo -c user.email=demo@localhost commit -qam "deliberately broken: $what"
    echo "== $what"
    echo "== commit $(git log --oneline -1)"
    start=$(date +%s)
    bash scripts/test.sh --only "$stage" > "$out/$stage.log" 2>&1
    rc=$?
    echo "== scripts/test.sh --only $stage: exit $rc after $(( $(date +%s) - start )) s"
    grep -E "FAILED|WARNING: ThreadSanitizer|ERROR: AddressSanitizer|SUMMARY|fatal error|No such file|missing|RED|error:" \
      "$out/$stage.log" | head -n 12
    tail -n 25 "$out/$stage.log"
    # The sanitizers' own reports are in CTest's log of the failing suites.
    for log in "$clone"/build*/Testing/Temporary/LastTest*.log; do
      [ -f "$log" ] && grep -hE -m 6 "ERROR: AddressSanitizer|WARNING: ThreadSanitizer|SUMMARY: (Address|Thread)Sanitizer" "$log"
    done
  ) 2>&1 | tee "$out/$stage.txt"
  rm -rf "$clone"
done
