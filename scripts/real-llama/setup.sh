#!/usr/bin/env bash
# Builds the real llama.cpp `llama-server` (CPU only) and the two tiny test models that
# `npm run test:real` runs svir against, outside every git repo, and caches them.
#
#   bash scripts/real-llama/setup.sh
#
# Source: llama.cpp v0.5.0 as the npm package node-llama-cpp@3.22.1 ships it
# (llama/gitRelease.bundle, taken with `npm pack`, never installed); or $LLAMA_SRC: a llama.cpp
# tree, a `git archive` tarball, or a git bundle. A tarball of the source is kept as
# $REALPEERS/llama.cpp-src.tar.gz, so a second machine given the same folder needs no npm.
#
# Env: REALPEERS (cache folder, default $HOME/realpeers), JOBS (default: number of cores),
#      FORCE_MODEL=1 (make the models again), NODE_LLAMA_CPP_VERSION (default 3.22.1).
# Idempotent: every step whose result is already there is skipped (seconds when all is cached).
# Results:  $REALPEERS/llama.cpp/build/bin/llama-server
#           $REALPEERS/models/tiny-qwen3-chatml.gguf            (calls tools only under a grammar)
#           $REALPEERS/models/tiny-qwen3-chatml-toolaware.gguf  (also calls with tool_choice auto)
#           $REALPEERS/models/tiny-<format>.gguf  (one per chat format of tiny_formats.py: gpt-oss, ...)
# Needs: cmake, g++, make, git, python3 with numpy and PyYAML. Missing ones are installed with
# apt-get when this runs as root on Debian/Ubuntu; otherwise it stops and names them.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
R=${REALPEERS:-$HOME/realpeers}
SRC=${LLAMA_SRC:-}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
NLC_VERSION=${NODE_LLAMA_CPP_VERSION:-3.22.1}
log() { printf 'real-llama setup: %s\n' "$*"; }
die() { printf 'real-llama setup: %s\n' "$*" >&2; exit 1; }

mkdir -p "$R/models"
R=$(cd "$R" && pwd)
if git -C "$R" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  die "$R is inside a git work tree; set REALPEERS to a folder outside every repo"
fi
if [ -n "$SRC" ] && [ -e "$SRC" ]; then SRC=$(cd "$(dirname "$SRC")" && pwd)/$(basename "$SRC"); fi
LC=$R/llama.cpp

apt_install() {
  command -v apt-get >/dev/null || die "missing: $*; install them (no apt-get here)"
  [ "$(id -u)" = 0 ] || die "missing: $*; install them (apt-get needs root)"
  if [ -z "${apt_updated:-}" ]; then apt-get update -qq; apt_updated=1; fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

# ---------------------------------------------------------------- 1. tools
need=()
command -v cmake >/dev/null || need+=(cmake)
{ command -v g++ >/dev/null && command -v make >/dev/null; } || need+=(g++ make)
command -v git >/dev/null || need+=(git)
if [ ${#need[@]} -gt 0 ]; then log "installing ${need[*]}"; apt_install "${need[@]}"; fi

# ---------------------------------------------------------------- 2. source
extract_tar() { # tarball -> $LC; keeps the commit that `git archive` stamped into it
  local tmp="$LC.partial"; rm -rf "$tmp"; mkdir -p "$tmp"
  case "$1" in *.tar) tar -xf "$1" -C "$tmp" ;; *) tar -xzf "$1" -C "$tmp" ;; esac
  local c; c=$( (gzip -dcf "$1" 2>/dev/null || cat "$1") | git get-tar-commit-id 2>/dev/null || true)
  [ -n "$c" ] && echo "$c" > "$tmp/.realpeers-commit"
  mv "$tmp" "$LC"
}
from_bundle() { # git bundle -> $LC (and the tarball beside it when there is none yet)
  local g; g=$(mktemp -d)
  git clone -q --bare "$1" "$g/src.git"
  local c; c=$(git --git-dir="$g/src.git" rev-parse HEAD)
  [ -e "$R/llama.cpp-src.tar.gz" ] || git --git-dir="$g/src.git" archive --format=tar.gz -o "$R/llama.cpp-src.tar.gz" "$c"
  extract_tar "$R/llama.cpp-src.tar.gz"
  rm -rf "$g"
}
if [ -f "$LC/CMakeLists.txt" ]; then
  log "source already in $LC"
elif [ -n "$SRC" ]; then
  [ -e "$SRC" ] || die "LLAMA_SRC: no such file or folder: $SRC"
  if [ -d "$SRC" ]; then
    if git -C "$SRC" rev-parse HEAD >/dev/null 2>&1; then
      log "exporting git tree $SRC"; rm -rf "$LC.partial"; mkdir -p "$LC.partial"
      git -C "$SRC" archive HEAD | tar -x -C "$LC.partial"
      git -C "$SRC" rev-parse HEAD > "$LC.partial/.realpeers-commit"; mv "$LC.partial" "$LC"
    else
      log "copying tree $SRC"; rm -rf "$LC.partial"; cp -a "$SRC" "$LC.partial"; rm -rf "$LC.partial/build"; mv "$LC.partial" "$LC"
    fi
  elif git bundle list-heads "$SRC" >/dev/null 2>&1; then
    log "cloning bundle $SRC"; from_bundle "$SRC"
  else
    log "extracting $SRC"; extract_tar "$SRC"
  fi
elif [ -f "$R/llama.cpp-src.tar.gz" ]; then
  log "extracting $R/llama.cpp-src.tar.gz"; extract_tar "$R/llama.cpp-src.tar.gz"
else
  command -v npm >/dev/null || die "no llama.cpp source cached and no npm to take it from node-llama-cpp@$NLC_VERSION"
  log "taking the llama.cpp release inside the npm package node-llama-cpp@$NLC_VERSION (npm pack, no install)"
  t=$(mktemp -d)
  (cd "$t" && npm pack --silent "node-llama-cpp@$NLC_VERSION" >/dev/null)
  tar -xzf "$t"/node-llama-cpp-*.tgz -C "$t" package/llama/gitRelease.bundle package/llama/llama.cpp.info.json
  log "bundle: $(tr -d '\n ' < "$t/package/llama/llama.cpp.info.json")"
  from_bundle "$t/package/llama/gitRelease.bundle"
  rm -rf "$t"
fi
[ -f "$LC/CMakeLists.txt" ] || die "$LC has no CMakeLists.txt"
COMMIT=$(cat "$LC/.realpeers-commit" 2>/dev/null || echo unknown)

# ---------------------------------------------------------------- 3. llama-server (CPU only; the build itself needs no network)
BIN=$LC/build/bin/llama-server
if [ -x "$BIN" ] && "$BIN" --version >/dev/null 2>&1; then
  log "llama-server already built: $("$BIN" --version 2>&1 | grep -m1 version)"
else
  log "building llama-server with -j$JOBS (10 to 30 min on 2 cores; log: $R/build.log)"
  t0=$(date +%s)
  cmake -S "$LC" -B "$LC/build" -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF -DGGML_NATIVE=OFF \
    -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TOOLS=ON -DLLAMA_BUILD_SERVER=ON \
    -DLLAMA_OPENSSL=OFF -DLLAMA_BUILD_UI=OFF -DLLAMA_USE_PREBUILT_UI=OFF \
    -DLLAMA_BUILD_COMMIT="${COMMIT:0:7}" -DLLAMA_BUILD_NUMBER=0 > "$R/build-configure.log" 2>&1 \
    || { tail -30 "$R/build-configure.log"; die "cmake configure failed (log: $R/build-configure.log)"; }
  cmake --build "$LC/build" --target llama-server -j"$JOBS" > "$R/build.log" 2>&1 \
    || { tail -30 "$R/build.log"; die "build failed (log: $R/build.log)"; }
  log "built in $(( $(date +%s) - t0 ))s: $("$BIN" --version 2>&1 | grep -m1 version)"
fi

# ---------------------------------------------------------------- 4. the tiny models
PY=""
for p in python3 /usr/bin/python3; do
  if command -v "$p" >/dev/null && "$p" -c 'import numpy, yaml' 2>/dev/null; then PY=$p; break; fi
done
if [ -z "$PY" ]; then
  log "installing python3-numpy python3-yaml (the model maker and llama.cpp's gguf-py need them)"
  apt_install python3 python3-numpy python3-yaml
  PY=/usr/bin/python3
  "$PY" -c 'import numpy, yaml' || die "python3 still cannot import numpy and yaml"
fi
gen=$here/make-tiny-model.py
# The models are made again when the maker (and its format table) or the llama.cpp source (its
# gguf-py, its templates) changes: a hash of them is stamped beside each model.
stamp=$( { sha256sum "$gen" "$here/tiny_formats.py" | cut -c1-64; echo "$COMMIT"; } | sha256sum | cut -c1-16)
for variant in "" "-toolaware"; do
  out=$R/models/tiny-qwen3-chatml$variant.gguf
  if [ -f "$out" ] && [ "$(cat "$out.stamp" 2>/dev/null)" = "$stamp" ] && [ -z "${FORCE_MODEL:-}" ]; then
    log "model already there: $out"
  else
    flag=(); [ -n "$variant" ] && flag=(--tool-aware)
    PYTHONPATH="$LC/gguf-py${PYTHONPATH:+:$PYTHONPATH}" "$PY" "$gen" --llama-dir "$LC" --out "$out" --check "${flag[@]}"
    echo "$stamp" > "$out.stamp"
  fi
done

# One model per chat format (scripts/real-llama/tiny_formats.py): a few seconds each, no self-check
# (the suite is the check). The template's own hash goes into the stamp too.
formats=$(PYTHONPATH="$LC/gguf-py${PYTHONPATH:+:$PYTHONPATH}" "$PY" "$gen" --list-formats)
for format in $formats; do
  out=$R/models/tiny-$format.gguf
  tpl=$("$PY" "$gen" --llama-dir "$LC" --template-of "$format")
  fstamp=$( { echo "$stamp"; sha256sum "$tpl" | cut -c1-64; } | sha256sum | cut -c1-16)
  if [ -f "$out" ] && [ "$(cat "$out.stamp" 2>/dev/null)" = "$fstamp" ] && [ -z "${FORCE_MODEL:-}" ]; then
    log "model already there: $out"
  else
    PYTHONPATH="$LC/gguf-py${PYTHONPATH:+:$PYTHONPATH}" "$PY" "$gen" --llama-dir "$LC" --out "$out" --format "$format"
    echo "$fstamp" > "$out.stamp"
  fi
done

log "ready: $BIN (llama.cpp commit $COMMIT), models in $R/models"
