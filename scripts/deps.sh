#!/usr/bin/env bash
# deps.sh: installs the Debian packages gputrace builds and tests with, only
# those that are missing.  Sourced by the other scripts; safe to run alone.
set -euo pipefail
GPUTRACE_DEBS="autoconf automake libtool pkg-config make gcc libsqlite3-dev zlib1g-dev libcriterion-dev sqlite3 python3 python3-venv python3-dev libdw1"
missing=""
for p in $GPUTRACE_DEBS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  echo "gputrace: installing missing build dependencies:$missing" >&2
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
if [ ! -f "${CUDA_HOME:-/usr/local/cuda}/include/cupti_activity.h" ]; then
  echo "gputrace: the CUDA toolkit headers (with CUPTI and NCCL) were not found in ${CUDA_HOME:-/usr/local/cuda}; set CUDA_HOME" >&2
  exit 1
fi
