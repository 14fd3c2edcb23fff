#!/bin/sh
# layers.sh: code runs one way.  The tree's rooms (README.md, "Layout")
# include only the rooms below them: common/ nothing, format/ common/,
# collector/ format/, libtrace/ collector/, the cli/ and the importers
# the format, the report the format and the importers.  In the report,
# read/ (databases into the model) -> model/ (the run in memory) ->
# analyse/ (findings) -> write/ (text, JSON, traces), with the driver
# (viewer/*.c) above them all (docs/report.md, "How the code is laid
# out"): checked twice, by the files each layer includes and by the
# symbols each layer's objects use, which catches a call back up that a
# declaration of its own hides.
set -u
. "${top_srcdir:-.}/tests/e2e/testlib.sh"
# LAYER: the layers it must not reach (the driver is viewer/*.h)
rules='
model read analyse write driver
read analyse write driver
analyse read write driver
write driver
'
# includes: the source files of each layer
layer_of_include() {
  case "$1" in
    viewer/model/*) echo model ;; viewer/read/*) echo read ;; viewer/analyse/*) echo analyse ;;
    viewer/write/*) echo write ;; viewer/*.h) echo driver ;; *) echo other ;;
  esac
}
echo "$rules" | while read -r layer forbidden; do
  [ -n "$layer" ] || continue
  found=""
  for f in "$s/viewer/$layer"/*.[ch]; do
    for inc in $(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f"); do
      l=$(layer_of_include "$inc")
      case " $forbidden " in *" $l "*) found="$found ${f#"$s/"}->$inc" ;; esac
    done
  done
  echo "$layer|$found"
done > "$tmp/includes"
while IFS='|' read -r layer found; do
  expect "viewer/$layer includes nothing of a layer above it or of the driver${found:+:$found}" "$found" ""
done < "$tmp/includes"
# the rooms of the tree: ROOM: the rooms its files may include
rooms='
common common
format format common
collector collector format common
libtrace libtrace collector format common
cli cli collector format common import
import import format common
viewer viewer format common import
'
echo "$rooms" | while read -r room allowed; do
  [ -n "$room" ] || continue
  found=""
  for f in $(find "$s/$room" -name '*.[ch]'); do
    for inc in $(sed -n 's/^#include "\([a-z_]*\)\/[^"]*".*/\1/p' "$f" | sort -u); do
      case " $allowed " in *" $inc "*) ;; *) found="$found ${f#"$s/"}->$inc/" ;; esac
    done
  done
  echo "$room|$allowed|$found"
done > "$tmp/rooms"
while IFS='|' read -r room allowed found; do
  expect "$room/ includes only $allowed${found:+:$found}" "$found" ""
done < "$tmp/rooms"
# symbols: what each layer's objects use that another layer defines
# (the objects of today's sources: an object of a file since moved may be left)
objs() {
  for c in "$s/viewer/$1"/*.c; do
    o="$b/viewer/$1/gputrace_report-$(basename "$c" .c).o"
    [ -f "$o" ] && echo "$o"
  done
}
[ -n "$(objs model)" ] || { bad "the report's objects are built in $b/viewer"; finish; exit; }
for l in model read analyse write; do
  nm --defined-only -g $(objs "$l") 2>/dev/null | awk 'NF == 3 { print $3 }' | sort -u > "$tmp/def-$l"
  nm -u $(objs "$l") 2>/dev/null | awk '{ print $NF }' | sort -u > "$tmp/use-$l"
done
for c in "$s"/viewer/*.c; do echo "$b/viewer/gputrace_report-$(basename "$c" .c).o"; done > "$tmp/driver-objs"
nm --defined-only -g $(cat "$tmp/driver-objs") 2>/dev/null | awk 'NF == 3 { print $3 }' | sort -u > "$tmp/def-driver"
echo "$rules" | while read -r layer forbidden; do
  [ -n "$layer" ] || continue
  for up in $forbidden; do
    calls=$(comm -12 "$tmp/use-$layer" "$tmp/def-$up" | tr '\n' ' ')
    echo "$layer|$up|$calls"
  done
done > "$tmp/symbols"
while IFS='|' read -r layer up calls; do
  expect "viewer/$layer calls nothing viewer/$up defines${calls:+: $calls}" "$calls" ""
done < "$tmp/symbols"
finish
