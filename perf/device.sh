#!/usr/bin/env bash
# The GPU workflow, for a machine with a GPU and no network: build the cuda
# flavour from Kokkos sources carried with the tree, run every test, run the
# benchmarks, and print the result tables last.
#
#   where there is network:  cmake/bootstrap.sh --export-sources .deps/sources
#   on the GPU machine:      perf/device.sh [--quick]
# Results (logs, CSV, JSON, PNG) go to $OUT, else build/device-out.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
quick=0
[ "${1:-}" = "--quick" ] && quick=1
sources=${TESSERA_SOURCES:-$root/.deps/sources}
out=${OUT:-$root/build/device-out}
mkdir -p "$out"
export TESSERA_DEPS_DIR=${TESSERA_DEPS_DIR:-/tmp/tessera-deps}
[ -d "$sources/kokkos" ] || { echo "device: no Kokkos sources in $sources (see the header of this script)" >&2; exit 2; }

nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,clocks.max.mem,driver_version --format=csv | tee "$out/gpu.txt"
lscpu | grep -E 'Model name|^CPU\(s\)|Thread|Socket|NUMA node\(s\)' | tee "$out/cpu.txt"

t0=$SECONDS
cmake/build.sh --flavour cuda --sources "$sources" --no-apt 2>&1 | tee "$out/build.log" | grep -E '^\[|error' || true
[ -x build/cuda/src/tessera ] || { tail -n 40 "$out/build.log"; exit 1; }
echo "[device] build: $((SECONDS - t0)) s"

t0=$SECONDS
(cd build/cuda && ctest --output-on-failure -j 4) > "$out/test.log" 2>&1 || true
tail -n 4 "$out/test.log"
grep -E 'Failed|\*\*\*' "$out/test.log" || true
echo "[device] tests: $((SECONDS - t0)) s"

export OMP_PROC_BIND=spread OMP_PLACES=threads
tessera=build/cuda/src/tessera
if [ "$quick" = 1 ]; then
  $tessera compare stream --size M --quiet --csv "$out/stream.csv" | tee "$out/stream.txt"
  exit 0
fi
# GPU-only sweep over sizes, then the full side-by-side table at L.
for size in M XL; do
  $tessera compare stream --size $size --repeats 30 --warmup 5 --quiet \
    --variants kokkos@Cuda,native-cuda,cuda-memcpy --csv "$out/stream_gpu_$size.csv" > "$out/stream_gpu_$size.txt"
done
$tessera compare stream --size L --repeats 20 --warmup 3 --csv "$out/stream.csv" --json "$out/stream.json" \
  | tee "$out/stream.txt"
for size in M XL; do echo "--- GPU only, size $size"; sed -n '/^kernel/,$p' "$out/stream_gpu_$size.txt"; done
