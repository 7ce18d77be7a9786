#!/usr/bin/env bash
# How long `routetiles serve ROUTES.geojson` takes before /health answers, and what it then holds: resident memory
# at that moment and once the routes' covers are all found (covers_pending 0), in MB and bytes per point.
#
# Usage: Benchmarks/scripts/serve_startup.sh [SIZES] [WORK]
#   SIZES  points, in millions, comma-separated (default 1,10); inputs generated into WORK (default /work/bench)
# Environment: ROUTETILES_BIN (default: a release build in .build-bench), BEFORE_BIN (a second binary to compare).
set -euo pipefail
cd "$(dirname "$0")/../.."
. Benchmarks/scripts/bench_setup.sh
sizes=${1:-1,10}
work=${2:-/work/bench}
mkdir -p "$work"
bin=$(routetiles_binary "${ROUTETILES_BIN:-}")
port=18790

measure() { # label, binary, file
  local label=$1 binary=$2 file=$3 pid start ready rss points pending settled
  start=$(date +%s.%N)
  "$binary" serve "$file" --port $port --log-level warning 2>/dev/null &
  pid=$!
  until curl -sf -o /dev/null "http://127.0.0.1:$port/health"; do
    kill -0 $pid 2>/dev/null || { echo "serve exited" >&2; exit 1; }
    sleep 0.02
  done
  ready=$(echo "$(date +%s.%N) - $start" | bc)
  rss=$(awk '/VmRSS/ {print $2}' /proc/$pid/status)
  read -r points pending < <(curl -s "http://127.0.0.1:$port/health" |
    python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["points"], d.get("covers_pending", 0))')
  # Wait (at most 10 minutes) for the covers found after start-up.
  for _ in $(seq 6000); do
    [ "$pending" = 0 ] && break
    sleep 0.1
    pending=$(curl -s "http://127.0.0.1:$port/health" | python3 -c 'import json,sys; print(json.load(sys.stdin).get("covers_pending", 0))')
  done
  settled=$(awk '/VmRSS/ {print $2}' /proc/$pid/status)
  kill $pid
  wait $pid 2>/dev/null || true
  printf "%-18s %10.2f %10d %8.1f %12d %8.1f\n" "$label" "$ready" $((rss / 1024)) \
    "$(echo "$rss * 1024 / $points" | bc -l)" $((settled / 1024)) "$(echo "$settled * 1024 / $points" | bc -l)"
}

printf "%-18s %10s %10s %8s %12s %8s\n" "run" "health s" "RSS MB" "B/point" "settled MB" "B/point"
for m in ${sizes//,/ }; do
  file=$work/routes-${m}m.geojson
  generated_routes $((m * 1000000)) "$file" >&2
  measure "routetiles ${m}M" "$bin" "$file"
  [ -n "${BEFORE_BIN:-}" ] && measure "before ${m}M" "$BEFORE_BIN" "$file"
done
