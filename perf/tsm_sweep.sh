#!/bin/bash
# Percent of the measured roofline against M = N (1..64) per variant, the
# shape of the paper's Figs. 18 and 23, through `tessera compare tsm --sweep`
# (one process, the ceilings measured once): K = 2^29 / M rows in double,
# 2^28 / M in complex (the tall operands fill 8 GiB); shapes written MxN take
# K = 2^30 / (M + N) (2^29 complex) and are drawn as bars per shape
# (perf/tsm_shapes.sh runs the M != N list). Writes the CSV (a point
# column, then compare's columns) and, with python3-matplotlib, the PNG.
# Rows are timed, not validated (--no-validate: the tests check the kernels).
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
name=sweep
case "$ms" in *x*) name=shapes ;; esac
mkdir -p "$out"
base="$out/tsm_${kernel}_${type}_$name"
png=()
/usr/bin/python3 -c "import matplotlib" 2>/dev/null && png=(--png "$base.png")
"$bin" compare tsm --sweep --sides "$(echo $ms | tr ' ' ',')" --kernel "$kernel" --type "$type" \
  --variants "$variants" --repeats "$repeats" --rounds "$rounds" --no-validate --csv "$base.csv" "${png[@]}"
echo "wrote $base.csv${png:+ and $base.png}"
