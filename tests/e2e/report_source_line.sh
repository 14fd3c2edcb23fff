#!/bin/sh
# report_source_line.sh: a finding shows the text of its call site's line
# (issue 39: "the source line of each call site"), in the text ("code"
# under "at"), the JSON (source_line) and the HTML page, read from the file
# its frame names; and, since that name comes from an untrusted database, a
# file is read only where it is a regular file named as source code is,
# its text escaped like every other string of the file.
#  1. live: scalar_read on the simulator, its sync.scalar_read at
#     app_train.c's line, the line's text as the file has it (when libdw
#     symbolises the frame; else skipped);
#  2. the hand-written syncs fixture with a Python stack put on its scalar
#     read, naming in turn a .py file here, a file not named as source, a
#     FIFO named .py (never opened for long: the report must not block), a
#     relative path, and lines with a terminal escape and HTML in them;
#  3. without libdw: frames stay module+offset, and a note says why;
#  4. a local function without line information: named from the symbol table.
. "${top_srcdir:-.}/tests/e2e/testlib.sh"

# 1. live
"$b/gputrace" record -f -o "$tmp/live.db" -- "$b/tests/sim/gpusim-run" -n 1 "$b/tests/apps/scalar_read" > /dev/null 2>&1
"$b/gputrace-report" --format json "$tmp/live.db" > "$tmp/live.json" 2> "$tmp/err"
"$b/gputrace-report" --html "$tmp/live.html" "$tmp/live.db" > "$tmp/live.txt" 2>> "$tmp/err"
at=$(sed -n '/sync.scalar_read/,/^$/s/^    at   .*(app_train\.c:\([0-9]*\)).*/\1/p' "$tmp/live.txt" | head -1)
if [ -n "$at" ]; then
  want=$(sed -n "${at}p" "$s/tests/apps/app_train.c" | sed 's/^[[:space:]]*//; s/[[:space:]]*$//')
  got=$(sed -n '/sync.scalar_read/,/^$/s/^    code \(.*\)/\1/p' "$tmp/live.txt" | head -1)
  expect "the text shows the scalar read's line, app_train.c:$at, as the file has it" "$got" "$want"
  expect "the JSON's source_line is that line" \
    "$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(next(f.get("source_line", "") for f in d["findings"] if f["kind"] == "sync.scalar_read"))' "$tmp/live.json")" "$want"
  # blocks counted, not lines: the page puts its cards on one line, and a
  # run whose report had a second finding with a line (the text 2, the
  # page 1, seen once) had its two blocks on one line, counted once
  expect "the HTML page shows it under the call site" "$(grep -o '<pre class="src">' "$tmp/live.html" | wc -l | tr -d ' ')" \
    "$(grep -c '^    code ' "$tmp/live.txt")"
else
  for c in text JSON HTML; do skip "the $c shows the scalar read's line" "no file:line (libdw not installed)"; done
fi

# 2. a Python frame on the fixture's scalar read, naming FRAME's file
g="$s/tests/data/golden"
with_frame() {
  rm -f "$tmp/py.db"
  { cat "$g/hand-schema.sql" "$g/hand-syncs/rows.sql"
    echo "INSERT INTO pystack VALUES(1, 1, 'train_step ($1)');"
    echo "UPDATE api_call SET pystack = 1 WHERE callsite = 3;"; } | sqlite3 "$tmp/py.db"
  timeout 30 "$b/gputrace-report" --html "$tmp/py.html" "$tmp/py.db" > "$tmp/py.txt" 2> "$tmp/py.err"
}
code_of() { sed -n '/^    at   train_step/,/^$/s/^    code \(.*\)/\1/p' "$tmp/py.txt"; }
printf 'import torch\n\n    loss_value = loss.item()   \nx = 1\n' > "$tmp/train.py"
with_frame "$tmp/train.py:3"
expect "a Python frame's line read from its file, blanks around it dropped" "$?:$(code_of)" "0:loss_value = loss.item()"
with_frame "/etc/hostname:1"
expect "a file not named as source code is not read" "$?:$(code_of)" "0:"
mkfifo "$tmp/fifo.py"
with_frame "$tmp/fifo.py:1"
expect "a FIFO named .py: no line, and the report does not block on it" "$?:$(code_of)" "0:"
with_frame "train.py:3"
expect "a relative path (the recording's working directory is unknown) is not read" "$?:$(code_of)" "0:"
printf 'a = "\033[31m<script>alert(1)</script>"\n' > "$tmp/esc.py"
with_frame "$tmp/esc.py:1"
expect "a line with a terminal escape: shown, the escape not sent to the terminal" \
  "$(code_of | grep -c 'alert'):$(grep -c "$(printf '\033')" "$tmp/py.txt")" "1:0"
expect "... and its HTML escaped on the page" "$(grep -c '<script>' "$tmp/py.html"):$(grep -c '&lt;script&gt;alert' "$tmp/py.html")" "0:1"
with_frame "$tmp/train.py:99"
expect "a line past the file's end: none" "$?:$(code_of)" "0:"

# 3. no libdw (a GPU node without elfutils, as an H200 host was): the
# frames stay module+offset, and the text report says why, once.  A
# library of that name without libdw's functions stands in for its absence.
mkdir "$tmp/nodw"
echo 'int not_libdw;' > "$tmp/nodw/x.c"
if cc -shared -fPIC -o "$tmp/nodw/libdw.so.1" "$tmp/nodw/x.c" 2> /dev/null; then
  GPUTRACE_QUIET=1 GPUTRACE_ONE_FILE=1 GPUTRACE_OUTPUT="$tmp/k.db" LD_PRELOAD="$b/.libs/libgputrace.so" \
    "$b/tests/apps/long_kernel" 20 > /dev/null
  LD_LIBRARY_PATH="$tmp/nodw" "$b/gputrace-report" --min-cost 0 "$tmp/k.db" > "$tmp/k.txt" 2>&1
  expect "no libdw: the report says why its call sites have no lines" \
    "$(grep -c '^note: native call sites are shown as module+offset: libdw.so.1' "$tmp/k.txt"):$(grep -c 'long_kernel.c:' "$tmp/k.txt")" "1:0"
  if /sbin/ldconfig -p 2> /dev/null | grep -q 'libdw\.so\.1 '; then
    "$b/gputrace-report" --min-cost 0 "$tmp/k.db" > "$tmp/k2.txt" 2>&1
    expect "with libdw: lines, and no such note" \
      "$(grep -c 'libdw.so.1' "$tmp/k2.txt"):$(grep -c 'long_kernel.c:' "$tmp/k2.txt" | awk '{print ($1 > 0)}')" "0:1"
  else
    skip "with libdw: lines, and no such note" "libdw.so.1 is not installed here"
  fi
else
  skip "no libdw: the report says why" "no C compiler here"
fi

# 4. a frame with no line information but a name in the object's symbol
# table that the tracer could not see (a local symbol: the static CUDA
# runtime's own cudaStreamSynchronize, with which a stack taken in CUPTI's
# callback begins; on an H200 all syncs of a static program read as one
# call site so): named by libdw, so that the runtime's frames are cut
cat > "$tmp/local.c" <<'EOF2'
#include <cuda_runtime_api.h>
static __attribute__((noinline)) int sync_here(cudaStream_t s) { return cudaStreamSynchronize(s) != cudaSuccess; }
int main(void)
{
    cudaStream_t s;
    void *p;
    if (cudaStreamCreate(&s) != cudaSuccess || cudaMalloc(&p, 1 << 20) != cudaSuccess)
        return 1;
    for (int i = 0; i < 3; i++) /* a sync that waits for work nobody reads: sync.no_consumer */
        if (cudaMemsetAsync(p, 0, 1 << 20, s) != cudaSuccess || sync_here(s))
            return 1;
    return 0;
}
EOF2
sim="$b/tests/sim/.libs"
if /sbin/ldconfig -p 2> /dev/null | grep -q 'libdw\.so\.1 ' &&
   cc -O1 -I"${CUDA_HOME:-/usr/local/cuda}/include" -o "$tmp/local" "$tmp/local.c" "$sim/libgpusim.so" \
     -Wl,-rpath,"$sim" 2> /dev/null; then
  GPUTRACE_QUIET=1 GPUTRACE_ONE_FILE=1 GPUTRACE_OUTPUT="$tmp/local.db" LD_PRELOAD="$b/.libs/libgputrace.so" "$tmp/local"
  "$b/gputrace-report" --format json --min-cost 0 "$tmp/local.db" > "$tmp/local.json"
  expect "a local function without line information is named by its symbol" \
    "$(python3 -c 'import json, sys
print(sorted({f["callsite"].split(" ")[0] for f in json.load(open(sys.argv[1]))["findings"] if f["kind"].startswith("sync.")}))' "$tmp/local.json")" \
    "['sync_here']"
else
  skip "a local function without line information is named by its symbol" "no libdw or no C compiler here"
fi
finish
