#!/bin/bash
# conv3d time against k (3..15) per variant, the shape of the paper's Tables
# 1-2: k + 3 frames of 720 x 560 -> 4 output frames, one `tessera compare`
# with a list of k (rows conv3d-k<k>, and Tables 1-2 printed after the
# results), its CSV plotted by perf/scripts/plot_video_conv3d.py (time vs k,
# one line per variant; skipped without matplotlib).
#
# usage: perf/video_conv3d_sweep.sh TESSERA_BINARY OUT_DIR [VARIANTS] [REPEATS]
#   SWEEP_ARGS (environment): more options, e.g. SWEEP_ARGS="--width 96
#             --height 64" for a quick check; SWEEP_K: the k list
#             (default 3,5,7,9,11,13,15).
#   VARIANTS: comma-separated (default: every variant of this build; the
#             serial ones are slow at large k, so give a list on big runs),
#   e.g. on a GPU build:
#   perf/video_conv3d_sweep.sh build/cuda/src/tessera out/conv3d \
#     kokkos-baseline@Cuda,kokkos-shared@Cuda,kokkos-streaming@Cuda,kokkos-register@Cuda,native-cuda-streaming,native-cuda-register,cufft-3d,cufft-hybrid
set -euo pipefail
if [ $# -lt 2 ]; then
  sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
bin=$1
out=$2
variants=${3:-}
repeats=${4:-5}
mkdir -p "$out"
csv="$out/conv3d_sweep.csv"
args=(compare video --kernels conv3d --size paper --k "${SWEEP_K:-3,5,7,9,11,13,15}" --repeats "$repeats" --csv "$csv")
[ -n "$variants" ] && args+=(--variants "$variants")
# shellcheck disable=SC2206
[ -n "${SWEEP_ARGS:-}" ] && args+=($SWEEP_ARGS)
"$bin" "${args[@]}" | tee "$out/conv3d_sweep.txt"
/usr/bin/python3 "$(dirname "$0")/scripts/plot_video_conv3d.py" "$csv" "$out/conv3d_time_vs_k.png" || true
echo "wrote $csv"
