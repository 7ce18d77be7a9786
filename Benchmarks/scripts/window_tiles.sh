#!/usr/bin/env bash
# What a window tile (/tiles/{z}/{x}/{y}.mvt?from=…&to=…) costs to cut, against the default tile of the same z/x/y
# (Docs/BENCHMARKS.md, "Time on every position"): serves the routes with times of time_tiles.sh's input, then asks,
# one request at a time on one kept-alive connection, for the default tile and for a one-hour window of each of
# N tiles of a zoom that routes touch. Every request is a first one (the default tiles are distinct, the windows
# too), so each answer is cut and compressed then; printed: medians and 95th percentiles of the time to the last
# byte, and their ratios.
#
#   Benchmarks/scripts/window_tiles.sh [zoom] [tiles] [workdir]
#
# Defaults: zoom 12, 400 tiles, /dev/shm/routetiles-time-tiles (where time_tiles.sh left its input and its
# pyramid with time pieces, which lists the tiles to ask for and, from their pieces, a time each window holds some
# track at). Needs Python's mapbox-vector-tile. ROUTETILES_BIN=path uses that binary.
set -euo pipefail
cd "$(dirname "$0")/../.."
. Benchmarks/scripts/bench_setup.sh
zoom=${1:-12}
count=${2:-400}
work=${3:-/dev/shm/routetiles-time-tiles}
input=$(ls "$work"/timed-*.geojson | head -1)
[ -d "$work/on/$zoom" ] || { echo "run Benchmarks/scripts/time_tiles.sh first (no $work/on/$zoom)" >&2; exit 1; }
bin=$(routetiles_binary "${ROUTETILES_BIN:-}")
port=$((20000 + RANDOM % 20000))
"$bin" serve "$input" --port "$port" --log-level warning > "$work/serve.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null || true' EXIT
wait_health "$port"

python3 - "$port" "$work/on" "$zoom" "$count" "$input" <<'PY'
import gzip, http.client, os, random, statistics, sys, time
import mapbox_vector_tile
port, root, zoom, count, source = int(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
tiles = []
for x in sorted(os.listdir(os.path.join(root, zoom))):
    for name in sorted(os.listdir(os.path.join(root, zoom, x))):
        tiles.append(f"{zoom}/{x}/{name[:-4]}")
random.seed(1)
tiles = random.sample(tiles, min(count, len(tiles)))
# The day the generated tracks start in (generate_routes.py --times), in seconds.
day = 1_795_737_600
connection = http.client.HTTPConnection("127.0.0.1", port)
def fetch(path):
    started = time.perf_counter()
    connection.request("GET", path, headers={"Accept-Encoding": "gzip"})
    response = connection.getresponse()
    body = response.read()
    return time.perf_counter() - started, response.status, len(body)
default, window, statuses = [], [], {}
for k, tile in enumerate(tiles):
    seconds, status, _ = fetch(f"/tiles/{tile}.mvt")
    default.append(seconds)
    # An hour around the start of one of the tile's time pieces, so that the window holds some track there.
    with open(os.path.join(root, f"{tile}.mvt"), "rb") as f:
        layer = mapbox_vector_tile.decode(gzip.decompress(f.read())).get("routes", {"features": []})
    starts = [g["properties"]["start_t"] for g in layer["features"] if "start_t" in g["properties"]]
    start = (random.choice(starts) if starts else day) - random.randrange(0, 3_000)
    seconds, status, _ = fetch(f"/tiles/{tile}.mvt?from={start}&to={start + 3600}")
    window.append(seconds)
    statuses[status] = statuses.get(status, 0) + 1
def p95(values):
    return sorted(values)[int(len(values) * 0.95)]
print(f"z{zoom}, {len(tiles)} tiles, window answers {statuses}")
print(f"default tile, first request: median {statistics.median(default) * 1000:.2f} ms, p95 {p95(default) * 1000:.2f} ms")
print(f"one-hour window tile:        median {statistics.median(window) * 1000:.2f} ms, p95 {p95(window) * 1000:.2f} ms")
print(f"ratio window/default: median {statistics.median(window) / statistics.median(default):.2f}, "
      f"p95 {p95(window) / p95(default):.2f}")
PY
