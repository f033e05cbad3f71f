#!/bin/bash
# What TSMTTSM's global reduction costs (the paper's Fig. 19): the native
# kernel at M = N in {4, 32} for K from 10^4 to 2^29 / M (four steps per
# decade), once as is and once with TESSERA_TSM_SKIP_GLOBAL_REDUCTION=1 (the
# native kernels leave out the final atomics into C: the results are wrong on
# purpose, so that run takes --no-validate). One `tessera run` per point; the
# CSV has both medians and ratio = time without / time with, the performance
# with the reduction as a fraction of that without (the issue asks >= 0.90
# for K >= 10^6; at small K launch latency dominates both), and a plot of
# GB/s and of the ratio against K (python3-matplotlib, if present).
#
# usage: perf/tsm_reduction_sweep.sh TESSERA_BINARY OUT_DIR [TYPE] [MS] [REPEATS]
#   TYPE d|z (default d; z takes K up to 2^28 / M), MS (default "4 32"), REPEATS (default 20)
#   e.g. perf/tsm_reduction_sweep.sh build/cuda/src/tessera out/tsm
set -euo pipefail
if [ $# -lt 2 ]; then
  sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
bin=$1
out=$2
type=${3:-d}
ms=${4:-4 32}
repeats=${5:-20}
case "$type" in d | z) ;; *) echo "tsm_reduction_sweep.sh: TYPE must be d or z" >&2; exit 2 ;; esac
mkdir -p "$out"
total=$([ "$type" = z ] && echo $((1 << 28)) || echo $((1 << 29)))
csv="$out/tsm_reduction_${type}.csv"
tmp="$out/tsm_reduction_point.csv"
run() {  # run K M CSV [extra args...]: one native TSMTTSM, its row's median (s) and GB/s on stdout (nan if none)
  local k=$1 m=$2 file=$3 rc=0
  shift 3
  rm -f "$file"
  "$bin" run tsm --variant native-cuda --kernel tsmttsm --type "$type" --m "$m" --k "$k" --repeats "$repeats" \
    --no-roofline --quiet --csv "$file" "$@" > /dev/null || rc=$?
  [ $rc = 0 ] || echo "tsm_reduction_sweep.sh: M = $m, K = $k $*: tessera exited $rc" >&2
  if [ -f "$file" ]; then
    python3 -c 'import csv, sys; r = next(csv.DictReader(open(sys.argv[1]))); print(r["median_s"], r["gbs"])' "$file"
  else
    echo nan nan
  fi
}
# The switch must be honoured: a validated run without the reduction has to fail.
if TESSERA_TSM_SKIP_GLOBAL_REDUCTION=1 "$bin" run tsm --variant native-cuda --m 4 --k 100000 --repeats 1 \
  --warmup 0 --no-roofline --quiet > /dev/null 2>&1; then
  echo "tsm_reduction_sweep.sh: warning: TESSERA_TSM_SKIP_GLOBAL_REDUCTION=1 did not change the native" \
    "results (this build ignores it): the 'without' column times the full kernel" >&2
fi
echo "m,k,with_s,without_s,with_gbs,without_gbs,ratio" > "$csv.tmp"
for m in $ms; do
  kmax=$((total / m))
  ks=$(awk -v kmax="$kmax" 'BEGIN { for (i = 0; ; ++i) { k = int(1e4 * 10 ^ (i / 4) + 0.5); if (k >= kmax) break; print k } print kmax }')
  for k in $ks; do
    read -r t1 g1 < <(run "$k" "$m" "$tmp")
    read -r t0 g0 < <(TESSERA_TSM_SKIP_GLOBAL_REDUCTION=1 run "$k" "$m" "$tmp" --no-validate)
    ratio=$(awk -v a="$t0" -v b="$t1" 'BEGIN { if (a + 0 > 0 && b + 0 > 0) printf "%.4f", a / b; else print "nan" }')
    echo "$m,$k,$t1,$t0,$g1,$g0,$ratio" >> "$csv.tmp"
    echo "M = N = $m, K = $k: $t1 s with the reduction, $t0 s without (ratio $ratio)"
  done
done
rm -f "$tmp"
mv "$csv.tmp" "$csv"
png="$out/tsm_reduction_${type}.png"
if ! python3 -c "import matplotlib" 2>/dev/null; then
  echo "wrote $csv (no matplotlib here: no plot)"
  exit 0
fi
python3 - "$csv" "$png" "$type" <<'PY'
import csv, os, sys
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
rows = list(csv.DictReader(open(sys.argv[1])))
fig, (a, b) = plt.subplots(2, 1, figsize=(8, 7), sharex=True)
for m in sorted({int(r["m"]) for r in rows}):
    pts = sorted((int(r["k"]), float(r["with_gbs"]), float(r["without_gbs"]), float(r["ratio"]))
                 for r in rows if int(r["m"]) == m)
    k = [p[0] for p in pts]
    line, = a.plot(k, [p[1] for p in pts], marker=".", label="M = N = %d" % m)
    a.plot(k, [p[2] for p in pts], ls="--", color=line.get_color(), label="M = N = %d, no global reduction" % m)
    b.plot(k, [p[3] for p in pts], marker=".", color=line.get_color(), label="M = N = %d" % m)
b.axhline(0.9, color="gray", lw=0.8, ls=":")
b.axvline(1e6, color="gray", lw=0.8, ls=":")
a.set_ylabel("GB/s")
b.set_ylabel("with / without reduction (perf.)")
b.set_xlabel("K")
b.set_xscale("log")
a.set_title("tsm TSMTTSM %s: cost of the global reduction (paper Fig. 19)" % sys.argv[3])
for ax in (a, b):
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
fig.tight_layout()
fig.savefig(sys.argv[2] + ".tmp.png", dpi=120)
os.replace(sys.argv[2] + ".tmp.png", sys.argv[2])
PY
echo "wrote $csv and $png"
