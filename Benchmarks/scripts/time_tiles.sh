#!/usr/bin/env bash
# What time pieces cost in tile bytes (Docs/BENCHMARKS.md, "Time on every position"): builds z0–14 twice from the
# same generated routes with times (generate_routes.py --times: walks, rides, drives with stops and gaps, flights),
# with time pieces (the default) and with --no-time-pieces, and prints, per zoom, the tiles, their total gzip bytes,
# the median and 95th percentile tile, and the ratio with/without.
#
#   Benchmarks/scripts/time_tiles.sh [points] [workdir]
#
# Defaults: 1,000,000 points, /dev/shm/routetiles-time-tiles. ROUTETILES_BIN=path uses that binary; otherwise the
# release binary is built into .build-bench.
set -euo pipefail
cd "$(dirname "$0")/../.."
. Benchmarks/scripts/bench_setup.sh
points=${1:-1000000}
work=${2:-/dev/shm/routetiles-time-tiles}
mkdir -p "$work"
input="$work/timed-$points.geojson"
generated_routes "$points" "$input" --times
bin=$(routetiles_binary "${ROUTETILES_BIN:-}")
echo "input: $input ($(du -h "$input" | cut -f1)); binary: $bin"

rm -rf "$work/on" "$work/off"
/usr/bin/time -f "with pieces: %e s, %M KB" "$bin" build "$input" -o "$work/on" --quiet
/usr/bin/time -f "without:     %e s, %M KB" "$bin" build "$input" -o "$work/off" --no-time-pieces --quiet

python3 - "$work/on" "$work/off" <<'PY'
import os, statistics, sys

def sizes(root):
    by_zoom = {}
    for z in os.listdir(root):
        if not z.isdigit():
            continue
        for dirpath, _, files in os.walk(os.path.join(root, z)):
            for name in files:
                by_zoom.setdefault(int(z), []).append(os.path.getsize(os.path.join(dirpath, name)))
    return by_zoom

on, off = sizes(sys.argv[1]), sizes(sys.argv[2])
print(f"{'zoom':>4} {'tiles':>7} {'bytes on':>12} {'bytes off':>12} {'ratio':>6} {'median on/off':>15} {'p95 on/off':>15}")
total_on = total_off = 0
for z in sorted(on):
    a, b = sorted(on[z]), sorted(off.get(z, [1]))
    total_on += sum(a)
    total_off += sum(b)
    p95 = lambda v: v[min(len(v) - 1, int(len(v) * 0.95))]
    print(f"{z:>4} {len(a):>7} {sum(a):>12,} {sum(b):>12,} {sum(a) / sum(b):>6.2f} "
          f"{int(statistics.median(a)):>7}/{int(statistics.median(b)):<7} {p95(a):>7}/{p95(b):<7}")
print(f" all {'':>7} {total_on:>12,} {total_off:>12,} {total_on / total_off:>6.2f}")
PY
