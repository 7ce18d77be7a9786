#!/usr/bin/env bash
# Live routes on `routetiles serve`: the cost of a change, against its peer (sending the whole route again).
#
#   Benchmarks/scripts/live_append.sh [background points] [workdir]
#
# One GPS-like track of 100,000 points ("long") is served with --store memory --write-token (routes kept in memory,
# as before route stores), alone and then beside a background of other routes (default 1,000,000 points, the data
# of the other benchmarks). Each change is timed 7 times with curl on loopback; the median is reported:
#   - POST /routes/long/points with 10 points (append);
#   - PUT /routes/long with the whole route again (rebuild);
#   - POST /routes with a new 100-point route (a change that touches no existing route).
# ROUTETILES_BIN=path uses that binary; otherwise the release binary is built into .build-bench.
set -euo pipefail
cd "$(dirname "$0")/../.."
. Benchmarks/scripts/bench_setup.sh
routes_bench "${1:-1000000}" "${2:-/dev/shm/routetiles-bench}"   # the background: $input, of $points points
port=18093

python3 - "$work" <<'PY'
import json, math, sys
work = sys.argv[1]
pts, lon, lat, h = [], 13.4, 52.5, 0.0
for i in range(100_000):
    pts.append([round(lon, 7), round(lat, 7)])
    h += math.sin(i * 0.37) * 0.5
    lon += math.cos(h) * 0.0001; lat += math.sin(h) * 0.00007
feature = {"type": "Feature", "id": "long", "properties": {"name": "long track"}, "geometry": {"type": "LineString", "coordinates": pts}}
open(f"{work}/long.geojson", "w").write(json.dumps(feature))
extra = [[round(lon + 0.0001 * k, 7), round(lat, 7)] for k in range(1, 11)]
open(f"{work}/extra.json", "w").write(json.dumps(extra))
small = {"type": "Feature", "properties": {"name": "new"}, "geometry": {"type": "LineString",
         "coordinates": [[round(2.3 + 0.0001 * k, 7), round(48.85 + 0.00005 * k, 7)] for k in range(100)]}}
open(f"{work}/small.geojson", "w").write(json.dumps(small))
PY

wait_for() { for _ in $(seq 1 600); do curl -fs "$1" >/dev/null 2>&1 && return 0; sleep 0.1; done; echo "no answer from $1" >&2; return 1; }
time_of() { curl -s -o /dev/null -w '%{time_total}\n' -H 'Authorization: Bearer bench-token-1' -H 'Content-Type: application/geo+json' "$@"; }
median() { sort -n | awk '{a[NR]=$1} END {printf "%.1f ms\n", a[int((NR+1)/2)] * 1000}'; }

run() { # label, inputs...
    local label=$1; shift
    $bin serve "$@" --port $port --log-level warning --store memory --write-token bench-token-1 2>/dev/null &
    local pid=$!
    wait_for "http://127.0.0.1:$port/health"
    local append replace add
    append=$(for _ in 1 2 3 4 5 6 7; do time_of -X POST --data-binary @"$work/extra.json" "http://127.0.0.1:$port/routes/long/points"; done | median)
    replace=$(for _ in 1 2 3 4 5 6 7; do time_of -X PUT --data-binary @"$work/long.geojson" "http://127.0.0.1:$port/routes/long"; done | median)
    add=$(for _ in 1 2 3 4 5 6 7; do time_of -X POST --data-binary @"$work/small.geojson" "http://127.0.0.1:$port/routes"; done | median)
    echo "$label: append 10 points $append; PUT the 100,000-point route $replace; POST a new 100-point route $add"
    kill -TERM $pid; wait $pid || true
}

echo "$(nproc) cores; median of 7 calls each"
run "long route alone" "$work/long.geojson"
run "beside $points background points" "$work/long.geojson" "$input"
