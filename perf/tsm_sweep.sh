#!/bin/bash
# Percent of the measured roofline against M = N (1..64) per variant, the
# shape of the paper's Figs. 18 and 23: K = 2^29 / M rows in double, 2^28 / M
# in complex (the tall operands fill ~8 GiB). One `tessera compare tsm` per
# M; the CSVs are merged (an m column added) and plotted (roof_pct vs M, one
# line per variant; python3-matplotlib).
#
# usage: perf/tsm_sweep.sh TESSERA_BINARY OUT_DIR [KERNEL] [TYPE] [VARIANTS] [REPEATS] [MS]
#   KERNEL tsmttsm|tsmm (default tsmttsm), TYPE d|z (default d),
#   VARIANTS: comma-separated (default: native-cuda,kokkos@Cuda,cublas;
#             the serial reference is far too slow at these sizes),
#   MS: the M values (default: 1..64), e.g. "1 2 4 8 16 32 64".
#   e.g. perf/tsm_sweep.sh build/cuda/src/tessera out/tsm tsmttsm d
set -euo pipefail
if [ $# -lt 2 ]; then
  sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
bin=$1
out=$2
kernel=${3:-tsmttsm}
type=${4:-d}
variants=${5:-native-cuda,kokkos@Cuda,cublas}
repeats=${6:-5}
ms=${7:-$(seq 1 64)}
mkdir -p "$out"
tag="${kernel}_${type}"
merged="$out/tsm_${tag}_sweep.csv"
rm -f "$merged.tmp"
total=$([ "$type" = z ] && echo $((1 << 28)) || echo $((1 << 29)))
for m in $ms; do
  k=$((total / m))
  csv="$out/tsm_${tag}_m$m.csv"
  "$bin" compare tsm --kernel "$kernel" --type "$type" --m "$m" --k "$k" --variants "$variants" \
    --repeats "$repeats" --csv "$csv" --quiet
  if [ ! -f "$merged.tmp" ]; then
    head -1 "$csv" | sed 's/^/m,/' > "$merged.tmp"
  fi
  tail -n +2 "$csv" | sed "s/^/$m,/" >> "$merged.tmp"
done
mv "$merged.tmp" "$merged"
python3 - "$merged" "$out/tsm_${tag}_roof_vs_m.png" "$kernel $type" <<'PY'
import csv, sys
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r.get("roof_pct")]
fig, ax = plt.subplots(figsize=(8, 4.5))
for v in sorted({r["variant"] for r in rows}):
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
import os
os.replace(sys.argv[2] + ".tmp.png", sys.argv[2])
PY
echo "wrote $merged and $out/tsm_${tag}_roof_vs_m.png"
