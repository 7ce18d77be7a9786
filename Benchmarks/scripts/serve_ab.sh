#!/usr/bin/env bash
# A/B of cached-tile serving between two routetiles binaries (say, before and after a change), alternating with
# nginx in the same run: 3 rounds, wrk -t2 -c64 -d10s over the hot set that serve_vs_nginx.sh prepares.
#
#   Benchmarks/scripts/serve_ab.sh OLD_BINARY NEW_BINARY [workdir]
#
# Run Benchmarks/scripts/serve_vs_nginx.sh once first (it writes the hot set, the wrk script and nginx.conf).
set -uo pipefail
work=${3:-/dev/shm/routetiles-bench}
input=$work/routes-1000000.geojson
export HOT_LIST=$work/hot.txt
declare -A bins=([old]=$1 [new]=$2)
warm() { while read -r p; do curl -s -o /dev/null -H 'Accept-Encoding: gzip' "$1/tiles/$p"; done < "$work/hot.txt"; }
for round in 1 2 3; do
  for name in old new; do
    port=$((18200 + round))
    ${bins[$name]} serve "$input" --port $port --log-level warning 2>/dev/null &
    pid=$!
    for _ in $(seq 300); do curl -sf -o /dev/null "http://127.0.0.1:$port/health" && break; sleep 0.1; done
    warm "http://127.0.0.1:$port"
    rps=$(wrk -t2 -c64 -d10s --latency -s "$work/hot.lua" "http://127.0.0.1:$port" | awk '/Requests\/sec/ {print $2}')
    echo "round $round $name routes requests/s=$rps"
    kill $pid; wait $pid 2>/dev/null
  done
  nginx -c "$work/nginx.conf" 2>/dev/null
  sleep 0.5
  rps=$(wrk -t2 -c64 -d10s --latency -s "$work/hot.lua" "http://127.0.0.1:18081" | awk '/Requests\/sec/ {print $2}')
  echo "round $round nginx requests/s=$rps"
  nginx -c "$work/nginx.conf" -s stop 2>/dev/null; sleep 0.5
done
