#!/usr/bin/env bash
# The server's cost per fix under the fleet load, for A/B runs of two builds (Docs/BENCHMARKS.md, "The third
# round"): serves the fleet that fleet_appends.sh generated (run it once first), waits SETTLE s (start-up's covers),
# runs wrk for DURATION s with fleet_appends.lua (BATCH fixes a request, 0: one fix a request), then prints one line:
# fixes/s, the server's CPU µs a fix (utime + stime from /proc), write_bytes a fix (/proc/PID/io: WAL, fsyncs and
# checkpoints), wrk's p99, and from /metrics the group commits and the seconds spent applying them.
#
#   Benchmarks/scripts/fleet_cpu.sh BINARY memory|FILE.db|postgres:URL [BATCH] [VEHICLES]
#
# A FILE.db is removed first (with its -wal and -shm); a postgres URL's routes tables are dropped first (public.routes
# and its _changes, _imports, _tails), and the WAL a fix (pg_current_wal_lsn over the wrk run, the whole cluster's)
# is printed as well, with the LSNs, for `pg_waldump --stats=record --start A --end B` in the cluster's pg_wal. Environment: SETTLE (12), DURATION (10), PORT (18600),
# WORK (/work/bench-fleet, where fleet_appends.sh keeps its files), DRAIN (0): seconds to wait after wrk, idle, then
# print the CPU a fix again counting them, and the server's RSS before and after (work a build defers past the run,
# such as freeing the snapshots it replaced, shows there), PERF (unset): a file for `perf record -g` of the server
# over the wrk run (read it with `perf report -i FILE --no-children`). Alternate two builds to compare them:
#   for r in 1 2 3; do for b in A B; do Benchmarks/scripts/fleet_cpu.sh $b fleet.db 100; done; done
set -euo pipefail
cd "$(dirname "$0")/../.."
. Benchmarks/scripts/bench_setup.sh
[ $# -ge 2 ] || { echo "usage: $0 BINARY memory|FILE.db|postgres:URL [BATCH] [VEHICLES]" >&2; exit 2; }
bin=$1 store=$2 batch=${3:-100} vehicles=${4:-10000}
pg=""
case $store in postgres:*) pg=${store#postgres:}; store=$pg ;; esac
lsn() { psql "$pg" -X -A -t -q -c "SELECT pg_current_wal_lsn()"; }
port=${PORT:-18600} work=${WORK:-/work/bench-fleet} settle=${SETTLE:-12} duration=${DURATION:-10}
fleet=$work/fleet-$vehicles-500.geojson ends=$work/fleet-$vehicles-500.ends
[ -f "$fleet" ] && [ -f "$ends" ] || { echo "no $fleet: run fleet_appends.sh $vehicles memory first" >&2; exit 1; }
fleet_store_reset "$store"
"$bin" serve "$fleet" --store "$store" --write-token bench-token-123 --port "$port" --log-level warning --maxzoom 14 \
  2>"$work/fleet_cpu.log" &
srv=$!
trap 'kill $srv 2>/dev/null || true' EXIT
for _ in $(seq 3000); do curl -fs -o /dev/null "http://127.0.0.1:$port/health" && break; sleep 0.1; done
sleep "$settle"
cpu0=$(cpu_ticks $srv); io0=$(write_bytes $srv)
lsn0=""; [ -z "$pg" ] || lsn0=$(lsn)
perf_pid=""
if [ -n "${PERF:-}" ]; then
  perf record -q -F 499 -g -o "$PERF" -p $srv -- sleep "$duration" 2>/dev/null & perf_pid=$!
fi
FLEET_VEHICLES=$vehicles FLEET_THREADS=2 FLEET_BATCH=$batch FLEET_TOKEN=bench-token-123 FLEET_ENDS=$ends \
  wrk -t2 -c64 -d"${duration}s" --timeout 10s --latency -s Benchmarks/scripts/fleet_appends.lua \
  "http://127.0.0.1:$port" > "$work/fleet_cpu.wrk"
cpu1=$(cpu_ticks $srv); io1=$(write_bytes $srv)
[ -z "$perf_pid" ] || wait $perf_pid
drain=${DRAIN:-0} drained=""
if [ "$drain" -gt 0 ]; then
  rss1=$(awk '/VmRSS/ { print $2 }' /proc/$srv/status)
  sleep "$drain"
  drained="$(($(cpu_ticks $srv) - cpu0)) $rss1 $(awk '/VmRSS/ { print $2 }' /proc/$srv/status)"
fi
wal=""
if [ -n "$pg" ]; then
  lsn1=$(lsn)
  wal="WAL $(psql "$pg" -X -A -t -q -c "SELECT pg_wal_lsn_diff('$lsn1', '$lsn0')::bigint") B ($lsn0 to $lsn1)"
fi
metrics=$(curl -fs "http://127.0.0.1:$port/metrics" | grep -E '^routetiles_store_(group_commits|apply_seconds_sum) ' | tr '\n' ' ')
awk -v batch="$batch" -v cpu=$((cpu1 - cpu0)) -v io=$((io1 - io0)) -v hz="$(getconf CLK_TCK)" -v m="$metrics" -v wal="$wal" \
  -v drained="$drained" -v drain="$drain" '
  /requests in/ { requests = $1 }
  /Requests\/sec/ { rate = $2 }
  /^ +99%/ { p99 = $2 }
  END {
    fixes = requests * (batch > 0 ? batch : 1)
    printf "fixes/s %.0f  server CPU %.1f us a fix  write_bytes %.0f B a fix  p99 %s  %s",
      rate * (batch > 0 ? batch : 1), cpu / hz * 1e6 / fixes, io / fixes, p99, m
    if (wal != "") { split(wal, w, " "); printf " %.0f B of WAL a fix  %s", w[2] / fixes, wal }
    if (drained != "") {
      split(drained, d, " ")
      printf "  with %s s after: CPU %.1f us a fix, RSS %.0f MB then %.0f MB", drain, d[1] / hz * 1e6 / fixes, d[2] / 1024, d[3] / 1024
    }
    printf "\n"
  }' "$work/fleet_cpu.wrk"
