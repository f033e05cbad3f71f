#!/usr/bin/env bash
# Builds Tessera (dependencies included, through cmake/bootstrap.sh) and
# optionally runs its tests or the side-by-side demo.
#   cmake/build.sh --demo     build, then `tessera demo`: every workload side by
#                             side at a small size (CPU and, where there is a
#                             GPU, GPU columns), CSV/JSON and a PNG per workload
#   cmake/build.sh --test     build the host flavour and run every test
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)

usage() {
  cat <<EOF
usage: cmake/build.sh [--flavour host|cuda|auto] [--test] [--demo] [--compile-only]
                      [--sources DIR] [--no-apt] [--jobs N] [--build-dir DIR] [--native-host]
                      [--experiments] [--sanitize]
  --flavour F     host (Serial+OpenMP), cuda (Cuda+OpenMP+Serial) or auto: cuda where
                  a GPU and nvcc are present, else host (default: auto; host with --test)
  --test          run the tests (ctest) after building
  --demo          run the side-by-side demo after building (results in <build>/demo/)
  --compile-only  build only (e.g. the cuda flavour on a machine without a GPU)
  --sources DIR   Kokkos sources for offline machines (see cmake/bootstrap.sh)
  --no-apt        do not install Debian packages
  --jobs N        parallel build jobs
  --build-dir DIR build folder (default build/<flavour>)
  --native-host   compile Tessera's code for this machine's CPU (-march=native;
                  host flavour only)
  --experiments   also build perf/experiments (the standalone probes)
  --sanitize      AddressSanitizer + UndefinedBehaviorSanitizer build of the host
                  flavour in build/host-sanitize (with --test: the tests under them)
EOF
}

flavour="" run_tests=0 run_demo=0 boot_args=() jobs=$(nproc) build_dir="" sources="" native_host=OFF
experiments=OFF sanitize=0
while [ $# -gt 0 ]; do
  case "$1" in
    --flavour) flavour=${2:?--flavour needs a value}; shift 2 ;;
    --test) run_tests=1; shift ;;
    --demo) run_demo=1; shift ;;
    --compile-only) run_tests=0; run_demo=0; shift ;;
    --sources) sources=$(cd "${2:?--sources needs a directory}" && pwd); boot_args+=(--sources "$sources"); shift 2 ;;
    --no-apt) boot_args+=(--no-apt); shift ;;
    --jobs) jobs=${2:?--jobs needs a number}; boot_args+=(--jobs "$jobs"); shift 2 ;;
    --build-dir) build_dir=${2:?--build-dir needs a directory}; shift 2 ;;
    --native-host) native_host=ON; shift ;;
    --experiments) experiments=ON; shift ;;
    --sanitize) sanitize=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "build: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done

have_gpu() { command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | grep -q '^GPU'; }
have_nvcc() { command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ]; }
if [ -z "$flavour" ]; then
  if [ "$run_tests" = 1 ]; then flavour=host; else flavour=auto; fi
fi
if [ "$flavour" = auto ]; then
  if have_gpu && have_nvcc; then flavour=cuda; else flavour=host; fi
fi
case "$flavour" in host|cuda) ;; *) echo "build: unknown flavour '$flavour'" >&2; exit 2 ;; esac
if [ "$sanitize" = 1 ] && [ "$flavour" != host ]; then echo "build: --sanitize is for the host flavour" >&2; exit 2; fi

"$here/bootstrap.sh" --flavour "$flavour" "${boot_args[@]}"
deps=${TESSERA_DEPS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/tessera-deps}/$flavour
if [ "$flavour" = cuda ]; then
  command -v nvcc >/dev/null || export PATH="/usr/local/cuda/bin:$PATH"
  cxx="$deps/bin/nvcc_wrapper"
else
  cxx=$(command -v g++)
fi
suffix=""; [ "$sanitize" = 1 ] && suffix=-sanitize
build_dir=${build_dir:-$root/build/$flavour$suffix}

cmake_args=(-G Ninja -DCMAKE_CXX_COMPILER="$cxx" -DKokkos_ROOT="$deps" -DKokkosKernels_ROOT="$deps"
  -DTESSERA_NATIVE_HOST="$native_host" -DTESSERA_BUILD_EXPERIMENTS="$experiments")
if [ "$sanitize" = 1 ]; then
  # -O1 keeps the build quick and the reports readable; errors stop the test.
  cmake_args+=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g"
    "-DCMAKE_CXX_FLAGS=-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
    "-DCMAKE_EXE_LINKER_FLAGS=-fsanitize=address,undefined")
else
  cmake_args+=(-DCMAKE_BUILD_TYPE=Release)
fi
# Offline machines without an installed GoogleTest build the carried source.
[ -n "$sources" ] && [ -d "$sources/googletest" ] && cmake_args+=(-DTESSERA_GTEST_SOURCE="$sources/googletest")
# ... and the carried header-only libraries and FFTW (bootstrap.sh --export-sources).
[ -n "$sources" ] && [ -d "$sources/include" ] && cmake_args+=(-DTESSERA_EXTRA_INCLUDE="$sources/include")
[ -n "$sources" ] && [ -d "$sources/prefix" ] && cmake_args+=(-DCMAKE_PREFIX_PATH="$sources/prefix") &&
  export LD_LIBRARY_PATH="$sources/prefix/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
t0=$SECONDS
echo "[build] configuring $flavour flavour in $build_dir"
mkdir -p "$build_dir"
cmake -S "$root" -B "$build_dir" "${cmake_args[@]}" > "$build_dir/configure.log" 2>&1 ||
  { tail -n 40 "$build_dir/configure.log"; exit 1; }
grep '^-- Tessera' "$build_dir/configure.log" || true
cmake --build "$build_dir" -j "$jobs"
echo "[build] $flavour flavour built in $((SECONDS - t0)) s"

if [ "$run_tests" = 1 ]; then
  if [ "$sanitize" = 1 ]; then
    # Leaks of the MPI and OpenMP runtimes are theirs, not ours; the
    # downstream test builds an outside application without the sanitizers.
    (cd "$build_dir" && OMP_PROC_BIND=false ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 \
      UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ctest --output-on-failure -j "$jobs" -E downstream)
  else
    (cd "$build_dir" && OMP_PROC_BIND=${OMP_PROC_BIND:-false} ctest --output-on-failure -j "$jobs")
  fi
fi

if [ "$run_demo" = 1 ]; then
  demo="$build_dir/demo"
  mkdir -p "$demo"
  export OMP_PROC_BIND=${OMP_PROC_BIND:-spread} OMP_PLACES=${OMP_PLACES:-threads}
  "$build_dir/src/tessera" demo --out "$demo"
  # A small gluon run's physics files (sigma, running sigma, distributions, gauge profile).
  "$build_dir/src/tessera" run gluon --n 5 --events 2e5 --repeats 1 --warmup 0 --quiet --output "$demo/gluon_run.h5" \
    >/dev/null || echo "[build] gluon --output run failed"
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null && ! /usr/bin/python3 -c 'import matplotlib' 2>/dev/null; then
    case " ${boot_args[*]} " in *" --no-apt "*) ;; *)
      DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends python3-matplotlib >/dev/null ;;
    esac
  fi
  if /usr/bin/python3 -c 'import matplotlib' 2>/dev/null; then
    for csv in "$demo"/*.csv; do
      case "$(basename "$csv")" in summary.csv) continue ;; gluon_run.csv)
        /usr/bin/python3 "$root/perf/scripts/plot_gluon.py" "$csv" -o "${csv%.csv}.png"; continue ;;
      esac
      /usr/bin/python3 "$root/perf/scripts/plot_results.py" "$csv" -o "${csv%.csv}.png"
    done
  else
    echo "[build] python3-matplotlib missing: no charts (CSV and JSON are in $demo)"
  fi
  echo "[build] demo results in $demo"
fi
