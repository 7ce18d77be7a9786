#!/usr/bin/env bash
# Issue 5's figures, in one run of a release build:
#   1. build z0–14 of the generated routes into a folder, MBTiles and PMTiles (wall, CPU, peak RSS, tiles/s, size);
#   2. seed the route cover over HTTP against a local `routetiles serve` (cold: tiles cut on demand; warm: every
#      request a cache hit), and `seed --output` into each store;
#   3. the tile count of each sample's route cover against its bounding box's at z10, z12 and z14.
#
#   Benchmarks/scripts/archives_and_seed.sh [points] [runs] [workdir]
#
# Defaults: 1,000,000 points, 3 runs of each build, /dev/shm/routetiles-archives (tmpfs). Needs GNU time, bc and
# curl. PARTS="3" runs only part 3 (any of 1 2 3). ROUTETILES_BIN=path uses that binary; otherwise the release
# binary is built into .build-bench.
set -euo pipefail
cd "$(dirname "$0")/../.."
. Benchmarks/scripts/bench_setup.sh
runs=${2:-3}
routes_bench "${1:-1000000}" "${3:-/dev/shm/routetiles-archives}"
echo "input: $input ($(du -h "$input" | cut -f1), $points points); work under $work; $(nproc) cores"

timed() { # label, command... → "label wall cpu rssMB"
  local label=$1; shift
  /usr/bin/time -f "%e %U %S %M" -o "$work/time" "$@" >/dev/null 2>"$work/log" || { cat "$work/log" >&2; exit 1; }
  read -r wall user sys rss < "$work/time"
  echo "$label $wall $(echo "$user + $sys" | bc) $((rss / 1024))"
}

parts=${PARTS:-1 2 3}
if [[ " $parts " == *" 1 "* ]]; then
echo
echo "== 1. build z0-14 into each store (median of $runs; tiles/s from the cover count) =="
tiles=$($bin seed "$input" --dry-run | awk '$1 == "total" { print $2 }')
echo "tiles in the pyramid: $tiles"
rm -f "$work/builds"
for i in $(seq "$runs"); do
  for out in dir x.mbtiles x.pmtiles; do
    rm -rf "$work/out-$out"
    timed "$out" $bin build "$input" -o "$work/out-$out" --quiet --maxzoom 14 >> "$work/builds"
    size=$(du -sb "$work/out-$out" | cut -f1)
    sed -i "\$s/\$/ $size/" "$work/builds"
  done
done
python3 - "$work/builds" "$tiles" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    name, wall, cpu, rss, size = line.split()
    rows.setdefault(name, []).append((float(wall), float(cpu), int(rss), int(size)))
tiles = int(sys.argv[2])
base = statistics.median(r[0] for r in rows["dir"])
print(f"{'store':<10} {'wall s':>7} {'cpu s':>7} {'RSS MB':>7} {'tiles/s':>9} {'size MB':>8} {'wall / dir':>10}")
for name, r in rows.items():
    wall = statistics.median(x[0] for x in r)
    print(f"{name:<10} {wall:>7.2f} {statistics.median(x[1] for x in r):>7.2f} {max(x[2] for x in r):>7} "
          f"{tiles / wall:>9.0f} {r[0][3] / 1e6:>8.1f} {wall / base:>10.2f}")
PY

fi

if [[ " $parts " == *" 2 "* ]]; then
echo
echo "== 2. seeding =="
port=18431
$bin serve "$input" --port $port --log-level warning --cache-mb 2048 --maxzoom 14 2>"$work/serve.log" &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 600); do curl -fsS "http://127.0.0.1:$port/health" >/dev/null 2>&1 && break; sleep 0.1; done
url="http://127.0.0.1:$port/tiles/{z}/{x}/{y}.mvt"
for pass in cold warm; do
  rm -f "$work/checkpoint"
  /usr/bin/time -f "%e %M" -o "$work/time" $bin seed "$input" --url "$url" --concurrency 16 --checkpoint "$work/checkpoint" \
    2> "$work/seed-$pass.log" >/dev/null
  read -r wall rss < "$work/time"
  summary=$(grep "tiles warmed" "$work/seed-$pass.log")
  echo "seed --url ($pass server): $wall s, $(python3 -c "print(round($tiles / $wall))") tiles/s, seeder peak RSS $((rss / 1024)) MB"
  echo "  $summary"
done
kill $server; wait $server 2>/dev/null || true; trap - EXIT
for out in dir x.mbtiles x.pmtiles; do
  rm -rf "$work/seed-$out"
  read -r label wall cpu rss <<< "$(timed "$out" $bin seed "$input" -o "$work/seed-$out" --concurrency 2 --quiet)"
  echo "seed --output $out: $wall s, $(python3 -c "print(round($tiles / $wall))") tiles/s, cpu $cpu s, peak RSS $rss MB"
done
rm -rf "$work"/out-* "$work"/seed-*
fi

if [[ " $parts " == *" 3 "* ]]; then
echo
echo "== 3. route cover against bounding box (bundled samples) =="
printf "%-32s %6s %10s %12s %8s\n" sample zoom cover bbox ratio
for f in Tiles/samples/*.geojson Tiles/samples/*.csv Tiles/samples/*.gpx Tiles/samples/*.ndjson Tiles/samples/*.polyline Tiles/samples/*.json; do
  rm -rf "$work/meta"
  $bin build "$f" -o "$work/meta" --maxzoom 0 --quiet 2>/dev/null
  bounds=$(python3 -c "import json; print(json.load(open('$work/meta/metadata.json'))['bounds'])")
  for z in 10 12 14; do
    cover=$($bin seed "$f" --minzoom $z --maxzoom $z --dry-run 2>/dev/null | awk '$1 == "total" { print $2 }')
    box=$($bin seed --bbox="$bounds" --minzoom $z --maxzoom $z --dry-run | awk '$1 == "total" { print $2 }')
    printf "%-32s %6s %10s %12s %8s\n" "$(basename "$f")" "z$z" "$cover" "$box" "$(python3 -c "print(f'{$cover / $box:.4f}')")"
  done
done
rm -rf "$work/meta"
fi
