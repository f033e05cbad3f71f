#!/usr/bin/env bash
# Himeno over MPI, one rank per GPU: weak scaling (L and XL per GPU: the grid
# grows along i, the decomposed direction) and strong scaling (XL in total),
# float and double, halo overlap on and off. Tables on stdout, CSV per run.
#   perf/scripts/himeno_scaling.sh TESSERA OUT_DIR [--cpu]
# --cpu: CPU ranks on one machine (kokkos-rows@OpenMP, the cores split
# evenly): strong scaling of M and L over 1, 2 and 4 ranks, where the ranks
# share one memory (weak scaling would measure that memory, not MPI).
set -uo pipefail
tessera=${1:?tessera binary}
out=${2:?output directory}
mode=${3:-gpu}
case "$mode" in gpu|--cpu) ;; *) echo "scaling: unknown mode '$mode' (--cpu or none)" >&2; exit 2 ;; esac
gpus=$(nvidia-smi -L 2>/dev/null | wc -l)
cores=$(nproc)
variant=native-cuda
[ "$mode" = --cpu ] && variant=kokkos-rows@OpenMP
mpiexec=(mpiexec)
mpiexec --version 2>&1 | grep -q "Open MPI\|OpenRTE" && mpiexec+=(--allow-run-as-root --oversubscribe --bind-to none)
echo "[scaling] $gpus GPUs, $cores cores, $(mpiexec --version 2>&1 | head -1)"
# Interior planes along i grow with the ranks: weak scaling keeps them per GPU.
grid() {  # base size, ranks -> IxJxK
  case $1 in L) echo "$((254 * $2 + 2))x256x512" ;; XL) echo "$((510 * $2 + 2))x512x1024" ;; esac
}
row() {  # label ranks size precision overlap iters
  local label=$1 n=$2 size=$3 prec=$4 overlap=$5 iters=$6 base="$out/scaling_${1}_${2}_${4}_${5}"
  # No OpenMP binding: every rank would pin its main thread to the same first
  # place, and two ranks polling MPI on one core wait out scheduler slices
  # (56 ms per halo exchange instead of 0.2 ms, measured).
  env -u OMP_PLACES OMP_PROC_BIND=false OMP_NUM_THREADS=$((cores / n)) \
    "${mpiexec[@]}" -n "$n" "$tessera" run himeno --variant "$variant" \
    --size "$size" --precision "$prec" --iters "$iters" --repeats 5 --warmup 1 --quiet --no-roofline \
    --overlap "$overlap" --csv "$base.csv" > "$base.txt" 2>&1
  local rc=$? line ex
  line=$(grep -E '^jacobi' "$base.txt" | head -1 | awk '{print $4 " ms " $5 " GB/s " $NF}')
  ex=$(grep -o 'halo exchange alone [0-9.]* us/sweep ([^)]*)' "$base.txt" | head -1)
  printf '%-9s %d rank(s) %-17s %-6s overlap %-3s %2d sweeps rc %d | %s | %s\n' "$label" "$n" "$size" "$prec" \
    "$overlap" "$iters" "$rc" "$line" "$ex"
}
if [ "$mode" = --cpu ]; then
  for size in M L; do
    for n in 1 2 4; do
      for overlap in on off; do
        [ "$n" = 1 ] && [ "$overlap" = off ] && continue
        row strong-$size "$n" $size float "$overlap" 10
      done
    done
  done
  exit 0
fi
# The serial reference validates every run: XL runs do fewer sweeps.
for prec in float double; do
  for n in 1 2 4 8; do
    [ "$n" -le "$gpus" ] || continue
    for overlap in on off; do
      [ "$n" = 1 ] && [ "$overlap" = off ] && continue
      row weak-L "$n" "$(grid L "$n")" "$prec" "$overlap" 20
      row strong-XL "$n" XL "$prec" "$overlap" 10
      [ "$n" -gt 1 ] && [ "$prec" = float ] && row weak-XL "$n" "$(grid XL "$n")" "$prec" "$overlap" 10
    done
  done
done
