#!/usr/bin/env bash
# What private reads and per-vehicle credentials cost (issue 36), each against the same server without them, in
# turns: 3 rounds, wrk -t2 -c64 -d${SECONDS_PER_RUN}s, medians.
#   1. Cached tiles over the hot set (hot_tiles.sh: generated routes, 1,000 z14 tiles): `serve` public; `serve --read
#      token` with one JWT (read ["*"]) in every request's Authorization; the same with the signed URLs of tiles.json.
#   2. Fixes in batches of BATCH: VEHICLES routes in `--store memory`, each request `POST /routes/veh-K/points` with
#      BATCH fixes for the next vehicle of its thread: with the shared write token, and with each vehicle's own JWT
#      (write ["veh-K"]), VEHICLES tokens in all.
#
#   Benchmarks/scripts/serve_private.sh [points] [workdir]
#
# Environment: ROUTETILES_BIN (else the release build in .build-bench), VEHICLES (1000), BATCH (10),
# SECONDS_PER_RUN (10). Needs wrk, nginx (for hot_tiles.sh's set-up) and Python's joserfc.
set -euo pipefail
cd "$(dirname "$0")/../.."
points=${1:-200000}
work=${2:-/dev/shm/routetiles-private}
seconds=${SECONDS_PER_RUN:-10}
vehicles=${VEHICLES:-1000}
batch=${BATCH:-10}
. Benchmarks/scripts/hot_tiles.sh
port=18360
secret="$work/jwt-secret"
head -c 48 /dev/urandom | base64 > "$secret"
write_token=bench-write-token-0123456789
python3 - "$secret" "$vehicles" "$work" <<'PY'
import json, sys, time
from joserfc import jwt
from joserfc.jwk import OctKey
secret, vehicles, work = sys.argv[1], int(sys.argv[2]), sys.argv[3]
key = OctKey.import_key(open(secret, "rb").read().rstrip(b"\n"))
exp = int(time.time()) + 6 * 3600
open(f"{work}/reader.jwt", "w").write(jwt.encode({"alg": "HS256"}, {"exp": exp, "read": ["*"], "sub": "bench-reader"}, key))
with open(f"{work}/vans.txt", "w") as f:
    for k in range(vehicles):
        f.write(jwt.encode({"alg": "HS256"}, {"exp": exp, "write": [f"veh-{k}"], "sub": f"van-{k}"}, key) + "\n")
features = [{"type": "Feature", "id": f"veh-{k}", "properties": {},
             "geometry": {"type": "LineString", "coordinates": [[2.25 + (k % 100) * 0.002, 48.80 + (k // 100) * 0.002],
                                                                [2.2501 + (k % 100) * 0.002, 48.8001 + (k // 100) * 0.002]]}}
            for k in range(vehicles)]
json.dump({"type": "FeatureCollection", "features": features}, open(f"{work}/fleet.geojson", "w"))
PY
cat > "$work/private.lua" <<'LUA'
-- The hot set with AUTH as the Authorization header (if set) and QUERY after each path (if set).
local paths = {}
local query = os.getenv("QUERY") or ""
for line in io.lines(os.getenv("HOT_LIST")) do paths[#paths + 1] = "/tiles/" .. line .. query end
local headers = {["Accept-Encoding"] = "gzip"}
if os.getenv("AUTH") then headers["Authorization"] = "Bearer " .. os.getenv("AUTH") end
local i = 0
request = function()
  i = i % #paths + 1
  return wrk.format("GET", paths[i], headers)
end
LUA
cat > "$work/vans.lua" <<'LUA'
-- POST /routes/veh-K/points with BATCH fixes, K the next vehicle of this thread; with VANS, K's own token, else
-- SHARED. Each thread takes every other vehicle.
local tokens = {}
if os.getenv("VANS") then for line in io.lines(os.getenv("VANS")) do tokens[#tokens + 1] = line end end
local shared = os.getenv("SHARED")
local vehicles = tonumber(os.getenv("VEHICLES"))
local batch = tonumber(os.getenv("BATCH"))
local threads = 0
setup = function(thread) thread:set("id", threads); threads = threads + 1 end
local k = nil
request = function()
  if k == nil then k = id end
  k = (k + 2) % vehicles
  local fixes = {}
  for j = 1, batch do fixes[j] = string.format("[%.6f,%.6f]", 2.25 + (k % 100) * 0.002 + math.random() * 0.001, 48.80 + math.floor(k / 100) * 0.002 + math.random() * 0.001) end
  local token = shared
  if #tokens > 0 then token = tokens[k + 1] end
  return wrk.format("POST", "/routes/veh-" .. k .. "/points",
    {["Authorization"] = "Bearer " .. token, ["Content-Type"] = "application/json"}, "[" .. table.concat(fixes, ",") .. "]")
end
LUA
warm() { while read -r p; do curl -s -o /dev/null -H 'Accept-Encoding: gzip' -H "Authorization: Bearer ${2:-}" "$1/tiles/$p${3:-}"; done < "$HOT_LIST"; }
start() { "$bin" serve "$@" --port $port --log-level warning 2>/dev/null & pid=$!; wait_health $port; }
stop() { kill $pid 2>/dev/null; wait $pid 2>/dev/null || true; }
trap "stop || true" EXIT
rps() { awk '/Requests\/sec/ {print $2}'; }
reader=$(cat "$work/reader.jwt")
for round in 1 2 3; do
  start "$input"; warm "http://127.0.0.1:$port"
  echo "round $round tiles public requests/s=$(wrk -t2 -c64 -d${seconds}s -s "$work/private.lua" "http://127.0.0.1:$port" | rps)"
  stop
  start "$input" --read token --jwt-secret-file "$secret"; warm "http://127.0.0.1:$port" "$reader"
  echo "round $round tiles jwt requests/s=$(AUTH=$reader wrk -t2 -c64 -d${seconds}s -s "$work/private.lua" "http://127.0.0.1:$port" | rps)"
  query="?$(curl -s -H "Authorization: Bearer $reader" "http://127.0.0.1:$port/tiles.json" | python3 -c 'import json,sys; print(json.load(sys.stdin)["tiles"][0].split("?")[1])')"
  warm "http://127.0.0.1:$port" "" "$query"
  echo "round $round tiles signed requests/s=$(QUERY=$query wrk -t2 -c64 -d${seconds}s -s "$work/private.lua" "http://127.0.0.1:$port" | rps)"
  stop
  start "$work/fleet.geojson" --store memory --write-token "$write_token"
  out=$(SHARED=$write_token VEHICLES=$vehicles BATCH=$batch wrk -t2 -c64 -d${seconds}s -s "$work/vans.lua" "http://127.0.0.1:$port")
  echo "round $round fixes shared requests/s=$(echo "$out" | rps) fixes/s=$(echo "$out" | rps | awk -v b=$batch '{print $1 * b}') non2xx=$(echo "$out" | awk '/Non-2xx/ {print $5}')"
  stop
  start "$work/fleet.geojson" --store memory --write-token "$write_token" --jwt-secret-file "$secret"
  out=$(VANS="$work/vans.txt" VEHICLES=$vehicles BATCH=$batch wrk -t2 -c64 -d${seconds}s -s "$work/vans.lua" "http://127.0.0.1:$port")
  echo "round $round fixes per-van requests/s=$(echo "$out" | rps) fixes/s=$(echo "$out" | rps | awk -v b=$batch '{print $1 * b}') non2xx=$(echo "$out" | awk '/Non-2xx/ {print $5}')"
  stop
done
