#!/usr/bin/env bash
# Server CPU time per cached-tile request: wrk (2 threads, 64 connections) over the hot set for S seconds, and the
# server's user and system CPU time over the run (from /proc/PID/stat), divided by the requests answered. Requests/s
# alone depend on how the cores are shared with wrk; CPU per request does much less.
#
#   Benchmarks/scripts/serve_cpu.sh BINARY|nginx [routes|tiles] [seconds] [workdir]
#
# Run Benchmarks/scripts/serve_vs_nginx.sh once first (it writes the pyramid, the hot set, the wrk script and
# nginx.conf). HOT_LIST=FILE takes another hot set; LOG_LEVEL=info serves with the access log, as by default.
set -euo pipefail
bin=$1; mode=${2:-routes}; seconds=${3:-8}; work=${4:-/dev/shm/routetiles-bench}
export HOT_LIST=${HOT_LIST:-$work/hot.txt}
port=18330
if [ "$bin" = nginx ]; then
  nginx -c "$work/nginx.conf" -p "$work" 2>/dev/null; port=18081; sleep 0.5
  pids=$(pgrep -f "nginx: worker")
else
  if [ "$mode" = tiles ]; then args=(--tiles "$work/serve-pyramid"); else args=("$work/routes-1000000.geojson"); fi
  "$bin" serve "${args[@]}" --port $port --log-level "${LOG_LEVEL:-warning}" 2>/dev/null &
  pids=$!
fi
stop() { if [ "$bin" = nginx ]; then nginx -c "$work/nginx.conf" -p "$work" -s stop 2>/dev/null; else kill $pids; wait $pids 2>/dev/null || true; fi; }
trap stop EXIT
first=$(head -1 "$HOT_LIST")
for _ in $(seq 300); do curl -sf -o /dev/null "http://127.0.0.1:$port/tiles/$first" && break; sleep 0.1; done
while read -r p; do curl -s -o /dev/null -H 'Accept-Encoding: gzip' "http://127.0.0.1:$port/tiles/$p"; done < "$HOT_LIST"
ticks() { # field 14 is user time, 15 system time, in clock ticks
  local t=0; for p in $pids; do t=$((t + $(awk -v f="$1" '{print $f}' "/proc/$p/stat"))); done; echo $t; }
u0=$(ticks 14); s0=$(ticks 15)
out=$(wrk -t2 -c64 -d"${seconds}s" --latency -s "$work/hot.lua" "http://127.0.0.1:$port")
u1=$(ticks 14); s1=$(ticks 15)
hz=$(getconf CLK_TCK)
requests=$(echo "$out" | awk '/requests in/ {print $1}')
rps=$(echo "$out" | awk '/Requests\/sec/ {print $2}')
p99=$(echo "$out" | awk '$1 == "99%" {print $2}')
per() { echo "scale=1; $1 * 1000000 / $hz / $requests" | bc; }
echo "$bin $mode requests/s=$rps p99=$p99 cpu_per_request_us: user=$(per $((u1 - u0))) system=$(per $((s1 - s0))) total=$(per $((u1 - u0 + s1 - s0)))"
