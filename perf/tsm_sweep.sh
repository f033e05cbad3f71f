#!/bin/bash
# Percent of the measured roofline against M = N (1..64) per variant, the
# shape of the paper's Figs. 18 and 23: K = 2^29 / M rows in double, 2^28 / M
# in complex (the tall operands fill ~8 GiB). One `tessera compare tsm` per
# shape; the CSVs are merged (m and n columns added) and plotted (roof_pct vs
# M, one line per variant; python3-matplotlib). Shapes written MxN (M != N)
# take K = 2^30 / (M + N) (2^29 in complex, the same 8 GiB) and are plotted as
# bars per shape (perf/tsm_shapes.sh runs the issue's M != N list).
#
# usage: perf/tsm_sweep.sh TESSERA_BINARY OUT_DIR [KERNEL] [TYPE] [VARIANTS] [REPEATS] [MS] [ROUNDS]
#   KERNEL tsmttsm|tsmm (default tsmttsm), TYPE d|z (default d),
#   VARIANTS: comma-separated (default: native-cuda,kokkos@Cuda,cublas,cublaslt;
#             the serial reference is far too slow at these sizes),
#   MS: the M values (default: 1..64), e.g. "1 2 4 8 16 32 64", or MxN shapes "3x17 64x8".
#   ROUNDS: compare's --rounds (default 1); 5 where rows lie within a GPU's run-to-run spread of a target.
#   e.g. perf/tsm_sweep.sh build/cuda/src/tessera out/tsm tsmttsm d
set -euo pipefail
if [ $# -lt 2 ]; then
  sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
bin=$1
out=$2
kernel=${3:-tsmttsm}
type=${4:-d}
variants=${5:-native-cuda,kokkos@Cuda,cublas,cublaslt}
repeats=${6:-5}
ms=${7:-$(seq 1 64)}
rounds=${8:-1}
shapes=0
case "$ms" in *x*) shapes=1 ;; esac
for s in $ms; do
  if ! [[ $s =~ ^[0-9]+(x[0-9]+)?$ ]]; then
    echo "tsm_sweep.sh: '$s' is not M or MxN" >&2
    exit 2
  fi
done
mkdir -p "$out"
tag="${kernel}_${type}"
name=$([ $shapes = 1 ] && echo shapes || echo sweep)
merged="$out/tsm_${tag}_$name.csv"
rm -f "$merged.tmp"
total=$([ "$type" = z ] && echo $((1 << 28)) || echo $((1 << 29)))
for s in $ms; do
  m=${s%x*}
  n=${s#*x}
  k=$((2 * total / (m + n)))
  csv="$out/tsm_${tag}_m${m}$([ "$n" = "$m" ] || echo "n$n").csv"
  "$bin" compare tsm --kernel "$kernel" --type "$type" --m "$m" --n "$n" --k "$k" --variants "$variants" \
    --repeats "$repeats" --rounds "$rounds" --csv "$csv" --quiet
  if [ ! -f "$merged.tmp" ]; then
    head -1 "$csv" | sed 's/^/m,n,/' > "$merged.tmp"
  fi
  tail -n +2 "$csv" | sed "s/^/$m,$n,/" >> "$merged.tmp"
done
mv "$merged.tmp" "$merged"
png="$out/tsm_${tag}_roof_vs_$([ $shapes = 1 ] && echo shape || echo m).png"
if ! python3 -c "import matplotlib" 2>/dev/null; then
  echo "wrote $merged (no matplotlib here: plot it elsewhere with this script's python part)"
  exit 0
fi
python3 - "$merged" "$png" "$kernel $type" "$shapes" <<'PY'
import csv, os, sys
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r.get("roof_pct")]
variants = sorted({r["variant"] for r in rows})
fig, ax = plt.subplots(figsize=(8, 4.5))
if sys.argv[4] == "1":
    shapes = list(dict.fromkeys((int(r["m"]), int(r["n"])) for r in rows))
    w = 0.8 / max(1, len(variants))
    for i, v in enumerate(variants):
        pct = {(int(r["m"]), int(r["n"])): float(r["roof_pct"]) for r in rows if r["variant"] == v}
        ax.bar([j + i * w for j in range(len(shapes))], [pct.get(s, 0) for s in shapes], w, label=v)
    ax.set_xticks([j + 0.4 - w / 2 for j in range(len(shapes))])
    ax.set_xticklabels(["%dx%d" % s for s in shapes])
    ax.set_xlabel("M x N")
else:
    for v in variants:
        pts = sorted((int(r["m"]), float(r["roof_pct"])) for r in rows if r["variant"] == v)
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker=".", label=v)
    ax.set_xlabel("M = N")
ax.set_ylabel("% of the measured roofline")
ax.set_title("tsm " + sys.argv[3])
ax.set_ylim(0, 110)
ax.grid(alpha=0.3)
ax.legend()
fig.tight_layout()
fig.savefig(sys.argv[2] + ".tmp.png", dpi=120)
os.replace(sys.argv[2] + ".tmp.png", sys.argv[2])
PY
echo "wrote $merged and $png"
