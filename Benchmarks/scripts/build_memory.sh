#!/usr/bin/env bash
# Peak memory and wall time of `routetiles build` against tippecanoe 2.72.0, at several sizes, z0–14, output on
# tmpfs (so the disk does not decide), temporary files on disk.
#
# Usage: Benchmarks/scripts/build_memory.sh [SIZES] [WORK]
#   SIZES  points per run, in millions, comma-separated (default 1,10); 100 builds ten 10M files of seeds 1–10
#          together (RouteTiles only: tippecanoe takes too long there)
#   WORK   where inputs are generated and kept (default /work/bench; a disk, since 100M points is 2.4 GB)
# Environment: ROUTETILES_BIN (default: a release build in .build-bench), BEFORE_BIN (a second binary to compare,
# e.g. an older build), TIPPECANOE=0 to skip tippecanoe, MEMORY_MB (passed as --memory-mb when set).
set -euo pipefail
cd "$(dirname "$0")/../.."
. Benchmarks/scripts/bench_setup.sh
sizes=${1:-1,10}
work=${2:-/work/bench}
out=/dev/shm/routetiles-build-memory
mkdir -p "$work" "$out"
bin=$(routetiles_binary "${ROUTETILES_BIN:-}")
memory=()
[ -n "${MEMORY_MB:-}" ] && memory=(--memory-mb "$MEMORY_MB")

input_files() { # millions -> file names, generated when missing
  local m=$1 files=()
  if [ "$m" -le 10 ]; then
    local f=$work/routes-${m}m.geojson
    generated_routes $((m * 1000000)) "$f" >&2
    files=("$f")
  else
    for s in $(seq 1 $((m / 10))); do
      local f=$work/routes-10m-s$s.geojson
      [ "$s" = 1 ] && f=$work/routes-10m.geojson
      generated_routes 10000000 "$f" --seed "$s" >&2
      files+=("$f")
    done
  fi
  echo "${files[@]}"
}

run() { # label, command...
  local label=$1; shift
  rm -rf "$out/tiles"
  sync
  /usr/bin/time -f "%e %M" -o "$out/time" "$@" >/dev/null 2>"$out/log" || { cat "$out/log" >&2; exit 1; }
  read -r wall rss < "$out/time"
  local tiles
  tiles=$(find "$out/tiles" -type f \( -name '*.mvt' -o -name '*.pbf' \) | wc -l)
  printf "%-22s %10.1f %12.0f %10d\n" "$label" "$wall" "$((rss / 1024))" "$tiles"
}

printf "%-22s %10s %12s %10s\n" "run" "wall s" "peak RSS MB" "tiles"
for m in ${sizes//,/ }; do
  read -r -a files <<< "$(input_files "$m")"
  run "routetiles ${m}M" "$bin" build "${files[@]}" -o "$out/tiles" --quiet --maxzoom 14 "${memory[@]}"
  if [ -n "${BEFORE_BIN:-}" ]; then
    run "before ${m}M" "$BEFORE_BIN" build "${files[@]}" -o "$out/tiles" --quiet --maxzoom 14
  fi
  if [ "${TIPPECANOE:-1}" != 0 ] && [ "$m" -le 10 ]; then
    run "tippecanoe ${m}M" tippecanoe -q -Z0 -z14 --no-feature-limit --no-tile-size-limit \
      --detect-longitude-wraparound -l routes -e "$out/tiles" "${files[@]}"
  fi
done
rm -rf "$out"
