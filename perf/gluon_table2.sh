#!/bin/sh
# The paper's Table 2 on this machine: time per event (whole run / events) of
# gg -> (n-2) g for n = 4..14, every variant of the build, float and double.
# Usage: perf/gluon_table2.sh BUILD_DIR [EVENTS] [OUT_DIR]
#   BUILD_DIR  a build with the tessera executable (e.g. build/cuda)
#   EVENTS     events per run (default 1e8; the CPU variants use EVENTS/1000)
# Environment: NS (default "4 5 6 7 8 9 10 11 12 13 14"), PRECISIONS (default
# "float double"), CPU=0 to skip the CPU rows.
# Writes OUT_DIR/gluon_n<N>_<precision>_{gpu,cpu}.{json,csv} through `tessera compare`.
set -eu
build=${1:?usage: perf/gluon_table2.sh BUILD_DIR [EVENTS] [OUT_DIR]}
events=${2:-1e8}
out=${3:-gluon_table2}
mkdir -p "$out"
tessera="$build/src/tessera"
cpu_events=$(python3 -c "print(int(float('$events') / 1000))")
for prec in ${PRECISIONS:-float double}; do
  for n in ${NS:-4 5 6 7 8 9 10 11 12 13 14}; do
    # GPU rows on the full count, median of 5.
    "$tessera" compare gluon --n "$n" --events "$events" --precision "$prec" --repeats 5 --warmup 1 \
      --variants native-cuda,kokkos@Cuda,kokkos-team@Cuda \
      --json "$out/gluon_n${n}_${prec}_gpu.json" --csv "$out/gluon_n${n}_${prec}_gpu.csv"
    # CPU rows (one thread and all threads) on fewer events.
    [ "${CPU:-1}" = 0 ] && continue
    OMP_PROC_BIND=spread OMP_PLACES=threads "$tessera" compare gluon --n "$n" --events "$cpu_events" \
      --precision "$prec" --repeats 3 --warmup 1 --variants serial-reference,kokkos@Serial,kokkos@OpenMP,kokkos-team@OpenMP \
      --json "$out/gluon_n${n}_${prec}_cpu.json" --csv "$out/gluon_n${n}_${prec}_cpu.csv"
  done
done
