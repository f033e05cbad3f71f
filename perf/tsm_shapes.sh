#!/bin/bash
# The issue's M != N shapes (1x64, 3x17, 24x48, 64x8, 64x1) through
# perf/tsm_sweep.sh: `tessera compare tsm --sweep` over the shapes, the tall
# operands at ~8 GiB, a merged CSV (tsm_KERNEL_TYPE_shapes.csv) and bars of %
# of the roofline per shape and variant.
#
# usage: perf/tsm_shapes.sh TESSERA_BINARY OUT_DIR [KERNEL] [TYPE] [VARIANTS] [REPEATS] [SHAPES]
#   defaults: tsmttsm, d, native-cuda,kokkos@Cuda,cublas,cublaslt, 5, "1x64 3x17 24x48 64x8 64x1"
#   e.g. perf/tsm_shapes.sh build/cuda/src/tessera out/tsm tsmm z
set -euo pipefail
if [ $# -lt 2 ]; then
  sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
exec "$(dirname "$0")/tsm_sweep.sh" "$1" "$2" "${3:-tsmttsm}" "${4:-d}" \
  "${5:-native-cuda,kokkos@Cuda,cublas,cublaslt}" "${6:-5}" "${7:-1x64 3x17 24x48 64x8 64x1}"
