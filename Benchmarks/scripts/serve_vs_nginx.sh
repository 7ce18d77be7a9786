#!/usr/bin/env bash
# Serving benchmarks for `routetiles serve`, with nginx in the same run as the peer for cached tiles.
#
#   Benchmarks/scripts/serve_vs_nginx.sh [points] [seconds] [workdir]
#
# 1. Cached tiles: wrk (2 threads, 64 connections) over a hot set of 1,000 z14 tiles, against nginx serving the
#    same gzip files from the built pyramid, against `routetiles serve --tiles` (the pyramid) and against
#    `routetiles serve` cutting the routes on demand (after one warming pass, every tile is a cache hit).
# 2. Cold tiles: `routetiles serve --cache-mb 0` (every request cut and compressed anew), one connection, over 1,000
#    distinct z14 tiles: p50 and p99 latency.
# 3. Live routes: appending 10 points to a 100,000-point route, against sending that route again (PUT).
#
# Defaults: 1,000,000 points, 10 s per wrk run, /dev/shm/routetiles-bench. Needs: nginx and wrk (Debian).
# Everything runs on loopback; the servers and wrk share the machine's cores. ROUTETILES_BIN=path uses that binary;
# otherwise the release binary is built into .build-bench.
set -euo pipefail
cd "$(dirname "$0")/../.."
points=${1:-1000000}
seconds=${2:-10}
work=${3:-/dev/shm/routetiles-bench}
. Benchmarks/scripts/hot_tiles.sh

nginx_port=18081; serve_port=18082
nginx_conf nginx "access_log off;"

wait_for() { for _ in $(seq 200); do curl -sf -o /dev/null "$1" && return 0; sleep 0.1; done; echo "no answer from $1" >&2; exit 1; }
warm() { while read -r p; do curl -s -o /dev/null -H 'Accept-Encoding: gzip' "$1/tiles/$p"; done < "$work/hot.txt"; }
bench() { # name, url
  local out
  out=$(wrk -t2 -c64 -d"${seconds}s" --latency -s "$work/hot.lua" "$2")
  local rps p99 non2xx
  rps=$(echo "$out" | awk '/Requests\/sec/ {print $2}')
  p99=$(echo "$out" | awk '$1 == "99%" {print $2}')
  non2xx=$(echo "$out" | awk '/Non-2xx/ {print $4}')
  echo "$1 requests/s=$rps p99=$p99 non2xx=${non2xx:-0}"
}

echo "input: $input ($points points); pyramid $pyramid; $(nproc) cores; wrk -t2 -c64 -d${seconds}s"
echo "== cached tiles (1,000 hot z14 tiles) =="
nginx -c "$work/nginx.conf" -p "$work"
trap 'nginx -c "$work/nginx.conf" -p "$work" -s stop 2>/dev/null || true; kill $(jobs -p) 2>/dev/null || true' EXIT
wait_for "http://127.0.0.1:$nginx_port/tiles/$(head -1 "$work/hot.txt")"
bench nginx "http://127.0.0.1:$nginx_port"

$bin serve --tiles "$pyramid" --port $serve_port --log-level warning 2>/dev/null &
pid=$!
wait_for "http://127.0.0.1:$serve_port/health"; warm "http://127.0.0.1:$serve_port"
bench "routetiles --tiles" "http://127.0.0.1:$serve_port"
kill -TERM $pid; wait $pid || true

$bin serve "$input" --port $serve_port --log-level warning 2>/dev/null &
pid=$!
wait_for "http://127.0.0.1:$serve_port/health"; warm "http://127.0.0.1:$serve_port"
bench "routetiles routes" "http://127.0.0.1:$serve_port"
kill -TERM $pid; wait $pid || true
nginx -c "$work/nginx.conf" -p "$work" -s stop

echo "== cold z14 tiles (--cache-mb 0, 1 connection) =="
$bin serve "$input" --port $serve_port --log-level warning --cache-mb 0 2>/dev/null &
pid=$!
wait_for "http://127.0.0.1:$serve_port/health"
out=$(wrk -t1 -c1 -d"${seconds}s" --latency -s "$work/hot.lua" "http://127.0.0.1:$serve_port")
echo "cold: p50=$(echo "$out" | awk '$1 == "50%" {print $2}') p99=$(echo "$out" | awk '$1 == "99%" {print $2}') requests/s=$(echo "$out" | awk '/Requests\/sec/ {print $2}')"
kill -TERM $pid; wait $pid || true

echo "== live routes: append 10 points to a 100,000-point route =="
ROUTETILES_BIN="$bin" Benchmarks/scripts/live_append.sh "$points" "$work"
