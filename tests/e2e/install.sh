#!/bin/sh
# install.sh: what the quick start leaves (scripts/demo.sh installs into
# install/ in the checkout): gputrace and gputrace-report installed into a
# prefix run by name from PATH, the launcher finding its installed
# libgputrace.so beside them (../lib), wherever the prefix is; and the demo
# and the README agree on where that prefix is.
set -u
. "${top_srcdir:-.}/tests/e2e/testlib.sh"
if make -s -C "$b" install prefix="$tmp/p" > "$tmp/install.log" 2>&1; then ok "make install into a prefix"
else bad "make install: $(tail -n 3 "$tmp/install.log")"; fi
for f in bin/gputrace bin/gputrace-report lib/libgputrace.so; do
  [ -e "$tmp/p/$f" ] && ok "installed $f" || bad "$f not installed"
done
mv "$tmp/p" "$tmp/moved" # the checkout's install/ is wherever the checkout is
(
  cd "$tmp" || exit 1
  PATH="$tmp/moved/bin:$PATH" gputrace record -o "$tmp/run.db" -- "$b/tests/sim/gpusim-run" -n 1 "$b/tests/apps/scalar_read" \
    > "$tmp/rec.out" 2> "$tmp/rec.err"
  echo $? > "$tmp/rec.rc"
  PATH="$tmp/moved/bin:$PATH" gputrace-report run.db > "$tmp/rep.out" 2> "$tmp/rep.err"
  echo $? > "$tmp/rep.rc"
)
expect "gputrace record by name: exit 0" "$(cat "$tmp/rec.rc")" 0
if grep -q "not found" "$tmp/rec.err"; then bad "gputrace record by name: $(cat "$tmp/rec.err")"
else ok "gputrace record by name: found its library"; fi
expect "gputrace-report by name: exit 0" "$(cat "$tmp/rep.rc")" 0
grep -q "^gputrace report: run" "$tmp/rep.out" && ok "gputrace-report by name: the report" \
  || bad "gputrace-report by name: $(head -c 300 "$tmp/rep.err")"
grep -q 'prefix=${GPUTRACE_DEMO_PREFIX:-$top/install}' "$s/scripts/demo.sh" && ok "demo.sh installs into install/" \
  || bad "demo.sh does not install into install/"
grep -q 'export PATH="$PWD/install/bin:$PATH"' "$s/README.md" && ok "README says how to put install/bin on PATH" \
  || bad "README lacks the PATH line"
finish
