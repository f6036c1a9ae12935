# Sourced by the build and test scripts: what survives from one run to the next lives outside the
# clone, so that a fresh clone on the same machine starts warm.
#   $TRITON_JIT_CI_CACHE (default ~/.cache/triton_jit-ci; the runtime's own cache is ~/.cache/triton_jit): venvs/ (virtual environments, one per
#   hash of what they pin) and ccache/ (compiler outputs).
# ccache, when installed, is every build's compiler launcher: base_dir is the clone, so that the
# same sources compile to the same hits from any clone, and the working directory is not hashed
# (debug information then names the directory of the first compile, which no check reads).
# CCACHE_DISABLE=1 turns it off.
# Expects $root (the clone).

TRITON_JIT_CI_CACHE=${TRITON_JIT_CI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/triton_jit-ci}
export TRITON_JIT_CI_CACHE
mkdir -p "$TRITON_JIT_CI_CACHE/venvs"

if command -v ccache >/dev/null && [ "${CCACHE_DISABLE:-0}" != 1 ]; then
  export CMAKE_CXX_COMPILER_LAUNCHER=ccache CMAKE_C_COMPILER_LAUNCHER=ccache
  export CCACHE_DIR=${CCACHE_DIR:-$TRITON_JIT_CI_CACHE/ccache}
  export CCACHE_BASEDIR=$root CCACHE_NOHASHDIR=1
  # The operators' precompiled header (ccache's manual: "Precompiled headers").
  export CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime
  export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-12G}
fi

# cached_venv <name> <key text> <function>: prints the environment's directory, which
# `<function> <directory>` makes when it is not there yet.
# The environment is made once per key (under a lock, so two runs at once make it once) and
# reused by every clone; environments of the same name not used for 14 days are removed.
cached_venv() {
  local name=$1 key=$2 fill=$3 digest venv
  digest=$(printf '%s' "$key" | sha256sum | cut -c1-16)
  venv="$TRITON_JIT_CI_CACHE/venvs/$name-$digest"
  (
    flock 9
    if [ ! -f "$venv/.complete" ]; then
      rm -rf "$venv"
      echo "setup: making $venv" >&2
      "$fill" "$venv" >&2 || { rm -rf "$venv"; exit 1; }
      printf '%s\n' "$key" > "$venv/.complete"
    fi
    touch "$venv/.complete"
    find "$TRITON_JIT_CI_CACHE/venvs" -maxdepth 2 -path "*/$name-*/.complete" -mtime +14 -printf '%h\n' |
      xargs -r rm -rf
  ) 9> "$venv.lock" || return 1
  echo "$venv"
}
