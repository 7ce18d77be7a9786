#!/usr/bin/env bash
# Cached tiles from `routetiles serve ROUTES` as the README starts it, two binaries (say, last week's and today's)
# against nginx in the same run, with access logs on (routetiles' default log level, nginx's `access_log … buffer=64k`)
# and off (`--log-level warning`, nginx `access_log off`).
#
#   Benchmarks/scripts/serve_defaults_ab.sh OLD_BINARY NEW_BINARY [points] [seconds] [rounds] [workdir]
#
# wrk -t2 -c64 over a hot set of 1,000 tiles of zooms 10–12 (the zooms a city map opens at), each fetched once
# first so that both servers answer from their cache. Each round runs the six configurations in turn; medians of
# the rounds and their ratios to nginx in the same logging mode are printed. Defaults: 1,000,000 points, 10 s,
# 3 rounds, /dev/shm/routetiles-bench. Needs nginx and wrk (Debian). Logs go to files in the workdir (tmpfs).
set -euo pipefail
cd "$(dirname "$0")/../.."
old=$1; new=$2
points=${3:-1000000}; seconds=${4:-10}; rounds=${5:-3}; work=${6:-/dev/shm/routetiles-bench}
ROUTETILES_BIN=$new . Benchmarks/scripts/hot_tiles.sh
(cd "$pyramid" && find 10 11 12 -name '*.mvt' | sort | awk 'NR <= 1000') > "$work/hot-low.txt"
export HOT_LIST="$work/hot-low.txt"
nginx_port=18181; serve_port=18182

trap 'nginx -c "$work/nginx-log.conf" -p "$work" -s stop 2>/dev/null || true; kill $(jobs -p) 2>/dev/null || true' EXIT

run_nginx() { # label, access_log directive
  nginx_conf nginx-log "$2"; nginx -c "$work/nginx-log.conf" -p "$work"
  wait_for "http://127.0.0.1:$nginx_port/tiles/$(head -1 "$HOT_LIST")"
  echo "$1 $(rps "http://127.0.0.1:$nginx_port")" >> "$work/defaults-results.txt"
  nginx -c "$work/nginx-log.conf" -p "$work" -s stop 2>/dev/null; sleep 0.5
}
run_routetiles() { # label, binary, extra arguments
  $2 serve "$input" --port $serve_port $3 2> "$work/routetiles-access.log" &
  local pid=$!
  wait_for "http://127.0.0.1:$serve_port/health"; warm "http://127.0.0.1:$serve_port"
  echo "$1 $(rps "http://127.0.0.1:$serve_port")" >> "$work/defaults-results.txt"
  kill -TERM $pid; wait $pid || true
}

: > "$work/defaults-results.txt"
echo "input: $input ($points points); $(nproc) cores; wrk -t2 -c64 -d${seconds}s; $rounds rounds; old $old; new $new"
for round in $(seq "$rounds"); do
  run_nginx nginx-log "access_log $work/nginx-access.log combined buffer=64k;"
  run_routetiles old-default "$old" ""
  run_routetiles new-default "$new" ""
  run_nginx nginx-nolog "access_log off;"
  run_routetiles old-nolog "$old" "--log-level warning"
  run_routetiles new-nolog "$new" "--log-level warning"
  rm -f "$work/nginx-access.log"
done
python3 - "$work/defaults-results.txt" <<'PY'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    name, value = line.split()
    runs.setdefault(name, []).append(float(value))
med = {k: statistics.median(v) for k, v in runs.items()}
for k in ["nginx-log", "old-default", "new-default", "nginx-nolog", "old-nolog", "new-nolog"]:
    print(f"{k:12s} median {med[k]:>10,.0f} requests/s   runs {', '.join(f'{x:,.0f}' for x in runs[k])}")
for build in ["old", "new"]:
    print(f"{build}: logs on {med[build + '-default'] / med['nginx-log']:.2f} of nginx (buffer=64k), "
          f"logs off {med[build + '-nolog'] / med['nginx-nolog']:.2f} of nginx (off)")
PY
