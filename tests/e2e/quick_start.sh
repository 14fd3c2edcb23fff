#!/bin/sh
# quick_start.sh: the README's first command, scripts/demo.sh, as a new
# user meets it (issue 39): it says what it does before it builds, never
# runs apt-get without having said so, builds only what the demo runs (the
# tools, the simulator and the demo program, not every test program with
# `make check TESTS=`: minutes of silence once), and ends with the report,
# the Chrome trace and the HTML page.  Run on this build directory, already
# built (the test's make is a shim that logs its arguments), with a
# dpkg-query that reports one package missing and an apt-get (and sudo)
# that only log that they ran: nothing is installed.
set -u
. "${top_srcdir:-.}/tests/e2e/testlib.sh"
fake="$tmp/fake"
mkdir -p "$fake"
log="$tmp/out"
: > "$log"
real_make=$(command -v make)
real_dpkg=$(command -v dpkg-query || echo false)
cat > "$fake/make" <<EOF
#!/bin/sh
echo "SHIM make \$*" >> "$log"
exec "$real_make" "\$@"
EOF
# zlib1g-dev "missing": deps.sh then installs it
cat > "$fake/dpkg-query" <<EOF
#!/bin/sh
for a in "\$@"; do [ "\$a" = zlib1g-dev ] && exit 1; done
exec "$real_dpkg" "\$@"
EOF
cat > "$fake/apt-get" <<EOF
#!/bin/sh
echo "SHIM apt-get \$*" >> "$log"
EOF
cat > "$fake/sudo" <<EOF
#!/bin/sh
echo "SHIM sudo \$*" >> "$log"
exec "\$@"
EOF
cat > "$fake/autoreconf" <<EOF
#!/bin/sh
echo "SHIM autoreconf \$*" >> "$log"
EOF
chmod +x "$fake"/*
# demo.sh run from a stand-in checkout whose configure.ac is newer than its
# configure (an edited configure.ac, a checkout's skewed clock): with the
# build directory configured, regenerating is its make's job, never an
# `autoreconf -fi` replacing build-aux's scripts under a running suite
top="$tmp/top"
mkdir -p "$top/scripts"
cp "$s"/scripts/*.sh "$top/scripts/"
ln -s "$s/configure" "$top/configure"
cp "$s/configure.ac" "$top/configure.ac"
touch -d '+1 minute' "$top/configure.ac" 2> /dev/null || touch "$top/configure.ac"
# the build directory's own Makefile and config are reused: the demo
# configures nothing here.  Without the harness's make flags (its TESTS
# would reach a make the demo runs)
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL GPUTRACE_DEMO_BUILD="$b" GPUTRACE_DEMO_PREFIX="$tmp/install" GPUTRACE_DEMO_OUT="$tmp/demo-out" PATH="$fake:$PATH" \
  bash "$top/scripts/demo.sh" >> "$log" 2>&1
expect "demo.sh exits 0" "$?" 0
if grep -q '^SHIM autoreconf' "$log"; then bad "autoreconf ran though the build directory is configured"
else ok "no autoreconf: the build directory is configured, its make regenerates"; fi

# line numbers in the combined output (the shims append to the same file):
# the first line the demo (not a shim) printed with that in it
first() { grep -n -e "$1" "$log" | grep -v '^[0-9]*:SHIM ' | head -n 1 | cut -d: -f1; }
ran() { grep -n -e "^SHIM $1" "$log" | head -n 1 | cut -d: -f1; }
said=$(first 'apt-get'); ran=$(ran apt-get)
[ -n "$ran" ] && ok "the missing package was installed (with the fake apt-get)" || bad "apt-get never ran"
if [ -n "$said" ] && [ -n "$ran" ] && [ "$said" -lt "$ran" ]; then ok "demo.sh says it uses apt-get before it runs"
else bad "apt-get ran (line ${ran:-none}) before the output named it (line ${said:-none})"; fi
if [ "$(id -u)" -ne 0 ]; then
  said=$(first 'sudo'); ran=$(ran sudo)
  if [ -n "$said" ] && [ -n "$ran" ] && [ "$said" -lt "$ran" ]; then ok "and sudo before it runs"
  else bad "sudo ran (line ${ran:-none}) before the output named it (line ${said:-none})"; fi
fi
head -n 1 "$log" | grep -q '^gputrace demo: builds gputrace' && ok "its first line says what it does" \
  || bad "its first line: $(head -n 1 "$log")"
said=$(first '^== building gputrace'); ran=$(ran make)
if [ -n "$said" ] && [ -n "$ran" ] && [ "$said" -lt "$ran" ]; then ok "it says it is building before it builds"
else bad "make ran (line ${ran:-none}) before a line said it was building (line ${said:-none})"; fi
grep -q '^== building gputrace.*about [0-9]* minutes* on 2 cores' "$log" && ok "and how long a build takes" \
  || bad "no time given for the build"
if grep '^SHIM make' "$log" | grep -q -w -e check -e TESTS=; then
  bad "it builds the test suite: $(grep '^SHIM make' "$log" | grep -w -e check -e TESTS= | head -n 1)"
else ok "it does not build the test suite's programs (make check)"; fi
grep '^SHIM make' "$log" | grep -q 'tests/apps/train_demo' && ok "it builds the demo program" \
  || bad "it does not build tests/apps/train_demo by name"
grep -q '^gputrace report: run' "$log" && ok "the report is printed" || bad "no report in: $(tail -n 5 "$log")"
for f in trace.json report.html run.db; do
  [ -e "$tmp/demo-out/$f" ] && ok "demo-out/$f written" || bad "demo-out/$f missing"
done
[ -x "$tmp/install/bin/gputrace-report" ] && ok "gputrace-report installed into the prefix" || bad "not installed"
# the quick start's two commands are what the README says they are, with
# the time each takes
grep -A 3 '^## Quick start' "$s/README.md" | grep -q '^scripts/demo.sh' && ok "README's quick start runs scripts/demo.sh" \
  || bad "README's quick start lost scripts/demo.sh"
expect "README gives the time each quick-start command takes" \
  "$(sed -n '/^## Quick start/,/^## /p' "$s/README.md" | grep -c -e 'demo.sh.*[0-9] min' -e 'check.sh.*[0-9] min')" 2
finish
