#!/usr/bin/env bash
# Raster tiles (issue 37) against vector tiles from the same server, on the hot_tiles.sh set-up (generated routes,
# `serve` cutting on demand with the README's defaults, access log off):
#   1. Cold: every tile of the pyramid at z10–z14 asked for once, in a fixed order, by 2 clients (raster_cold.py):
#      tiles/s and, per zoom, the p50 and p99 of one answer's time. On a fresh server: .mvt (cut), then .png and
#      @2x.png with the vector tiles cached (the drawing alone); on fresh servers again, .png and @2x.png (cut and
#      drawn).
#   2. Cached: the hot set (1,000 z14 tiles) once to warm, then wrk -t2 -c64 -d${SECONDS_PER_RUN}s over it, for
#      .mvt (the cached-tile fast path), the same tiles through the OGC API (the full path), .png and @2x.png, in
#      turns, 3 rounds, medians.
#   3. Memory: the raster cache's tiles and bytes (/health's raster_cache) after the drawing runs.
#
#   Benchmarks/scripts/serve_raster.sh [points] [workdir]
#
# Environment: ROUTETILES_BIN (else the release build in .build-bench), SECONDS_PER_RUN (10). Needs wrk and nginx
# (for hot_tiles.sh's set-up).
set -euo pipefail
cd "$(dirname "$0")/../.."
points=${1:-200000}
work=${2:-/dev/shm/routetiles-raster}
seconds=${SECONDS_PER_RUN:-10}
. Benchmarks/scripts/hot_tiles.sh
port=18370
(cd "$pyramid" && find 10 11 12 13 14 -name '*.mvt' | sort) > "$work/cold.txt"
cat > "$work/ending.lua" <<'LUA'
-- The hot set with each path's .mvt replaced by ENDING (.png, @2x.png) when it is set; ENDING=ogc asks for the same
-- tiles through the OGC API (/ogc/tiles/WebMercatorQuad/z/y/x).
local paths = {}
local ending = os.getenv("ENDING")
for line in io.lines(os.getenv("HOT_LIST")) do
  if ending == "ogc" then
    local z, x, y = line:match("^(%d+)/(%d+)/(%d+)%.mvt$")
    paths[#paths + 1] = "/ogc/tiles/WebMercatorQuad/" .. z .. "/" .. y .. "/" .. x
  else
    if ending then line = line:gsub("%.mvt$", ending) end
    paths[#paths + 1] = "/tiles/" .. line
  end
end
local i = 0
request = function()
  i = i % #paths + 1
  return wrk.format("GET", paths[i], {["Accept-Encoding"] = "gzip"})
end
LUA
start() { "$bin" serve "$input" --port $port --log-level warning 2>/dev/null & pid=$!; wait_health $port; }
stop() { kill $pid 2>/dev/null; wait $pid 2>/dev/null || true; }
trap "stop || true" EXIT
rps() { awk '/Requests\/sec/ {print $2}'; }
echo "tiles z10-z14: $(wc -l < "$work/cold.txt")"
raster_cache() { curl -s "http://127.0.0.1:$port/health" | python3 -c 'import json,sys; print(json.load(sys.stdin)["raster_cache"])'; }
# A fresh server: vector tiles cut cold; then, with every vector tile cached, each PNG drawn cold (drawing alone).
start
python3 Benchmarks/scripts/raster_cold.py "http://127.0.0.1:$port" "$work/cold.txt" .mvt
for ending in .png @2x.png; do
  echo "drawing alone (vector tiles cached):"
  python3 Benchmarks/scripts/raster_cold.py "http://127.0.0.1:$port" "$work/cold.txt" "$ending"
  echo "raster cache after it: $(raster_cache)"
done
stop
# Fresh servers: PNGs from nothing (cut and drawn).
for ending in .png @2x.png; do
  start
  echo "cut and drawn:"
  python3 Benchmarks/scripts/raster_cold.py "http://127.0.0.1:$port" "$work/cold.txt" "$ending"
  stop
done
for round in 1 2 3; do
  start
  for ending in .mvt ogc .png @2x.png; do
    [ "$ending" = ogc ] || while read -r p; do curl -s -o /dev/null -H 'Accept-Encoding: gzip' "http://127.0.0.1:$port/tiles/${p%.mvt}$ending"; done < "$HOT_LIST"
    echo "round $round cached $ending requests/s=$(ENDING=$ending wrk -t2 -c64 -d${seconds}s -s "$work/ending.lua" "http://127.0.0.1:$port" | rps)"
  done
  stop
done
