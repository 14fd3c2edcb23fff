#!/bin/sh
# tracer_exports.sh: libgputrace.so, preloaded into every traced process,
# exports its wrappers and the entry points other libraries look up in it,
# and nothing of its own (libtrace/exports.map.in):
#   - no gt_* name: the tracer's internals are not the program's to bind
#     to, and a program's symbol of the same name must not take their place;
#   - every CUDA and NCCL entry point of the API list (format/api_ids.h);
#   - every other global the library's objects define, which is a wrapper
#     or an entry point (the tracer's own globals are named gt_*, or are
#     static): a wrapper the export list forgot fails here, as does an
#     internal global not named gt_*;
#   - each unversioned, as the real libraries' are bound to.
# And, from the same objects, that the library's two layers refer one way:
# libtrace (the wrappers) calls into collector (the store), never the
# reverse: no collector object refers to a symbol a libtrace object
# defines (a wrapper, reached as the program's close or dlclose would be,
# or libtrace's state).
set -u
. "${top_srcdir:-.}/tests/e2e/testlib.sh"
lib="$b/.libs/libgputrace.so"
nm -D --defined-only "$lib" | awk '{ print $NF }' | sort -u > "$tmp/exported"
echo "exported: $(wc -l < "$tmp/exported") symbols"
expect "no gt_* name exported" "$(grep '^gt_' "$tmp/exported" | head -n 5 | tr '\n' ' ')" ""
expect "no exported name carries a version" "$(grep -c '@' "$tmp/exported")" 0

sed -n 's/^ *X(\([A-Za-z0-9_]*\),.*/\1/p' "$s/format/api_ids.h" | sort -u > "$tmp/api"
if [ "$(wc -l < "$tmp/api")" -ge 100 ]; then ok "the API list read ($(wc -l < "$tmp/api") names)"
else bad "the API list read: only $(wc -l < "$tmp/api") names in format/api_ids.h"; fi
expect "every wrapped CUDA and NCCL entry point exported" \
  "$(comm -23 "$tmp/api" "$tmp/exported" | head -n 5 | tr '\n' ' ')" ""

# the globals the library's objects define (libtool keeps them in .libs)
find "$b" -path '*/.libs/libgputrace_la-*.o' > "$tmp/objects"
if [ "$(wc -l < "$tmp/objects")" -ge 20 ]; then ok "the library's objects found ($(wc -l < "$tmp/objects"))"
else bad "the library's objects: $(wc -l < "$tmp/objects") found under $b"; fi
# (a name with a dot is the compiler's, no C identifier has one: the
# sanitizers' __odr_asan.NAME, never exported)
xargs nm --defined-only < "$tmp/objects" | awk 'NF == 3 && $2 ~ /^[TDBRVWCu]$/ && $3 !~ /\./ { print $3 }' \
  | sort -u > "$tmp/globals"
grep -v '^gt_' "$tmp/globals" > "$tmp/entries"
expect "every global not named gt_* exported (a wrapper missing from the export list)" \
  "$(comm -23 "$tmp/entries" "$tmp/exported" | head -n 5 | tr '\n' ' ')" ""
expect "nothing exported but those globals" "$(comm -13 "$tmp/entries" "$tmp/exported" | head -n 5 | tr '\n' ' ')" ""

# the layers: what collector objects refer to that libtrace objects define.
# Known and left as they are: the dlsym of pyframes.c and writer_rows.c
# (look-ups of names no wrapper takes, which our dlsym passes on as they are)
known="pyframes: dlsym
writer_rows: dlsym"
grep '/libtrace/' "$tmp/objects" | xargs nm --defined-only | awk 'NF == 3 && $2 ~ /^[TDBRVWCu]$/ { print $3 }' \
  | sort -u > "$tmp/libtrace_defs"
: > "$tmp/upward"
for o in $(grep '/collector/' "$tmp/objects"); do
  name=$(basename "$o" .o); name=${name#libgputrace_la-}
  nm -u "$o" | awk '{ print $NF }' | sort -u | comm -12 - "$tmp/libtrace_defs" | sed "s/^/$name: /" >> "$tmp/upward"
done
printf '%s\n' "$known" | sort > "$tmp/known"
expect "no collector object refers to what libtrace defines" \
  "$(sort "$tmp/upward" | comm -23 - "$tmp/known" | head -n 5 | tr '\n' ' ')" ""
finish
