#!/usr/bin/env bash
# Does a live server slow down as its tracks grow? One server of the fleet that fleet_appends.sh generated (run it
# once first), then PHASES wrk runs of PHASE s each, back to back, every track going on from where the previous
# phase left it (fleet_appends.lua's FLEET_ENDS_OUT). After each phase, one line: the phase, fixes/s, wrk's p99,
# the server's CPU µs a fix and write_bytes a fix (/proc/PID: WAL, fsyncs and checkpoints), its resident memory
# (VmRSS) and the positions it holds (/health). Docs/BENCHMARKS.md, "Over minutes".
#
#   Benchmarks/scripts/fleet_soak.sh BINARY memory|FILE.db|postgres:URL [BATCH] [VEHICLES]
#
# BATCH: fixes a request (100; 0: one fix a request). A FILE.db is removed first (with its -wal and -shm); a
# postgres URL's routes tables are dropped first. Environment: PHASES (10), PHASE (30), SETTLE (12), PORT (18700),
# WORK (/work/bench-fleet, where fleet_appends.sh keeps its files), SERVE_ARGS (more options for serve, such as
# "--max-track-points 1000"). Everything goes to 127.0.0.1.
set -euo pipefail
cd "$(dirname "$0")/../.."
. Benchmarks/scripts/bench_setup.sh
[ $# -ge 2 ] || { echo "usage: $0 BINARY memory|FILE.db|postgres:URL [BATCH] [VEHICLES]" >&2; exit 2; }
bin=$1 store=$2 batch=${3:-100} vehicles=${4:-10000}
phases=${PHASES:-10} phase=${PHASE:-30} settle=${SETTLE:-12} port=${PORT:-18700} work=${WORK:-/work/bench-fleet}
for n in "$batch" "$vehicles" "$phases" "$phase" "$settle" "$port"; do
  [[ $n =~ ^[0-9]+$ ]] || { echo "not a whole number: $n" >&2; exit 2; }
done
fleet=$work/fleet-$vehicles-500.geojson ends=$work/fleet-$vehicles-500.ends
[ -f "$fleet" ] && [ -f "$ends" ] || { echo "no $fleet: run fleet_appends.sh $vehicles memory first" >&2; exit 1; }
store=${store#postgres:}
fleet_store_reset "$store"
"$bin" serve "$fleet" --store "$store" --write-token bench-token-123 --port "$port" --log-level warning --maxzoom 14 \
  ${SERVE_ARGS:-} 2>"$work/fleet_soak.log" &
srv=$!
trap 'kill $srv 2>/dev/null || true' EXIT
for _ in $(seq 3000); do curl -fs -o /dev/null "http://127.0.0.1:$port/health" && break; sleep 0.1; done
sleep "$settle"
cp "$ends" "$work/fleet_soak.ends"
echo "fleet $vehicles x 500 positions, store $store, $((batch > 0 ? batch : 1)) fixes a request, $phases phases of ${phase}s; binary $bin ${SERVE_ARGS:-}"
for i in $(seq "$phases"); do
  cpu0=$(cpu_ticks $srv); io0=$(write_bytes $srv)
  FLEET_VEHICLES=$vehicles FLEET_THREADS=2 FLEET_BATCH=$batch FLEET_TOKEN=bench-token-123 \
    FLEET_ENDS=$work/fleet_soak.ends FLEET_ENDS_OUT=$work/fleet_soak.ends.next \
    wrk -t2 -c64 -d"${phase}s" --timeout 10s --latency -s Benchmarks/scripts/fleet_appends.lua \
    "http://127.0.0.1:$port" > "$work/fleet_soak.wrk"
  cpu1=$(cpu_ticks $srv); io1=$(write_bytes $srv)
  mv "$work/fleet_soak.ends.next" "$work/fleet_soak.ends"
  rss=$(awk '/^VmRSS/ {printf "%.0f", $2 / 1024}' "/proc/$srv/status")
  points=$(curl -fs "http://127.0.0.1:$port/health" | python3 -c 'import json, sys; print(json.load(sys.stdin)["points"])')
  awk -v i="$i" -v batch="$batch" -v cpu=$((cpu1 - cpu0)) -v io=$((io1 - io0)) -v hz="$(getconf CLK_TCK)" \
      -v rss="$rss" -v points="$points" '
    /requests in/ { requests = $1 }
    /Requests\/sec/ { rate = $2 }
    /^ +99%/ { p99 = $2 }
    /^non2xx/ { non2xx = $2 }
    END {
      fixes = requests * (batch > 0 ? batch : 1)
      printf "phase %d: fixes/s %.0f  p99 %s  server CPU %.1f us a fix  write_bytes %.0f B a fix  RSS %d MB  positions %d  non-2xx %d\n",
        i, rate * (batch > 0 ? batch : 1), p99, cpu / hz * 1e6 / fixes, io / fixes, rss, points, non2xx
    }' "$work/fleet_soak.wrk"
done
