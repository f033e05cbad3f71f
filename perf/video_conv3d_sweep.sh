#!/bin/bash
# conv3d time against k (3..15) per variant, the shape of the paper's Tables
# 1-2: k + 3 frames of 720 x 560 -> 4 output frames. One `tessera compare`
# per k; the CSVs are merged into one (a k column added) and plotted (time
# vs k, one line per variant; python3-matplotlib).
#
# usage: perf/video_conv3d_sweep.sh TESSERA_BINARY OUT_DIR [VARIANTS] [REPEATS]
#   SWEEP_ARGS (environment): more options for every run, e.g.
#             SWEEP_ARGS="--width 96 --height 64" for a quick check.
#   VARIANTS: comma-separated (default: every variant of this build; the
#             serial ones are slow at large k, so give a list on big runs),
#   e.g. on a GPU build:
#   perf/video_conv3d_sweep.sh build/cuda/src/tessera out/conv3d \
#     kokkos-baseline@Cuda,kokkos-shared@Cuda,kokkos-streaming@Cuda,kokkos-register@Cuda,native-cuda-streaming,native-cuda-register,cufft-3d,cufft-hybrid
set -euo pipefail
if [ $# -lt 2 ]; then
  sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
bin=$1
out=$2
variants=${3:-}
repeats=${4:-5}
mkdir -p "$out"
merged="$out/conv3d_sweep.csv"
rm -f "$merged.tmp"
for k in 3 5 7 9 11 13 15; do
  args=(compare video --kernels conv3d --k "$k" --repeats "$repeats" --csv "$out/conv3d_k$k.csv")
  # Ceilings measured once (first k), then read from the cache.
  [ "$k" != 3 ] && [[ " ${SWEEP_ARGS:-} " != *" --no-roofline "* ]] && args+=(--cached-ceilings)
  [ -n "$variants" ] && args+=(--variants "$variants")
  # shellcheck disable=SC2206
  [ -n "${SWEEP_ARGS:-}" ] && args+=($SWEEP_ARGS)
  "$bin" "${args[@]}"
  if [ ! -f "$merged.tmp" ]; then
    head -1 "$out/conv3d_k$k.csv" | sed 's/^/k,/' > "$merged.tmp"
  fi
  tail -n +2 "$out/conv3d_k$k.csv" | sed "s/^/$k,/" >> "$merged.tmp"
done
mv "$merged.tmp" "$merged"
/usr/bin/python3 - "$merged" "$out/conv3d_time_vs_k.png" <<'PY'
import csv, sys
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
rows = list(csv.DictReader(open(sys.argv[1])))
series = {}
for r in rows:
    if r.get("kernel") != "conv3d":
        continue
    series.setdefault(r["variant"], []).append((int(r["k"]), 1e3 * float(r["median_s"])))
fig, ax = plt.subplots(figsize=(8, 5))
for name, pts in sorted(series.items()):
    pts.sort()
    ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=name)
ax.set_xlabel("k (k x k x k kernel)")
w, h = rows[0].get("param_conv3d_width", "?"), rows[0].get("param_conv3d_height", "?")
ax.set_ylabel(f"ms per call (T = k + 3 frames of {w} x {h})")
ax.set_yscale("log")
ax.set_title("conv3d time against kernel size")
ax.grid(True, which="both", alpha=0.3)
ax.legend(fontsize=8)
fig.tight_layout()
fig.savefig(sys.argv[2], dpi=120)
print("wrote", sys.argv[2])
PY
echo "wrote $merged"
