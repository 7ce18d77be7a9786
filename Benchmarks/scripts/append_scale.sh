#!/usr/bin/env bash
# Benchmarks/scripts/append_scale.sh BINARY [workdir]: appending 10 points to one route of 10,000, 100,000 and
# 1,000,000 points on `routetiles serve`, median of 15 calls with curl on loopback; the answer says how many tiles
# the append invalidated (every tile of the route: its length_m changes). The route is kept in memory
# (--store memory), as before route stores; Benchmarks/scripts/store_append.sh compares the stores.
set -uo pipefail
bin=$1; work=${2:-/dev/shm/append-scale}; mkdir -p "$work"; port=18400
for n in 10000 100000 1000000; do
python3 - $work $n <<'PY'
import json, math, sys
work, n = sys.argv[1], int(sys.argv[2])
pts, lon, lat, h = [], 13.4, 52.5, 0.0
for i in range(n):
    pts.append([round(lon, 7), round(lat, 7)])
    h += math.sin(i * 0.37) * 0.5
    lon += math.cos(h) * 0.0001 * (100000/n) ** 0.5; lat += math.sin(h) * 0.00007 * (100000/n) ** 0.5
open(f"{work}/long.geojson", "w").write(json.dumps({"type": "Feature", "id": "long", "properties": {}, "geometry": {"type": "LineString", "coordinates": pts}}))
open(f"{work}/extra.json", "w").write(json.dumps([[round(lon + 0.00001 * k, 7), round(lat, 7)] for k in range(1, 11)]))
PY
$bin serve $work/long.geojson --port $port --log-level warning --store memory --write-token token-123 2>/dev/null & pid=$!
for _ in $(seq 600); do curl -fs http://127.0.0.1:$port/health >/dev/null && break; sleep 0.1; done
times=$(for i in $(seq 15); do curl -s -o $work/append-resp.json -w '%{time_total}\n' -H 'Authorization: Bearer token-123' -H 'Content-Type: application/json' -X POST --data-binary @$work/extra.json http://127.0.0.1:$port/routes/long/points; done | sort -n | awk '{a[NR]=$1} END {printf "%.2f ms", a[8]*1000}')
echo "n=$n append median=$times resp=$(head -c 200 $work/append-resp.json)"
kill $pid; wait $pid 2>/dev/null
done
