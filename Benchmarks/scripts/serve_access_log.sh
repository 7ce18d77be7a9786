#!/usr/bin/env bash
# Cached tiles with and without an access log, routetiles against nginx in the same run.
#
#   Benchmarks/scripts/serve_access_log.sh [points] [seconds] [rounds] [workdir]
#
# wrk (2 threads, 64 connections) over a hot set of 1,000 z14 tiles of the pyramid built from the routes, against:
#   - nginx serving the pyramid's files, `access_log off` and `access_log FILE buffer=64k` (the usual production
#     setting);
#   - `routetiles serve --tiles PYRAMID` as the README starts it (default log level info: one access-log line a
#     request, to standard error, here redirected to a file) and with `--log-level warning` (no access log).
# Both logs go to files in the workdir (tmpfs by default). Rounds alternate the four configurations; the median
# of each is reported with its ratio to nginx in the same logging mode. Defaults: 1,000,000 points, 10 s, 3 rounds,
# /dev/shm/routetiles-bench. Needs nginx and wrk (Debian). ROUTETILES_BIN=path uses that binary; otherwise the
# release binary is built into .build-bench.
set -euo pipefail
cd "$(dirname "$0")/../.."
points=${1:-1000000}; seconds=${2:-10}; rounds=${3:-3}; work=${4:-/dev/shm/routetiles-bench}
. Benchmarks/scripts/hot_tiles.sh
nginx_port=18181; serve_port=18182

trap 'nginx -c "$work/nginx-log.conf" -p "$work" -s stop 2>/dev/null || true; kill $(jobs -p) 2>/dev/null || true' EXIT

run_nginx() { # label, access_log directive
  rm -f "$work/nginx-access.log"
  nginx_conf nginx-log "$2"; nginx -c "$work/nginx-log.conf" -p "$work"
  wait_for "http://127.0.0.1:$nginx_port/tiles/$(head -1 "$work/hot.txt")"
  echo "$1 $(rps "http://127.0.0.1:$nginx_port")" >> "$work/access-results.txt"
  nginx -c "$work/nginx-log.conf" -p "$work" -s stop 2>/dev/null; sleep 0.5
  [ -f "$work/nginx-access.log" ] && echo "nginx wrote $(wc -l < "$work/nginx-access.log") access-log lines" || true
}
run_routetiles() { # label, extra arguments
  rm -f "$work/routetiles-access.log"
  $bin serve --tiles "$pyramid" --port $serve_port $2 2> "$work/routetiles-access.log" &
  local pid=$!
  wait_for "http://127.0.0.1:$serve_port/health"; warm "http://127.0.0.1:$serve_port"
  echo "$1 $(rps "http://127.0.0.1:$serve_port")" >> "$work/access-results.txt"
  kill -TERM $pid; wait $pid || true
  [ -z "$2" ] && echo "routetiles wrote $(grep -c ' info ' "$work/routetiles-access.log" || true) access-log lines" || true
}

: > "$work/access-results.txt"
echo "input: $input ($points points); $(nproc) cores; wrk -t2 -c64 -d${seconds}s; $rounds rounds; logs under $work"
for round in $(seq "$rounds"); do
  run_nginx nginx-log "access_log $work/nginx-access.log combined buffer=64k;"
  run_routetiles routetiles-default ""
  run_nginx nginx-nolog "access_log off;"
  run_routetiles routetiles-nolog "--log-level warning"
done
python3 - "$work/access-results.txt" <<'PY'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    name, value = line.split()
    runs.setdefault(name, []).append(float(value))
med = {k: statistics.median(v) for k, v in runs.items()}
for k in ["nginx-log", "routetiles-default", "nginx-nolog", "routetiles-nolog"]:
    print(f"{k:20s} median {med[k]:>10,.0f} requests/s   runs {', '.join(f'{x:,.0f}' for x in runs[k])}")
print(f"access log on  (routetiles default / nginx buffer=64k): {med['routetiles-default'] / med['nginx-log']:.2f}")
print(f"access log off (routetiles --log-level warning / nginx off): {med['routetiles-nolog'] / med['nginx-nolog']:.2f}")
PY
