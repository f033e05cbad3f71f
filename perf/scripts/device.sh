#!/usr/bin/env bash
# The GPU workflow, for a machine with a GPU and no network: build the cuda
# flavour from Kokkos sources carried with the tree, run every test, run the
# benchmarks, and print the result tables last.
#
#   where there is network:  cmake/bootstrap.sh --export-sources .deps/sources
#   on the GPU machine:      perf/scripts/device.sh [--quick | --himeno | --scaling | --workloads]
#     (default: STREAM and Himeno; --himeno: Himeno and its bandwidth probe;
#      --scaling: Himeno over MPI, one rank per GPU, weak and strong scaling;
#      --workloads: every workload's comparison at its benchmark size, the
#      ceilings and portability metric of each;
#      --sweeps: tsm over M = N, gluon's Table 2 on the GPU, conv3d over k;
#      --cpu: the CPU rows of record on the host's cores: conv3d at the paper
#      size, tsm M = N <= 16 against OpenBLAS, gluon one thread against all)
# perf/README.md says what each mode measures.
# Results (logs, CSV, JSON) go to build/device-out, and as one tarball to
# $TESSERA_RESULTS_DIR when that is set (one file is easy to copy back).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
mode=${1:---all}
case "$mode" in --all|--quick|--himeno|--scaling|--workloads|--sweeps|--cpu) ;; *) echo "device: unknown mode '$mode'" >&2; exit 2 ;; esac
sources=${TESSERA_SOURCES:-$root/.deps/sources}
out=$root/build/device-out
rm -rf "$out" && mkdir -p "$out"
bundle() {
  [ -n "${TESSERA_RESULTS_DIR:-}" ] && tar czf "$TESSERA_RESULTS_DIR/device-results.tar.gz" -C "$root/build" device-out
  true
}
trap bundle EXIT
export TESSERA_DEPS_DIR=${TESSERA_DEPS_DIR:-/tmp/tessera-deps}
[ -d "$sources/kokkos" ] || { echo "device: no Kokkos sources in $sources (see the header of this script)" >&2; exit 2; }

nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,clocks.max.mem,driver_version --format=csv | tee "$out/gpu.txt"
lscpu | grep -E 'Model name|^CPU\(s\)|Thread|Socket|NUMA node\(s\)' | tee "$out/cpu.txt"

t0=$SECONDS
cmake/build.sh --flavour cuda --sources "$sources" --no-apt 2>&1 | tee "$out/build.log" | grep -E '^\[|error' ||
  # A target that fails to build should not keep the others from running.
  ninja -C build/cuda -k 0 >> "$out/build.log" 2>&1 || grep -E "error|FAILED" "$out/build.log" | head -n 20
[ -x build/cuda/src/tessera ] || { tail -n 40 "$out/build.log"; exit 1; }
echo "[device] build: $((SECONDS - t0)) s"

t0=$SECONDS
[ -n "${TESSERA_SKIP_TESTS:-}" ] || (cd build/cuda && ctest --output-on-failure -j 4) > "$out/test.log" 2>&1 || true
tail -n 4 "$out/test.log" 2>/dev/null || true
grep -E "Failed|\*\*\*" "$out/test.log" 2>/dev/null || true
echo "[device] tests: $((SECONDS - t0)) s"

export OMP_PROC_BIND=spread OMP_PLACES=threads
tessera=build/cuda/src/tessera
if [ "$mode" = --quick ]; then
  $tessera compare stream --size M --quiet --csv "$out/stream.csv" | tee "$out/stream.txt"
  exit 0
fi
if [ "$mode" = --workloads ]; then
  # Variants of a workload on the given platforms ("gpu", "gpu|cpu"), as a list.
  list=$($tessera list)  # (a `tessera list | grep -q` pipeline fails under pipefail)
  has() { grep -q "^  $1:" <<< "$list"; }
  variants() { echo "$list" | sed -n "/^  $1:/,/^  [a-z]/p" | awk -v p="^\\[($2)\\]$" '$1=="*" && $3 ~ p {print $2}' | paste -sd,; }
  # One comparison, bounded in time, its table kept as NAME.txt (+ CSV, JSON).
  cmp() {
    local name=$1; shift
    echo "[device] $name: $*"
    timeout "${TESSERA_CMP_TIMEOUT:-150}" $tessera compare "$@" --quiet --csv "$out/$name.csv" --json "$out/$name.json" \
      > "$out/$name.txt" 2>&1 || echo "[device] $name: exit $?"
  }
  # The ceilings are measured by the first comparison and cached for the others.
  cmp stream_L stream --size L --repeats 20 --warmup 3 --recalibrate --variants "$(variants stream 'gpu|cpu')"
  for prec in double float; do
    cmp himeno_L_$prec himeno --size L --precision $prec --iters 10 --repeats 5 --warmup 1 --cached-ceilings \
      --variants "$(variants himeno 'gpu'),kokkos-rows@OpenMP,kokkos-fused2@OpenMP"
  done
  if has tsm; then
    # GPU rows at the paper's sizes (8 GiB of tall operands); the CPU rows on
    # 1/16 of K (their minutes would otherwise exceed the time bound).
    tg=$(variants tsm 'gpu')
    tc=$(variants tsm 'cpu')
    cmp tsm_tsmttsm_d16 tsm --kernel tsmttsm --type d --m 16 --k 33554432 --cached-ceilings --repeats 5 --variants "$tg"
    cmp tsm_tsmttsm_d64 tsm --kernel tsmttsm --type d --m 64 --k 8388608 --cached-ceilings --repeats 5 --variants "$tg"
    cmp tsm_tsmm_d32 tsm --kernel tsmm --type d --m 32 --k 16777216 --cached-ceilings --repeats 5 --variants "$tg"
    cmp tsm_tsmttsm_z32 tsm --kernel tsmttsm --type z --trans c --m 32 --k 8388608 --beta 0.5 --cached-ceilings \
      --repeats 5 --variants "$tg"
    cmp tsm_tsmttsm_d16_cpu tsm --kernel tsmttsm --type d --m 16 --k 2097152 --cached-ceilings --repeats 3 \
      --variants "$tc"
  fi
  if has gluon; then
    for n in 4 8 12; do
      cmp gluon_n${n}_float gluon --n $n --events 1e7 --precision float --cached-ceilings --repeats 3 --warmup 1 \
        --variants "$(variants gluon 'gpu')"
    done
    cmp gluon_n8_double gluon --n 8 --events 1e7 --precision double --cached-ceilings --repeats 3 --warmup 1 \
      --variants "$(variants gluon 'gpu')"
    for n in 4 8; do
      cmp gluon_n${n}_float_cpu gluon --n $n --events 1e6 --precision float --cached-ceilings --repeats 3 --warmup 1 \
        --variants "$(variants gluon 'cpu')"
    done
  fi
  if has video; then
    conv=kokkos-baseline@Cuda,kokkos-shared@Cuda,kokkos-streaming@Cuda,kokkos-register@Cuda,native-cuda-streaming
    conv=$conv,native-cuda-register,cufft-3d,cufft-hybrid,kokkos-register@OpenMP,fftw-3d,fftw-hybrid
    for k in 15 5; do
      cmp video_conv3d_k$k video --kernels conv3d --k $k --cached-ceilings --repeats 5 --variants "$conv"
    done
    cmp video_pairwise video --kernels pairwise --cached-ceilings --repeats 5 \
      --variants kokkos-tiled@Cuda,kokkosblas-gemm@Cuda,native-cuda-tiled,kokkos-tiled@OpenMP,kokkosblas-gemm@OpenMP
    cmp video_image video --kernels bspline,dibr,bilateral --cached-ceilings --repeats 10
  fi
  for f in "$out"/*.txt; do echo "--- $(basename "$f")"; sed -n '/ceilings:/p;/^kernel/,/^$/p;/portability/,/^$/p' "$f"; done
  exit 0
fi
if [ "$mode" = --cpu ]; then
  # Every row on all cores (OMP_PROC_BIND=spread OMP_PLACES=threads) and,
  # where the issue compares single-threaded CPUs, one thread.
  run() { local name=$1; shift; echo "[device] $name"
    timeout 240 $tessera compare "$@" --quiet --cached-ceilings --csv "$out/$name.csv" > "$out/$name.txt" 2>&1 ||
      echo "[device] $name: exit $?"; }
  # The CPU ceilings, measured once and cached for the rows below.
  $tessera compare stream --size M --variants kokkos@OpenMP --recalibrate --quiet > "$out/ceilings.txt" 2>&1 || true
  run cpu_conv3d video --size paper --kernels conv3d --k 5,9,15 --repeats 3 --warmup 1 \
    --variants kokkos-register@OpenMP,kokkos-register@Serial,fftw-3d,fftw-hybrid
  for k in tsmttsm tsmm; do
    for m in 1 2 4 8 16; do
      run cpu_tsm_${k}_$m tsm --kernel $k --type d --m $m --k $((33554432 / m)) --repeats 5 \
        --variants kokkos@OpenMP,openblas
    done
  done
  for n in 4 12; do
    ev=2e6; [ $n = 12 ] && ev=1e5
    run cpu_gluon_n$n gluon --n $n --events $ev --precision float --repeats 3 --warmup 1 \
      --variants kokkos@Serial,kokkos@OpenMP
  done
  for f in "$out"/cpu_*.txt; do echo "--- $(basename "$f")"; sed -n '/ceilings:/p;/^kernel/,/^$/p' "$f"; done
  exit 0
fi
if [ "$mode" = --sweeps ]; then
  $tessera run stream --size M --recalibrate --quiet > "$out/ceilings.txt" 2>&1 || true
  ms="1 2 4 8 12 16 24 32 40 48 56 64"
  for k in tsmttsm tsmm; do
    timeout 200 perf/tsm_sweep.sh $tessera "$out/tsm" $k d native-cuda,kokkos@Cuda,cublas 3 "$ms" \
      > "$out/tsm_sweep_$k.txt" 2>&1 || echo "[device] tsm sweep $k: exit $?"
  done
  NS="4 6 8 10 12 14" PRECISIONS="float double" CPU=0 timeout 150 perf/gluon_table2.sh build/cuda 1e7 "$out/gluon" \
    > "$out/gluon_table2.txt" 2>&1 || echo "[device] gluon table 2: exit $?"
  timeout 150 perf/video_conv3d_sweep.sh $tessera "$out/conv3d" \
    kokkos-shared@Cuda,kokkos-streaming@Cuda,kokkos-register@Cuda,native-cuda-streaming,native-cuda-register,cufft-3d,cufft-hybrid 3 \
    > "$out/conv3d_sweep.txt" 2>&1 || echo "[device] conv3d sweep: exit $?"
  for f in "$out"/*.txt; do echo "--- $(basename "$f")"; tail -n 40 "$f"; done
  exit 0
fi
if [ "$mode" = --scaling ]; then
  perf/scripts/himeno_scaling.sh "$tessera" "$out" 2>&1 | tee "$out/scaling.txt"
  exit 0
fi
if [ "$mode" = --himeno ]; then
  # The probes are experiments (perf/experiments), built on request only.
  cmake -S "$root" -B build/cuda -DTESSERA_BUILD_EXPERIMENTS=ON > "$out/experiments.log" 2>&1 &&
    cmake --build build/cuda --target himeno_streams_probe himeno_fused_probe >> "$out/experiments.log" 2>&1 ||
    tail -n 20 "$out/experiments.log"
  build/cuda/perf/experiments/himeno_streams_probe | tee "$out/probe.txt" || true
  build/cuda/perf/experiments/himeno_fused_probe | tee "$out/fused_probe.txt" || true
fi
# Himeno: GPU variants at L and XL in float and double, then the paper-style
# table of every variant at M (CPU columns included).
if $tessera list | grep '^  himeno:' > /dev/null; then
  gpu_variants=$($tessera list | sed -n '/^  himeno:/,/^  [a-z]/p' | awk '$1=="*" && $3=="[gpu]" {print $2}' | paste -sd,)
  for prec in float double; do
    for size in L XL; do
      iters=20; [ $size = XL ] && iters=10  # the serial reference validates every run
      $tessera compare himeno --size $size --precision $prec --iters $iters --repeats 5 --warmup 1 --quiet \
        --variants "$gpu_variants" --csv "$out/himeno_${size}_${prec}.csv" > "$out/himeno_${size}_${prec}.txt" || true
    done
  done
  $tessera compare himeno --size M --precision float --iters 10 --repeats 3 --warmup 1 --quiet \
    --csv "$out/himeno_M_all.csv" > "$out/himeno_M_all.txt" || true
fi
[ "$mode" = --himeno ] && { for f in "$out"/himeno_*.txt; do echo "--- $(basename "$f")"; sed -n '/^  roofline/p;/^kernel/,$p' "$f"; done; exit 0; }
# GPU-only sweep over sizes, then the full side-by-side table at L.
for size in M XL; do
  $tessera compare stream --size $size --repeats 30 --warmup 5 --quiet \
    --variants kokkos@Cuda,native-cuda,cuda-memcpy --csv "$out/stream_gpu_$size.csv" > "$out/stream_gpu_$size.txt"
done
$tessera compare stream --size L --repeats 20 --warmup 3 --csv "$out/stream.csv" --json "$out/stream.json" \
  | tee "$out/stream.txt"
for size in M XL; do echo "--- GPU only, size $size"; sed -n '/^kernel/,$p' "$out/stream_gpu_$size.txt"; done
for f in "$out"/himeno_*.txt; do [ -f "$f" ] && { echo "--- $(basename "$f")"; sed -n '/^  roofline/p;/^kernel/,$p' "$f"; }; done
