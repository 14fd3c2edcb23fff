#!/bin/sh
# python_layouts.sh: the tracer reads a thread's Python frames without the
# GIL from CPython's own structures (collector/pylayout.c): its table of
# offsets is checked here against the headers of every CPython 3.9+ this
# machine has (Debian's python3-dev, pyenv's), by compiling
# tests/apps/py_layout_check.c against each one.
set -u
. "${top_srcdir:-.}/tests/e2e/testlib.sh"
pys="$(ls /usr/bin/python3.[0-9]* 2>/dev/null | grep -E 'python3\.[0-9]+$')"
command -v pyenv > /dev/null 2>&1 && pys="$pys $(ls -d "$(pyenv root)"/versions/3.*/bin/python3 2>/dev/null)"
checked=0
for py in $pys; do
  info=$("$py" -c 'import sys, sysconfig as s
if sys.version_info >= (3, 9):
    print(s.get_paths()["include"], s.get_config_var("LIBDIR"), "python%d.%d%s" % (sys.version_info[:2] + (getattr(sys, "abiflags", ""),)))' 2>/dev/null) || continue
  [ -n "$info" ] || continue
  set -- $info
  if [ ! -f "$1/Python.h" ] || [ ! -d "$1/internal" ]; then
    echo "skip: $py: no headers in $1 (python3-dev)"
    continue
  fi
  rm -f "$tmp/check"
  if ! cc -std=gnu11 -o "$tmp/check" -I"$s" -I"$1" "$s/tests/apps/py_layout_check.c" "$s/collector/pylayout.c" \
      -L"$2" -l"$3" -Wl,-rpath,"$2" > "$tmp/cc.log" 2>&1; then
    bad "$py: py_layout_check.c builds against $1 ($(head -3 "$tmp/cc.log" | tr '\n' ' '))"
    continue
  fi
  "$tmp/check" > "$tmp/out" 2>&1
  rc=$?
  [ $rc -eq 77 ] && { echo "skip: $py: $(tail -1 "$tmp/out")"; continue; }
  expect "$py: the layout matches $(head -1 "$tmp/out")'s headers, field by field" "$rc:$(grep -v '^ok' "$tmp/out" | grep -v '^Python' | tr '\n' ' ')" "0:"
  checked=$((checked + 1))
done
expect "at least one CPython's headers checked" "$([ "$checked" -gt 0 ] && echo yes)" yes
finish
