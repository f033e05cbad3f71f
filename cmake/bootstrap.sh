#!/usr/bin/env bash
# Builds Tessera's dependencies: Debian packages, then Kokkos + Kokkos Kernels
# from Debian's Trilinos source with the patches in cmake/patches/, in one or
# both flavours:
#   host  Serial + OpenMP, g++                        (what CI tests run on)
#   cuda  Cuda (lambda) + OpenMP + Serial, nvcc_wrapper (needs nvcc, not a GPU)
# Idempotent: everything lives in a cache outside the source tree and a flavour
# is rebuilt only when its inputs (versions, patches, this script, compilers)
# change. Prints nothing but progress; the install prefixes are
#   $TESSERA_DEPS_DIR/<flavour>     (default ~/.cache/tessera-deps/<flavour>)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=dependencies.env
source "$here/dependencies.env"

usage() {
  cat <<EOF
usage: cmake/bootstrap.sh [--flavour host|cuda|all] [--sources DIR] [--no-apt]
                          [--export-sources DIR] [--jobs N]
  --flavour F          which Kokkos build(s) to make (default host)
  --sources DIR        take pristine kokkos/ and kokkos-kernels/ from DIR instead
                       of downloading Debian's Trilinos source (offline machines)
  --export-sources DIR copy the pristine sources to DIR (to carry them elsewhere)
  --no-apt             do not install Debian packages
  --jobs N             parallel build jobs (default: number of cores)
Environment: TESSERA_DEPS_DIR (cache, default ~/.cache/tessera-deps)
EOF
}

flavours=host sources="" export_to="" use_apt=1 jobs=$(nproc)
while [ $# -gt 0 ]; do
  case "$1" in
    --flavour) flavours=${2:?--flavour needs a value}; shift 2 ;;
    --sources) sources=${2:?--sources needs a directory}; shift 2 ;;
    --export-sources) export_to=${2:?--export-sources needs a directory}; shift 2 ;;
    --no-apt) use_apt=0; shift ;;
    --jobs) jobs=${2:?--jobs needs a number}; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "bootstrap: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done
case "$flavours" in
  host|cuda) ;;
  all) flavours="host cuda" ;;
  *) echo "bootstrap: unknown flavour '$flavours' (host, cuda or all)" >&2; exit 2 ;;
esac

cache=${TESSERA_DEPS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/tessera-deps}
mkdir -p "$cache"
log() { printf '[bootstrap %s] %s\n' "$(date +%H:%M:%S)" "$*"; }

# ---------------------------------------------------------------- packages --
debian_packages=(g++ cmake ninja-build patch libopenmpi-dev openmpi-bin
  libhdf5-openmpi-dev libfftw3-dev libblas-dev liblapack-dev libgtest-dev nlohmann-json3-dev librandom123-dev
  libopenblas-dev libbenchmark-dev python3-matplotlib)
if [ "$use_apt" = 1 ] && command -v apt-get >/dev/null; then
  missing=()
  for p in "${debian_packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    [ "$(id -u)" = 0 ] || { echo "bootstrap: need root to install: ${missing[*]}" >&2; exit 1; }
    log "installing Debian packages: ${missing[*]}"
    apt-get update -q >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
  fi
fi

# ----------------------------------------------------------------- sources --
pristine="$cache/src/${TRILINOS_DEBIAN_SOURCE//=/-}"
fetch_sources() {
  local dl="$cache/download"
  rm -rf "$dl" && mkdir -p "$dl"
  if ! (cd "$dl" && apt-get source --download-only -q "$TRILINOS_DEBIAN_SOURCE" >/dev/null 2>&1); then
    # apt lists only binary packages by default: add the matching deb-src entries.
    log "adding deb-src entries to apt's sources"
    if [ -f /etc/apt/sources.list.d/debian.sources ]; then
      sed 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources \
        > /etc/apt/sources.list.d/tessera-deb-src.sources
    elif [ -f /etc/apt/sources.list ]; then
      grep '^deb ' /etc/apt/sources.list | sed 's/^deb /deb-src /' \
        > /etc/apt/sources.list.d/tessera-deb-src.list
    fi
    apt-get update -q >/dev/null
    (cd "$dl" && apt-get source --download-only -q "$TRILINOS_DEBIAN_SOURCE" >/dev/null 2>&1) ||
      { echo "bootstrap: could not download Debian source '$TRILINOS_DEBIAN_SOURCE'" >&2; exit 1; }
  fi
  local tarball
  tarball=$(ls "$dl"/trilinos_*.orig.tar.* | head -n1)
  log "extracting packages/kokkos and packages/kokkos-kernels from $(basename "$tarball")"
  rm -rf "$pristine.tmp" && mkdir -p "$pristine.tmp"
  tar -xf "$tarball" -C "$pristine.tmp" --strip-components=2 \
    --wildcards '*/packages/kokkos/*' '*/packages/kokkos-kernels/*'
  rm -rf "$pristine" && mv "$pristine.tmp" "$pristine" && rm -rf "$dl"
}
if [ -n "$sources" ]; then
  [ -f "$sources/kokkos/CMakeLists.txt" ] && [ -f "$sources/kokkos-kernels/CMakeLists.txt" ] ||
    { echo "bootstrap: '$sources' does not hold kokkos/ and kokkos-kernels/" >&2; exit 2; }
  pristine=$(cd "$sources" && pwd)
elif [ ! -f "$pristine/kokkos/CMakeLists.txt" ]; then
  command -v apt-get >/dev/null ||
    { echo "bootstrap: no apt-get here: pass --sources DIR with kokkos/ and kokkos-kernels/" >&2; exit 2; }
  fetch_sources
fi
if [ -n "$export_to" ]; then
  mkdir -p "$export_to" && rm -rf "$export_to/kokkos" "$export_to/kokkos-kernels"
  cp -r "$pristine/kokkos" "$pristine/kokkos-kernels" "$export_to/"
  # GoogleTest's source too, for machines where it is not installed.
  if [ -d /usr/src/googletest ]; then rm -rf "$export_to/googletest"; cp -r /usr/src/googletest "$export_to/"; fi
  # Header-only libraries (nlohmann-json, Random123) and FFTW's float library
  # with its header, for machines that lack the Debian packages.
  rm -rf "$export_to/include" "$export_to/prefix" && mkdir -p "$export_to/include" "$export_to/prefix/include" \
    "$export_to/prefix/lib"
  for h in nlohmann Random123; do [ -d /usr/include/$h ] && cp -r /usr/include/$h "$export_to/include/"; done
  if [ -f /usr/include/fftw3.h ]; then
    cp /usr/include/fftw3.h "$export_to/prefix/include/"
    for l in fftw3f fftw3f_omp; do
      f=$(ls /usr/lib/*-linux-gnu/lib$l.so.3 2>/dev/null | head -n 1)
      [ -n "$f" ] && cp -L "$f" "$export_to/prefix/lib/lib$l.so.3" && ln -sf "lib$l.so.3" "$export_to/prefix/lib/lib$l.so"
    done
  fi
  log "exported pristine sources to $export_to"
fi

kokkos_version=$(sed -n 's/^set(Kokkos_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\))/\2/p' \
  "$pristine/kokkos/CMakeLists.txt" | paste -sd.)
patchdir="$here/patches/kokkos-$kokkos_version"
[ -d "$patchdir" ] || { echo "bootstrap: no patches for Kokkos $kokkos_version ($patchdir)" >&2; exit 1; }

# A patched copy per patch set, so the pristine tree stays reusable.
patched="$cache/src/kokkos-$kokkos_version-patched"
patch_stamp=$(cat "$patchdir"/*.patch | sha1sum | cut -c1-12)
if [ "$(cat "$patched/.stamp" 2>/dev/null)" != "$patch_stamp" ]; then
  log "patching Kokkos $kokkos_version ($(ls "$patchdir" | wc -l) patches)"
  rm -rf "$patched" && mkdir -p "$patched"
  cp -r "$pristine/kokkos" "$pristine/kokkos-kernels" "$patched/"
  for p in "$patchdir"/*.patch; do
    patch -d "$patched/kokkos" -p1 --quiet --forward < "$p" ||
      { echo "bootstrap: patch $(basename "$p") does not apply" >&2; exit 1; }
  done
  echo "$patch_stamp" > "$patched/.stamp"
fi

# ------------------------------------------------------------------ builds --
find_nvcc() {
  command -v nvcc 2>/dev/null && return
  [ -x /usr/local/cuda/bin/nvcc ] && echo /usr/local/cuda/bin/nvcc && return
  return 1
}

build_flavour() {
  local flavour=$1 prefix="$cache/$1" build="$cache/build/$1"
  local cxx kokkos_opts kk_opts
  case "$flavour" in
    host)
      cxx=$(command -v g++)
      kokkos_opts=(-DKokkos_ENABLE_SERIAL=ON -DKokkos_ENABLE_OPENMP=ON)
      # Debian's reference BLAS uses gfortran's mangling; naming it spares
      # Kokkos Kernels a Fortran compiler probe.
      kk_opts=(-DKokkosKernels_ENABLE_TPL_BLAS=ON "-DF77_BLAS_MANGLE=(name,NAME) name ## _") ;;
    cuda)
      local nvcc
      nvcc=$(find_nvcc) || { echo "bootstrap: the cuda flavour needs nvcc (CUDA toolkit)" >&2; exit 1; }
      export PATH="$(dirname "$nvcc"):$PATH"
      cxx="$prefix/bin/nvcc_wrapper"
      kokkos_opts=(-DKokkos_ENABLE_SERIAL=ON -DKokkos_ENABLE_OPENMP=ON
        -DKokkos_ENABLE_CUDA=ON -DKokkos_ENABLE_CUDA_LAMBDA=ON
        "-DKokkos_ARCH_${KOKKOS_CUDA_ARCH}=ON")
      kk_opts=(-DKokkosKernels_ENABLE_TPL_CUBLAS=ON -DKokkosKernels_ENABLE_TPL_CUSPARSE=OFF
        -DKokkosKernels_ENABLE_TPL_BLAS=OFF) ;;
  esac
  local stamp
  stamp=$( { cat "$here/dependencies.env" "$0"; echo "$patch_stamp $flavour";
             g++ --version | head -n1; if [ "$flavour" = cuda ]; then nvcc --version | tail -n1; fi; } |
           sha1sum | cut -c1-12)
  if [ "$(cat "$prefix/.stamp" 2>/dev/null)" = "$stamp" ]; then
    log "$flavour flavour up to date: $prefix"
    return
  fi
  log "building Kokkos $kokkos_version ($flavour) with $jobs jobs"
  local t0=$SECONDS
  rm -rf "$prefix" "$build" && mkdir -p "$prefix/bin" "$build"
  # Kokkos' own nvcc_wrapper is the CXX compiler of a Cuda build; install it first.
  cp "$patched/kokkos/bin/nvcc_wrapper" "$prefix/bin/"
  local common=(-G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_STANDARD=17
    -DCMAKE_CXX_EXTENSIONS=OFF -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_INSTALL_PREFIX="$prefix"
    -DCMAKE_POSITION_INDEPENDENT_CODE=ON -DBUILD_SHARED_LIBS=OFF)
  cmake -S "$patched/kokkos" -B "$build/kokkos" "${common[@]}" "${kokkos_opts[@]}" \
    -DKokkos_ENABLE_TESTS=OFF -DKokkos_ENABLE_EXAMPLES=OFF > "$build/kokkos.configure.log" 2>&1 ||
    { tail -n 30 "$build/kokkos.configure.log"; exit 1; }
  cmake --build "$build/kokkos" -j "$jobs" > "$build/kokkos.build.log" 2>&1 ||
    { tail -n 40 "$build/kokkos.build.log"; exit 1; }
  cmake --install "$build/kokkos" > /dev/null
  log "Kokkos ($flavour) built in $((SECONDS - t0)) s; Kokkos Kernels next"
  # Kokkos Kernels without explicit instantiation: Tessera instantiates what it uses.
  local no_eti=()
  for t in DOUBLE FLOAT COMPLEX_DOUBLE COMPLEX_FLOAT ORDINAL_INT OFFSET_INT OFFSET_SIZE_T \
           LAYOUTLEFT LAYOUTRIGHT ORDINAL_INT64_T; do
    no_eti+=("-DKokkosKernels_INST_$t=OFF")
  done
  cmake -S "$patched/kokkos-kernels" -B "$build/kokkos-kernels" "${common[@]}" \
    -DKokkos_ROOT="$prefix" "${kk_opts[@]}" "${no_eti[@]}" -DKokkosKernels_ENABLE_TESTS=OFF \
    -DKokkosKernels_ENABLE_EXAMPLES=OFF > "$build/kk.configure.log" 2>&1 ||
    { tail -n 30 "$build/kk.configure.log"; exit 1; }
  cmake --build "$build/kokkos-kernels" -j "$jobs" > "$build/kk.build.log" 2>&1 ||
    { tail -n 40 "$build/kk.build.log"; exit 1; }
  cmake --install "$build/kokkos-kernels" > /dev/null
  rm -rf "$build"
  echo "$stamp" > "$prefix/.stamp"
  log "$flavour flavour ready in $((SECONDS - t0)) s: $prefix"
}

for f in $flavours; do build_flavour "$f"; done
