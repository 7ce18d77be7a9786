#!/usr/bin/env bash
# Caches in front (issue 21): Varnish 7.1 with Docs/varnish/routetiles.vcl in front of
# `routetiles serve --store SQLITE --write-token T --purge http://127.0.0.1:VPORT`, on loopback. Prints:
#   1. staleness: WRITES appends, one at a time (cache_staleness.py): the time from each write's 2xx to the first
#      answer through Varnish with the new tile, p50/p90/p99; then the same with a concurrent append load beside it
#      (wrk -t1 -cLOAD_CONNECTIONS, fleet_appends.lua, one fix per request to VEHICLES other routes);
#   2. purges per write: the server's routetiles_purged_tiles_total over the writes of both runs;
#   3. the origin's tiles/s (wrk -t2 -c32, DURATION s, the 1,000 hot z14 tiles of hot_tiles.sh, straight from the
#      origin) while APPEND_RATE appends a second go on, without --purge and with it (same tiles, so the same hit
#      ratio in the origin's cache: printed from its metrics);
#   4. cached tiles: wrk -t2 -c64 DURATION s on the hot set, through Varnish in front of `serve --tiles PYRAMID`,
#      straight from that server, and from nginx serving the pyramid's files; access logs off on all three
#      (--log-level warning; varnishncsa not run; nginx access_log off).
#
#   Benchmarks/scripts/cache_staleness.sh [workdir]
#
# Environment: ROUTETILES_BIN (else the release build in .build-bench), WRITES (1000), VEHICLES (200),
# LOAD_CONNECTIONS (4), DURATION (10), APPEND_RATE (50), POINTS (100000, the routes of the pyramid). Needs varnishd,
# wrk and nginx (Debian packages varnish, wrk, nginx). Everything is stopped at the end and on any exit.
set -euo pipefail
cd "$(dirname "$0")/../.."
work=${1:-/tmp/bench-cache}
points=${POINTS:-100000}
writes=${WRITES:-1000} vehicles=${VEHICLES:-200} load_connections=${LOAD_CONNECTIONS:-4}
duration=${DURATION:-10} append_rate=${APPEND_RATE:-50}
mkdir -p "$work"
work=$(realpath "$work")
. Benchmarks/scripts/hot_tiles.sh
command -v varnishd >/dev/null || { echo "needs varnishd: apt-get install varnish" >&2; exit 1; }
token=bench-cache-token-1
origin_port=18610 cache_port=18611 nginx_port=18612 static_port=18613 static_cache_port=18614

pids=()
varnish_dirs=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for dir in "${varnish_dirs[@]}"; do
    [ -f "$dir/varnish.pid" ] && kill -9 $(cat "$dir/varnish.pid") $(ps -o pid= --ppid "$(cat "$dir/varnish.pid")") 2>/dev/null || true
  done
  [ -f "$work/nginx.pid" ] && kill "$(cat "$work/nginx.pid")" 2>/dev/null || true
}
trap cleanup EXIT

start_varnish() { # name, listen port, backend port
  local dir=$work/$1
  rm -rf "$dir"; mkdir -p "$dir"; chmod 755 "$dir"
  sed "s/\.port = \"8080\";/.port = \"$3\";/" Docs/varnish/routetiles.vcl > "$dir/routetiles.vcl"
  chmod 644 "$dir/routetiles.vcl"
  varnishd -a "127.0.0.1:$2" -f "$dir/routetiles.vcl" -n "$dir/vn" -s malloc,256m -P "$dir/varnish.pid" >/dev/null
  varnish_dirs+=("$dir")
}

start_live() { # extra serve arguments...: a live server of VEHICLES routes over a new SQLite file on origin_port
  rm -f "$work/live.db" "$work/live.db-wal" "$work/live.db-shm"
  $bin serve "$work/fleet.geojson" "$input" --store "$work/live.db" --write-token "$token" --port "$origin_port" \
      --log-level warning "$@" 2>"$work/live.log" &
  live_pid=$!
  pids+=("$live_pid")
  wait_health "$origin_port"
}

metric() { # name: its value (summed over labels) at the origin
  curl -fs "http://127.0.0.1:$origin_port/metrics" | awk -v n="$1" '$1 == n || index($1, n "{") == 1 { s += $2 } END { print s + 0 }'
}

python3 - "$vehicles" > "$work/fleet.geojson" <<'PY'
import json, random, sys
rng = random.Random(11)
features = []
for k in range(int(sys.argv[1])):
    lon, lat = 2.25 + rng.random() * 0.2, 48.80 + rng.random() * 0.12
    features.append({"type": "Feature", "id": "veh-%d" % k, "properties": {},
                     "geometry": {"type": "LineString", "coordinates": [[lon, lat], [lon + 0.0003, lat + 0.0002]]}})
print(json.dumps({"type": "FeatureCollection", "features": features}))
PY

# 1 and 2: staleness, alone and beside an append load.
start_varnish live-cache "$cache_port" "$origin_port"
start_live --purge "http://127.0.0.1:$cache_port"
echo "== staleness through Varnish, $writes writes one at a time"
python3 Benchmarks/scripts/cache_staleness.py "$origin_port" "$cache_port" "$token" "$writes"
FLEET_VEHICLES=$vehicles FLEET_THREADS=1 FLEET_TOKEN=$token \
  wrk -t1 -c"$load_connections" -d600s -s Benchmarks/scripts/fleet_appends.lua "http://127.0.0.1:$origin_port" \
  > "$work/load.txt" 2>&1 &
load_pid=$!
pids+=("$load_pid")
sleep 1
before=$(metric routetiles_store_changes_applied_total)
started=$(date +%s.%N)
echo "== the same beside an append load (wrk -t1 -c$load_connections, one fix a request to $vehicles other routes)"
python3 Benchmarks/scripts/cache_staleness.py "$origin_port" "$cache_port" "$token" "$writes"
ended=$(date +%s.%N)
after=$(metric routetiles_store_changes_applied_total)
kill "$load_pid" 2>/dev/null || true
awk -v c=$((after - before)) -v s="$started" -v e="$ended" 'BEGIN { printf "load: %.0f changes/s applied during the run\n", c / (e - s) }'
sleep 1
purged=$(metric routetiles_purged_tiles_total) applied=$(metric routetiles_store_changes_applied_total)
retries=$(metric routetiles_purge_retries_total)
awk -v p="$purged" -v a="$applied" -v r="$retries" 'BEGIN { printf "purges: %d tiles purged over %d changes applied: %.1f per write; %d retries\n", p, a, p / a, r }'
kill "$live_pid"; wait "$live_pid" 2>/dev/null || true

# 3: the origin's tiles/s while appends go on, without and with purges.
$bin serve --tiles "$pyramid" --port "$static_port" --log-level warning 2>/dev/null &
static_pid=$!
pids+=("$static_pid")
for mode in without with; do
  if [ $mode = with ]; then start_live --purge "http://127.0.0.1:$cache_port"; else start_live; fi
  # Warm-up: the hot set is the pyramid's z14 tiles, cut by the live server from the same routes and then cached.
  wrk -t2 -c32 -d2s -s "$work/hot.lua" "http://127.0.0.1:$origin_port" >/dev/null 2>&1
  python3 - "$origin_port" "$token" "$append_rate" "$((duration + 2))" "$work/fleet.geojson" > "$work/appends-$mode.txt" <<'PY' &
# One fix at a time to a random vehicle, ~30 m on from where its track ends, APPEND_RATE a second.
import http.client, json, math, random, sys, time
port, token, rate, seconds = int(sys.argv[1]), sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
ends = {f["id"]: f["geometry"]["coordinates"][-1] for f in json.load(open(sys.argv[5]))["features"]}
ids = sorted(ends)
c = http.client.HTTPConnection("127.0.0.1", port)
rng = random.Random(5)
end = time.monotonic() + seconds
n = 0
while time.monotonic() < end:
    t = time.monotonic()
    key = rng.choice(ids)
    heading = rng.random() * 2 * math.pi
    lon, lat = ends[key]
    lon, lat = lon + 30 / 73000 * math.cos(heading), lat + 30 / 111320 * math.sin(heading)
    ends[key] = [lon, lat]
    c.request("POST", "/routes/%s/points" % key, body=json.dumps([[lon, lat]]),
              headers={"Authorization": "Bearer " + token, "Content-Type": "application/json"})
    c.getresponse().read()
    n += 1
    time.sleep(max(0, 1 / rate - (time.monotonic() - t)))
print(n)
PY
  appender=$!
  sleep 1
  hits0=$(metric routetiles_tile_cache_hits_total) misses0=$(metric routetiles_tile_cache_misses_total)
  echo "== origin tiles/s $mode --purge, $append_rate appends/s beside"
  wrk -t2 -c32 -d"${duration}s" -s "$work/hot.lua" "http://127.0.0.1:$origin_port" | grep -E "Requests/sec|Latency"
  hits=$(( $(metric routetiles_tile_cache_hits_total) - hits0 )) misses=$(( $(metric routetiles_tile_cache_misses_total) - misses0 ))
  wait "$appender" || true
  awk -v h=$hits -v m=$misses -v p="$(metric routetiles_purged_tiles_total)" -v a="$(cat "$work/appends-$mode.txt")" \
    'BEGIN { printf "origin cache hit ratio %.4f; %d appends, %d tiles purged\n", h / (h + m), a, p }'
  kill "$live_pid"; wait "$live_pid" 2>/dev/null || true
done

# 4: cached tiles through Varnish, straight from RouteTiles, and from nginx; access logs off on all three.
wait_health "$static_port"
start_varnish static-cache "$static_cache_port" "$static_port"
nginx_conf nginx "access_log off;"
nginx -c "$work/nginx.conf"
sleep 1
for target in "Varnish:$static_cache_port" "RouteTiles:$static_port" "nginx:$nginx_port"; do
  name=${target%%:*} port=${target##*:}
  wrk -t2 -c64 -d2s -s "$work/hot.lua" "http://127.0.0.1:$port" >/dev/null 2>&1   # warm
  echo "== cached tiles from $name (wrk -t2 -c64 -d${duration}s, 1,000 hot z14 tiles, gzip)"
  wrk -t2 -c64 -d"${duration}s" -s "$work/hot.lua" "http://127.0.0.1:$port" | grep -E "Requests/sec|Latency|Non-2xx"
done
