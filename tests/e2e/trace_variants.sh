#!/bin/sh
# trace_variants.sh: tests/data/traces/variants.py, the generator of
# modified real traces (issue 43's variants), writes valid Kineto JSON that
# changed what its kind says and nothing else it counts, the same bytes
# twice, and a trace the report reads.
. "${top_srcdir:-.}/tests/e2e/testlib.sh"
gen="$s/tests/data/traces/variants.py"
# counts NAME FILE: "kernels copies loaders nccl_args gpu other" of a trace
counts() {
  python3 - "$1" <<'PY'
import gzip, json, sys
p = sys.argv[1]
ev = json.load(gzip.open(p, "rt") if p.endswith(".gz") else open(p))["traceEvents"]
cat = lambda c: sum(1 for e in ev if e.get("cat") == c)
gpu = sum(1 for e in ev if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset", "cuda_sync", "gpu_user_annotation"))
loaders = [e for e in ev if e.get("name", "").startswith("enumerate(DataLoader)#")]
pageable = sum(1 for e in ev if e.get("name") == "Memcpy HtoD (Pageable -> Device)" and e["args"].get("bytes") == 4096)
nccl_args = sum(1 for e in ev if e.get("cat") == "kernel" and "Collective name" in e.get("args", {}))
print(cat("kernel"), pageable, len(loaders), nccl_args, gpu, cat("cpu_op"))
PY
}
for t in hta-nccl-2rank/nccl_data.json.gz hta-ns-v100/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz; do
  src="$s/tests/data/traces/$t"
  set -- $(counts "$src"); k0=$1 p0=$2 l0=$3 a0=$4 g0=$5 c0=$6
  for kind in strip-args dataloader no-gpu; do
    out="$tmp/$kind/${t%%/*}"
    if ! python3 "$gen" "$src" "$out" "$kind" 2>"$tmp/err"; then
      bad "$t $kind: variants.py runs ($(cat "$tmp/err"))"; continue
    fi
    f="$out/${t#*/}"
    if ! got=$(counts "$f" 2>"$tmp/err"); then bad "$t $kind: valid gzip JSON ($(tail -1 "$tmp/err"))"; continue; fi
    set -- $got
    case $kind in
      strip-args)
        # nccl_data's 15 all-reduce kernels carry args; the V100 trace has none
        expect "$t $kind: no NCCL kernel keeps its collective args, the rest as it was" \
          "$1 $2 $3 $4 $5 $6" "$k0 $p0 $l0 0 $g0 $c0"
        [ "$a0" -gt 0 ] || note "$t has no NCCL kernel with args: nothing to strip" ;;
      dataloader)
        # one range and one 4 KiB pageable upload per gap (widened where too few)
        if [ "$3" -ge 3 ] && [ "$2" = "$3" ] && [ "$1 $4 $6" = "$k0 $a0 $c0" ] && [ "$5" = $((g0 + $3)) ]; then
          ok "$t $kind: $3 DataLoader ranges, $2 pageable uploads, kernels as they were"
        else
          bad "$t $kind: counts '$got' from '$k0 $p0 $l0 $a0 $g0 $c0'"
        fi ;;
      no-gpu)
        expect "$t $kind: no GPU event left, host events as they were" "$5 $6" "0 $c0" ;;
    esac
    python3 "$gen" "$src" "$tmp/again" "$kind"
    if cmp -s "$f" "$tmp/again/${t#*/}"; then ok "$t $kind: the same bytes twice"; else bad "$t $kind: the same bytes twice"; fi
    rm -rf "$tmp/again"
    "$b/gputrace-report" --format json "$out" > "$tmp/r.json" 2>"$tmp/err"; rc=$?
    # no GPU records: the report still reads it (exit 0 or 1, its findings status)
    if [ "$rc" -le 1 ] && python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$tmp/r.json"; then
      ok "$t $kind: gputrace-report reads the variant (exit $rc)"
    else
      bad "$t $kind: gputrace-report reads the variant (exit $rc: $(tail -1 "$tmp/err"))"
    fi
  done
done
# a bad kind: a usage line, exit non-zero
if python3 "$gen" "$s/tests/data/traces/hta-nccl-2rank/nccl_data.json.gz" "$tmp/x" bogus 2>"$tmp/err"; then
  bad "an unknown kind is refused"
else
  expect "an unknown kind is refused with a usage line" "$(head -c 6 "$tmp/err")" "usage:"
fi
finish
