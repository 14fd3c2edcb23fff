#!/bin/sh
# tracer_python.sh: Python frames of captured calls: taken when the calling
# thread holds the GIL (ctypes.PyDLL, as a framework's operators hold it),
# absent when it does not (ctypes.CDLL releases it) and in a process
# without Python; depth bounded by GPUTRACE_PYSTACKS, 0 = off.
set -u
. "${top_srcdir:-.}/tests/e2e/testlib.sh"
lib="$(cd "$b/.libs" && pwd)/libgputrace.so" # absolute: a python3 launcher script may change directory
export GPUSIM_LIB="$b/tests/sim/.libs/libgpusim.so" PY_KERNELS_LIB="$b/tests/apps/.libs/libpykernels.so"
cat > "$tmp/calls.py" <<'PY'
import os, sys
sys.path.insert(0, os.environ["FAKETORCH_DIR"])
import faketorch as ft

def with_gil(s):
    ft.cuda.cudaStreamSynchronize(s)  # line 6

def without_gil(s):
    ft.cuda_nogil.cudaStreamSynchronize(s)  # line 9

def outer(s):
    with_gil(s)  # line 12

ft.set_device(0)
s = ft.stream()
outer(s)
without_gil(s)
print("calls.py done")
PY
export FAKETORCH_DIR="$s/tests/apps/pylib/site-packages"
syncs="select coalesce(p.frames, '-') from api_call_named c left join pystack p on p.process_id = c.process_id and p.id = c.pystack where c.api_name = 'cudaStreamSynchronize' order by c.start_ns"

out=$(GPUTRACE_OUTPUT="$tmp/a.db" LD_PRELOAD="$lib" python3 "$tmp/calls.py")
expect "the Python program runs unchanged" "$?:$out" "0:calls.py done"
expect "the process row says Python frames are taken" "$(q "$tmp/a.db" "select python_status from process")" "active"
frames=$(q "$tmp/a.db" "$syncs" | head -4 | sed "s|$tmp/||g" | tr '\n' '|')
expect "with the GIL held: innermost first, file and line of each frame" "$frames" \
  "with_gil (calls.py:6)|outer (calls.py:12)|<module> (calls.py:16)|-|"
expect "interned: one stack row per distinct stack" "$(q "$tmp/a.db" "select count(*) from pystack")" 1

GPUTRACE_PYSTACKS=2 GPUTRACE_OUTPUT="$tmp/d.db" LD_PRELOAD="$lib" python3 "$tmp/calls.py" > /dev/null
expect "GPUTRACE_PYSTACKS bounds the depth" "$(q "$tmp/d.db" "$syncs" | head -2 | sed "s|$tmp/||g" | tr '\n' '|')" \
  "with_gil (calls.py:6)|outer (calls.py:12)|"

GPUTRACE_PYSTACKS=0 GPUTRACE_OUTPUT="$tmp/o.db" LD_PRELOAD="$lib" python3 "$tmp/calls.py" > /dev/null
expect "GPUTRACE_PYSTACKS=0 turns them off" \
  "$(q "$tmp/o.db" "select python_status || ' ' || (select count(*) from pystack) || ' ' || (select count(*) from api_call where pystack != 0) from process")" \
  "off (GPUTRACE_PYSTACKS=0) 0 0"

GPUTRACE_OUTPUT="$tmp/c.db" LD_PRELOAD="$lib" "$b/tests/apps/nvtx_api" > /dev/null
expect "a process without Python has none" \
  "$(q "$tmp/c.db" "select python_status || ' ' || (select count(*) from api_call where pystack != 0) from process")" "no Python 0"

# Other CPython versions this machine has (pyenv's, or python3.X on PATH):
# the frame API differs across 3.9-3.13; older ones are refused cleanly.
others=""
command -v pyenv > /dev/null 2>&1 && others=$(ls -d "$(pyenv root)"/versions/3.*/bin/python3 2>/dev/null)
for v in 9 10 11 12 13; do command -v "python3.$v" > /dev/null 2>&1 && others="$others $(command -v "python3.$v")"; done
for py in $others; do
  ver=$("$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null) || continue
  rm -rf "$tmp/v.db"
  out=$(GPUTRACE_OUTPUT="$tmp/v.db" LD_PRELOAD="$lib" "$py" "$tmp/calls.py" 2>&1)
  rc=$?
  if [ "$(echo "$ver" | cut -d. -f2)" -ge 9 ]; then
    expect "Python $ver: frames as with python3" "$rc:$out:$(q "$tmp/v.db" "$syncs" | head -1 | sed "s|$tmp/||g")" \
      "0:calls.py done:with_gil (calls.py:6)"
  else
    expect "Python $ver: runs unchanged, no frames, and says why" "$rc:$out:$(q "$tmp/v.db" "select python_status from process")" \
      "0:calls.py done:Python older than 3.9: no Python frames"
  fi
done

finish
