#!/bin/sh
# tracer_python.sh: Python frames of captured calls: taken whether the
# calling thread holds the GIL (ctypes.PyDLL) or released it (ctypes.CDLL,
# as PyTorch's bindings release it before they call CUDA), on every CPython
# 3.9+ the machine has; absent in a process without Python; depth bounded
# by GPUTRACE_PYSTACKS, 0 = off.
set -u
. "${top_srcdir:-.}/tests/e2e/testlib.sh"
lib="$(cd "$b/.libs" && pwd)/libgputrace.so" # absolute: a python3 launcher script may change directory
export GPUSIM_LIB="$b/tests/sim/.libs/libgpusim.so" PY_KERNELS_LIB="$b/tests/apps/.libs/libpykernels.so"
cat > "$tmp/calls.py" <<'PY'
import os, sys
sys.path.insert(0, os.environ["FAKETORCH_DIR"])
import faketorch as ft

def with_gil(s):
    ft.cuda_gil.cudaStreamSynchronize(s)  # line 6

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
frames=$(q "$tmp/a.db" "$syncs" | sed "s|$tmp/||g" | tr '\n' '|')
expect "with the GIL held, then released: innermost first, file and line of each frame" "$frames" \
  "with_gil (calls.py:6)|outer (calls.py:12)|<module> (calls.py:16)|without_gil (calls.py:9)|<module> (calls.py:17)|"
# (the stream's creation takes a stack too: the syncs' are counted)
expect "interned: one stack row per distinct stack" \
  "$(q "$tmp/a.db" "select count(distinct pystack) from api_call_named where api_name = 'cudaStreamSynchronize'") $(q "$tmp/a.db" "select count(*) = (select count(distinct pystack) from api_call where pystack != 0) from pystack")" "2 1"

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

# A real extension module (tests/apps/py_ext.c, built here against the
# headers of the Python that runs it) calls CUDA between
# Py_BEGIN_ALLOW_THREADS and Py_END_ALLOW_THREADS, as PyTorch's bindings
# do, while other threads run Python, allocate and collect garbage
# (tests/apps/py_threads.py): every call's innermost frame is its own
# thread's marked line, the stack goes down to <module>, nothing crashes.
app="$s/tests/apps/py_threads.py"
mark() { echo "$(basename "$app"):$(grep -n "# $1\$" "$app" | cut -d: -f1)"; }
top="substr(p.frames, 1, instr(p.frames || char(10), char(10)) - 1)"
threads_check() { # PY VER CALLS
  inc=$("$1" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
  suf=$("$1" -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
  rm -rf "$tmp/ext" "$tmp/t.db"
  mkdir -p "$tmp/ext"
  if [ ! -f "$inc/Python.h" ]; then
    echo "skip: Python $2 ($1): no headers in $inc (python3-dev), no extension module"
    return
  fi
  if ! cc -std=gnu11 -Wall -Wextra -Werror -shared -fPIC -I"$inc" -o "$tmp/ext/py_ext$suf" "$s/tests/apps/py_ext.c" \
      -L"$b/tests/sim/.libs" -lgpusim -Wl,-rpath,"$b/tests/sim/.libs" > "$tmp/ext/cc.log" 2>&1; then
    bad "Python $2: py_ext.c builds ($(head -3 "$tmp/ext/cc.log" | tr '\n' ' '))"
    return
  fi
  out=$(PY_EXT_DIR="$tmp/ext" GPUTRACE_OUTPUT="$tmp/t.db" LD_PRELOAD="$lib" "$1" "$app" "$3" 2>&1)
  expect "Python $2: $3 calls without the GIL while 3 threads churn: the program runs unchanged" "$?:$out" "0:py_threads done"
  n=$(( $3 / 3 ))
  got=$(q "$tmp/t.db" "select c.api_name || ' ' || coalesce($top, '-') || ' ' || count(*) from api_call_named c
    left join pystack p on p.process_id = c.process_id and p.id = c.pystack
    where c.api_name in ('cudaStreamSynchronize', 'cudaMemcpyAsync') group by c.api_name, $top order by 1" |
    sed "s|$s/tests/apps/||" | tr '\n' '|')
  want="cudaMemcpyAsync ext_item ($(mark EXT_ITEM)) $n|cudaStreamSynchronize ctypes_wait ($(mark CTYPES_SYNC)) $n|"
  want="${want}cudaStreamSynchronize ext_item ($(mark EXT_ITEM)) $n|cudaStreamSynchronize ext_wait ($(mark EXT_SYNC)) $n|"
  want="${want}cudaStreamSynchronize with_gil ($(mark GIL_SYNC)) $(( $3 / 4 ))|"
  expect "Python $2: each call's innermost frame is its own thread's line, GIL released or held" "$got" "$want"
  expect "Python $2: each call's whole stack, down to <module> (one stack per function; the GIL thread's ends in run)" \
    "$(q "$tmp/t.db" "select count(*) || ' ' || sum(frames like '%<module>%') from pystack where id in (select pystack
        from api_call_named where api_name in ('cudaStreamSynchronize', 'cudaMemcpyAsync'))")" "4 3"
}
# Subinterpreters: a thread without the GIL may have been running another
# interpreter than its own thread state's, so no frames are taken then,
# and python_status says so once; with the GIL held, or once the
# subinterpreter is gone, frames as before.
cat > "$tmp/sub.py" <<'PY'
import os, sys
sys.path.insert(0, os.environ["FAKETORCH_DIR"])
import faketorch as ft
try:
    import _interpreters as interp
except ImportError:
    import _xxsubinterpreters as interp
ft.set_device(0)
s = ft.stream()
ft.cuda_nogil.cudaStreamSynchronize(s)  # line 10
i = interp.create()
ft.cuda_nogil.cudaStreamSynchronize(s)  # line 12: none
ft.cuda_gil.cudaStreamSynchronize(s)  # line 13
interp.destroy(i)
ft.cuda_nogil.cudaStreamSynchronize(s)  # line 15
print("sub.py done")
PY
sub_check() { # PY VER
  rm -rf "$tmp/sub.db"
  out=$(GPUTRACE_OUTPUT="$tmp/sub.db" LD_PRELOAD="$lib" "$1" "$tmp/sub.py" 2>&1)
  expect "Python $2: with a subinterpreter, frames only under the GIL, and python_status says so" \
    "$?:$out:$(q "$tmp/sub.db" "select python_status from process"):$(q "$tmp/sub.db" "$syncs" | sed "s|$tmp/||g" | tr '\n' '|')" \
    "0:sub.py done:active; subinterpreters: no frames of a thread outside the GIL:<module> (sub.py:10)|-|<module> (sub.py:13)|<module> (sub.py:15)|"
}
sub_check python3 "$(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
threads_check python3 "$(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')" 3000

# Other CPython versions this machine has (pyenv's, Debian's, or python3.X
# on PATH): the frame layouts differ across 3.9-3.13; older ones are
# refused cleanly.
others="$(ls /usr/bin/python3.[0-9]* 2>/dev/null | grep -E 'python3\.[0-9]+$')"
command -v pyenv > /dev/null 2>&1 && others="$others $(ls -d "$(pyenv root)"/versions/3.*/bin/python3 2>/dev/null)"
for v in 9 10 11 12 13; do command -v "python3.$v" > /dev/null 2>&1 && others="$others $(command -v "python3.$v")"; done
for py in $others; do
  ver=$("$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null) || continue
  rm -rf "$tmp/v.db"
  out=$(GPUTRACE_OUTPUT="$tmp/v.db" LD_PRELOAD="$lib" "$py" "$tmp/calls.py" 2>&1)
  rc=$?
  if [ "$(echo "$ver" | cut -d. -f2)" -ge 9 ]; then
    expect "Python $ver ($py): frames as with python3, GIL held or not" \
      "$rc:$out:$(q "$tmp/v.db" "select python_status from process"):$(q "$tmp/v.db" "$syncs" | sed "s|$tmp/||g" | tr '\n' '|')" \
      "0:calls.py done:active:with_gil (calls.py:6)|outer (calls.py:12)|<module> (calls.py:16)|without_gil (calls.py:9)|<module> (calls.py:17)|"
    threads_check "$py" "$ver" 600
    sub_check "$py" "$ver"
  else
    expect "Python $ver: runs unchanged, no frames, and says why" "$rc:$out:$(q "$tmp/v.db" "select python_status from process")" \
      "0:calls.py done:Python older than 3.9: no Python frames"
  fi
done

finish
