#!/bin/sh
# readme_python.sh: the README's recipe for a Python or PyTorch program
# (issue 39) is there, and its commands work as written: the plain-script
# line under `gputrace record` and the LD_PRELOAD line, taken from the
# README's code block, run a training script (on faketorch and the
# simulator: no torch here), and `gputrace-report run` then names the
# script's own line.  The torchrun line and the NVTX advice are checked
# to be there (torchrun is not installed here; the step naming they rely
# on is tested on the workloads, report_workloads.py).
set -u
. "${top_srcdir:-.}/tests/e2e/testlib.sh"
section=$(sed -n '/^### Python and PyTorch programs/,/^##/p' "$s/README.md")
[ -n "$section" ] && ok "README has a section on Python and PyTorch programs" || bad "README: no Python section"
for want in 'gputrace record -o run -- torchrun --nproc-per-node 8 train.py' \
            'gputrace record -o run -- python train.py' \
            'LD_PRELOAD=$PWD/install/lib/libgputrace.so GPUTRACE_OUTPUT=run python train.py' \
            'gputrace-report run' 'torch.cuda.nvtx.range_push("train_step")'; do
  printf '%s\n' "$section" | grep -q -F -e "$want" && ok "it has: $want" || bad "it lacks: $want"
done

cat > "$tmp/train.py" <<'PY'
import os, sys
sys.path.insert(0, os.environ["FAKETORCH_DIR"])
import faketorch as ft

ft.set_device(0)
s = ft.stream()
dev, host = ft.malloc(4), ft.malloc_host(4)
for step in range(8):
    ft.busy(s, 3000)
    ft.item(dev, host, s)  # line 10: the loss read back each step
print("train.py done")
PY
export FAKETORCH_DIR="$s/tests/apps/pylib/site-packages"
export GPUSIM_LIB="$b/tests/sim/.libs/libgpusim.so" PY_KERNELS_LIB="$b/tests/apps/.libs/libpykernels.so"
lib="$(cd "$b/.libs" && pwd)/libgputrace.so"
n=0
for pick in '^gputrace record -o run -- python train.py' '^LD_PRELOAD='; do
  n=$((n + 1))
  line=$(printf '%s\n' "$section" | grep -m 1 -e "$pick" | sed 's/ *#.*//')
  # as written, but with this build's library, and python3 (no `python` here)
  cmd=$(printf '%s\n' "$line" | sed -e "s|\$PWD/install/lib/libgputrace.so|$lib|" -e 's/ python / python3 /')
  mkdir -p "$tmp/$n"
  (cd "$tmp/$n" && cp "$tmp/train.py" . && PATH="$b:$PATH" sh -c "$cmd" > out 2> err)
  expect "README's \"$line\": the script runs" "$?:$(cat "$tmp/$n/out")" "0:train.py done"
  (cd "$tmp/$n" && "$b/gputrace-report" run > report 2> report.err)
  expect "gputrace-report run: exit 0" "$?" 0
  grep -q 'sync.scalar_read' "$tmp/$n/report" && grep -q 'at   <module> (.*train.py:10)' "$tmp/$n/report" \
    && ok "the report names the script's line of the loss read (train.py:10)" \
    || bad "the report: $(grep -A 2 'findings (' "$tmp/$n/report" | head -n 3)"
done
finish
