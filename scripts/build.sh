#!/usr/bin/env bash
# build.sh [--sanitizers]: configures (once) and builds gputrace out of tree,
# in build/ or, with --sanitizers, in build-san/ (ASan + UBSan); under CI
# (CI=true) with -Werror.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/deps.sh"
dir=build; flags=""
if [ "${1:-}" = "--sanitizers" ]; then dir=build-san; flags="--enable-sanitizers"; fi
# CI builds with every warning an error (a fresh checkout: configured anew)
if [ "${CI:-}" = true ]; then flags="$flags --enable-werror"; fi
cd "$top"
[ -x configure ] && [ configure -nt configure.ac ] || autoreconf -fi >/dev/null 2>&1 || autoreconf -fi
mkdir -p "$dir"
cd "$dir"
[ -f Makefile ] || ../configure -q --with-cuda="${CUDA_HOME:-/usr/local/cuda}" $flags
make -s -j"$(nproc)" >/dev/null
make -s -j"$(nproc)" check TESTS= >/dev/null
echo "$top/$dir"
