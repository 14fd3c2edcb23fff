#!/bin/sh
# report_tmpfiles.sh: what gputrace-report writes besides its report, and
# what it leaves.  Outputs (--chrome-trace, --html, --kineto) are complete
# or absent: on a full disk, no file cut short and the file that was there
# kept, with the right reason; a full or unwritable $TMPDIR costs nothing
# on several workers (the scratch files go to memory), where it once gave
# a trace cut short and a stale errno; and the database foreign traces are
# imported into lives in a directory of its own (0700), removed with every
# file the report made when SIGINT, SIGTERM or SIGHUP ends it
# (report_signals.py).  The small file systems are 64 KiB tmpfs mounts,
# made where this runs as root; elsewhere those cases are skipped, said so.
set -u
. "${top_srcdir:-.}/tests/e2e/testlib.sh"
rep="$b/gputrace-report"
mounts=""
cleanup() {
  for d in $mounts; do umount "$d" 2> /dev/null; done
  rm -rf "$tmp"
}
trap cleanup EXIT
# small_fs DIR [ro]: a 64 KiB tmpfs at DIR, full (or empty and read-only);
# fails where none can be mounted
small_fs() {
  mkdir -p "$1"
  mount -t tmpfs -o "size=64k${2:+,$2}" tmpfs "$1" 2> /dev/null || return 1
  mounts="$mounts $1"
  if [ -z "${2:-}" ]; then dd if=/dev/zero of="$1/fill" bs=1k count=128 2> /dev/null; fi
  return 0
}
# valid_json FILE: "ok" if it parses
valid_json() { python3 -c "import json, sys; json.load(open(sys.argv[1])); print('ok')" "$1" 2>&1 | tail -n 1; }
# left DIR: what is in DIR besides the filler
left() { ls -A "$1" | grep -v '^fill$' | tr '\n' ' '; }

"$b/gputrace" record -o "$tmp/run" -- "$b/tests/sim/gpusim-run" -n 2 "$b/tests/apps/overlapped" > /dev/null 2>&1
umask 027
"$rep" -j 1 --chrome-trace "$tmp/ref.json" --html "$tmp/ref.html" "$tmp/run" > /dev/null 2>&1
expect "the trace and page to compare with" "$?:$(valid_json "$tmp/ref.json")" "0:ok"
expect "an output gets the mode of a new file (0666 less the umask 027)" "$(stat -c %a "$tmp/ref.json" "$tmp/ref.html" | tr '\n' ' ')" "640 640 "
expect "nothing left beside the outputs (their temporary files renamed)" "$(ls -A "$tmp" | grep -c '^\.')" 0
umask 022

if small_fs "$tmp/fulltmp"; then
  for j in 1 2; do
    TMPDIR="$tmp/fulltmp" "$rep" -j $j --chrome-trace "$tmp/t$j.json" "$tmp/run" > /dev/null 2> "$tmp/err"
    expect "a full TMPDIR, -j $j: exit 0, nothing on stderr" "$?:$(cat "$tmp/err")" "0:"
    cmp -s "$tmp/ref.json" "$tmp/t$j.json"
    expect "a full TMPDIR, -j $j: the trace of an empty one, byte for byte" $? 0
  done
  expect "a full TMPDIR: nothing left in it" "$(left "$tmp/fulltmp")" ""
else
  echo "skip: a full TMPDIR (a tmpfs cannot be mounted here: not root)"
fi

# an unwritable TMPDIR: read-only (root writes whatever the mode), else mode 0555
if small_fs "$tmp/rotmp" ro || { [ "$(id -u)" != 0 ] && mkdir "$tmp/rotmp" && chmod 555 "$tmp/rotmp"; }; then
  TMPDIR="$tmp/rotmp" "$rep" -j 2 --chrome-trace "$tmp/ro.json" "$tmp/run" > /dev/null 2> "$tmp/err"
  expect "an unwritable TMPDIR, -j 2: exit 0, nothing on stderr" "$?:$(cat "$tmp/err")" "0:"
  cmp -s "$tmp/ref.json" "$tmp/ro.json"
  expect "an unwritable TMPDIR, -j 2: the same trace" $? 0
else
  echo "skip: an unwritable TMPDIR (running as root, and a read-only tmpfs cannot be mounted)"
fi

# outputs onto a full disk: one line with the reason, exit 1, no file cut
# short, and a file that was there before kept as it was
if small_fs "$tmp/full" && rm "$tmp/full/fill" && echo old > "$tmp/full/old.json" && echo old > "$tmp/full/old.html" &&
   dd if=/dev/zero of="$tmp/full/fill" bs=1k count=128 2> /dev/null; [ -f "$tmp/full/old.json" ]; then
  for j in 1 2; do
    "$rep" -j $j --chrome-trace "$tmp/full/t.json" "$tmp/run" > /dev/null 2> "$tmp/err"
    expect "--chrome-trace on a full disk, -j $j: exit 1, why" "$?:$(cat "$tmp/err")" \
      "1:gputrace-report: cannot write $tmp/full/t.json: No space left on device"
    expect "--chrome-trace on a full disk, -j $j: no file" "$(left "$tmp/full")" "old.html old.json "
    "$rep" -j $j --force --chrome-trace "$tmp/full/old.json" "$tmp/run" > /dev/null 2>&1
    expect "--chrome-trace on a full disk, -j $j: exit 1, the file there before kept" "$?:$(head -c 20 "$tmp/full/old.json")" "1:old"
  done
  "$rep" --force --html "$tmp/full/old.html" "$tmp/run" > /dev/null 2> "$tmp/err"
  expect "--html on a full disk: exit 1, why, the file there before kept" "$?:$(cat "$tmp/err"):$(head -c 20 "$tmp/full/old.html")" \
    "1:gputrace-report: cannot write $tmp/full/old.html: No space left on device:old"
  "$rep" -j 2 --kineto "$tmp/full/k" "$tmp/run" > /dev/null 2> "$tmp/err"; rc=$?
  why=$(grep -c 'cannot write .*/k/rank-[01].json: No space left on device' "$tmp/err")
  expect "--kineto on a full disk: exit 1, each line why" "$rc:$([ "$why" -ge 1 ] && [ "$why" -eq "$(wc -l < "$tmp/err")" ] && echo yes)" \
    "1:yes"
  expect "--kineto on a full disk: no file in the directory (every rank's or none)" "$(ls -A "$tmp/full/k")" ""
  expect "outputs on a full disk: nothing left beside them" "$(left "$tmp/full")" "k old.html old.json "
else
  echo "skip: outputs on a full disk (a tmpfs cannot be mounted here: not root)"
fi

# a device is written in place, never replaced by a file
"$rep" --chrome-trace /dev/null "$tmp/run" > /dev/null 2>&1 && "$rep" --html /dev/null "$tmp/run" > /dev/null 2>&1
expect "--chrome-trace, --html /dev/null: exit 0, still a device" "$?:$(stat -c %F /dev/null)" "0:character special file"
ln -s "$tmp/target.json" "$tmp/link.json"
"$rep" --chrome-trace "$tmp/link.json" "$tmp/run" > /dev/null 2>&1
expect "--chrome-trace through a symbolic link: written where it leads, the link kept" \
  "$?:$(valid_json "$tmp/target.json"):$([ -L "$tmp/link.json" ] && echo link)" "0:ok:link"

# the import's database, and signals
tap_py python3 "$s/tests/e2e/report_signals.py" "$rep" "$tmp" \
  "$s/tests/data/traces/pipit-nsys/saxpy-mpi-cuda_nsys_perlmutter0.sqlite"
finish
