#!/usr/bin/env bash
# Live GPS fixes from a whole fleet ("live tracking for a whole fleet"): VEHICLES routes "veh-0".."veh-(N-1)" of
# POINTS positions each (random-walk tracks, ~30 m a step, in Paris: lon 2.25..2.45, lat 48.80..48.92) served by
# `routetiles serve --store STORE --write-token`, then:
#   1. wrk (2 threads, CONNECTIONS connections, DURATION s, fleet_appends.lua): one fix per request,
#      `POST /routes/veh-K/points` with [[lon,lat]] for a random vehicle, each track going on from where it ends:
#      fixes/s, latency p50/p99, non-2xx answers;
#   2. with BATCH > 0, the same with BATCH fixes per `POST /routes/points` (skipped, saying so, when the server
#      answers the first one 404 or 405: no such endpoint);
#   3. `PUT /routes/long`, a 100,000-point track, then one fix after the other with curl: 200 to random vehicles and
#      50 to "long" (200 for sqlite), reading invalidated_tiles of each answer: its median and p99 per kind of track;
#   with each wrk phase, the bytes written a fix (sqlite: write_bytes; postgres: the cluster's WAL);
#   with postgres, a second replica (`serve --store URL`, port+1) and replica_propagation.py beside each wrk phase:
#      for each change event of the writer, the time until the replica's /events reaches its sequence, p50 and p99;
#   4. sqlite: the server's /proc/PID/io write_bytes (bytes it sent to the storage layer) and the growth of
#      fleet.db + fleet.db-wal over each of those two serial runs, per fix.
# Prints one summary line per measurement, each starting with fleet=VEHICLES store=STORE.
#
#   Benchmarks/scripts/fleet_appends.sh VEHICLES memory|sqlite|postgres:URL [workdir]
#
# With ORDER=round each wrk thread takes its vehicles in turn rather than at random: with more vehicles than fixes
# in flight (2 threads x CONNECTIONS x BATCH), no vehicle then has fixes in two requests at once. With times, fixes
# of one vehicle in two requests at once arrive out of order, and a late fix rewrites its route (Docs/HTTP.md,
# "Fixes with times"), so the cost of times alone is measured with ORDER=round.
#
# With TIMES=1 every position has a time: the fleet file's tracks have coordTimes (one a second, from
# 2026-09-21T11:06:40Z), and the wrk phases send fix objects {"lon":…,"lat":…,"t":…}, each vehicle's a second after
# its last; the serial phases (3, 4), which send positions without times, are left out.
#
# Environment: ROUTETILES_BIN (else the release binary is built into .build-bench), DURATION (10), CONNECTIONS (64),
# POINTS (500), PORT (18500), BATCH (0), TIMES (0), ORDER (random). Default workdir /work/bench-fleet: on the disk, as the SQLite file
# (fleet.db there, removed before each run) must be for its fsyncs to count. Generated files are kept there, by
# (vehicles, points). A postgres URL is used as it is: its routes table is neither emptied before nor after.
# Everything goes to 127.0.0.1; the server is stopped at the end and on any exit.
set -euo pipefail
cd "$(dirname "$0")/../.."
. Benchmarks/scripts/bench_setup.sh

usage() { echo "usage: $0 VEHICLES memory|sqlite|postgres:URL [workdir]" >&2; exit 2; }
[ $# -ge 2 ] || usage
vehicles=$1 store=$2 work=${3:-/work/bench-fleet}
duration=${DURATION:-10} connections=${CONNECTIONS:-64} points=${POINTS:-500} port=${PORT:-18500} batch=${BATCH:-0}
times=${TIMES:-0} time0=1790000000
for n in "$vehicles" "$duration" "$connections" "$points" "$port" "$batch"; do
  [[ $n =~ ^[0-9]+$ ]] || { echo "not a whole number: $n" >&2; usage; }
done
[ "$vehicles" -ge 1 ] && [ "$points" -ge 2 ] || usage
token=bench-token-123 threads=2 serial=200 long_points=100000
mkdir -p "$work"
work=$(realpath "$work")
case $store in
  memory) store_arg=memory; long_fixes=50 ;;
  sqlite) store_arg=$work/fleet.db; long_fixes=200 ;;
  postgres:*) store_arg=${store#postgres:}; store=postgres; long_fixes=50 ;;
  *) usage ;;
esac
command -v wrk >/dev/null || apt-get -o DPkg::Lock::Timeout=600 install -y wrk >/dev/null \
  || { echo "needs wrk: apt-get install wrk" >&2; exit 1; }
bin=$(routetiles_binary "${ROUTETILES_BIN:-}")
tag="fleet=$vehicles store=$store"

# The fleet (cached by vehicles and points), where each track ends ("lon lat heading", one line per vehicle, for
# fleet_appends.lua), and the long track with its end.
timed=""; [ "$times" = 1 ] && timed=-timed
fleet=$work/fleet-$vehicles-$points$timed.geojson ends0=$work/fleet-$vehicles-$points.ends long=$work/long-$long_points.geojson
python3 - "$vehicles" "$points" "$fleet" "$ends0" "$long_points" "$long" "$times" "$time0" <<'PY'
import json, math, os, random, sys
vehicles, points, fleet, ends, long_points, long = int(sys.argv[1]), int(sys.argv[2]), *sys.argv[3:5], int(sys.argv[5]), sys.argv[6]
timed, time0 = sys.argv[7] == "1", int(sys.argv[8])
LON0, LON1, LAT0, LAT1 = 2.25, 2.45, 48.80, 48.92
STEP_LAT, STEP_LON = 30 / 111320, 30 / (111320 * math.cos(math.radians(48.86)))   # ~30 m

def walk(rng, n):
    lon, lat, h = rng.uniform(LON0, LON1), rng.uniform(LAT0, LAT1), rng.uniform(0, 2 * math.pi)
    coords = []
    for i in range(n):
        coords.append(f"[{lon:.7f},{lat:.7f}]")
        if i == n - 1: break
        h += rng.uniform(-0.3, 0.3)
        nlon, nlat = lon + math.cos(h) * STEP_LON, lat + math.sin(h) * STEP_LAT
        if not LON0 <= nlon <= LON1: h = math.pi - h; nlon = lon + math.cos(h) * STEP_LON
        if not LAT0 <= nlat <= LAT1: h = -h; nlat = lat + math.sin(h) * STEP_LAT
        lon, lat = nlon, nlat
    return coords, f"{lon:.7f} {lat:.7f} {h:.5f}"

def feature(key, coords, with_times=False):
    # Times as Unix seconds: one a second from time0, as a phone that reports each second.
    times = ',"coordTimes":[%s]' % ",".join(str(time0 + i) for i in range(len(coords))) if with_times else ""
    return ('{"type":"Feature","id":%s,"properties":{"name":%s%s},"geometry":{"type":"LineString","coordinates":[%s]}}'
            % (json.dumps(key), json.dumps(key), times, ",".join(coords)))

if not (os.path.exists(fleet) and os.path.exists(ends)):
    rng = random.Random(20240601 + 7 * vehicles + points)
    with open(fleet + ".tmp", "w") as f, open(ends + ".tmp", "w") as e:
        f.write('{"type":"FeatureCollection","features":[\n')
        for v in range(vehicles):
            coords, end = walk(rng, points)
            f.write(("," if v else "") + feature(f"veh-{v}", coords, timed) + "\n")
            e.write(end + "\n")
        f.write("]}\n")
    os.replace(fleet + ".tmp", fleet); os.replace(ends + ".tmp", ends)
if not (os.path.exists(long) and os.path.exists(long + ".end")):
    coords, end = walk(random.Random(99), long_points)
    open(long + ".tmp", "w").write(feature("long", coords)); os.replace(long + ".tmp", long)
    open(long + ".end", "w").write(end + "\n")
PY

server=""
stop_server() {
  if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; server=""; fi
}
trap stop_server EXIT
trap 'exit 130' INT TERM

fmt_bytes() { awk -v b="$1" 'BEGIN { if (b < 0 ? -b >= 1e6 : b >= 1e6) printf "%.1f MB", b / 1e6; else printf "%.0f B", b }'; }
db_bytes() { local t=0 f; for f in "$store_arg" "$store_arg-wal"; do [ -f "$f" ] && t=$((t + $(stat -c %s "$f"))); done; echo $t; }
write_bytes() { awk '$1 == "write_bytes:" {print $2}' "/proc/$server/io"; }
wal_lsn() { psql "$store_arg" -X -A -t -q -c "SELECT pg_current_wal_lsn()" 2>/dev/null; }
# Bytes the store wrote since mark_bytes: the server's write_bytes for SQLite, the cluster's WAL for PostgreSQL.
mark_bytes() { case $store in sqlite) mark=$(write_bytes) ;; postgres) mark=$(wal_lsn) ;; *) mark="" ;; esac; }
bytes_since_mark() {
  case $store in
    sqlite) echo $(( $(write_bytes) - mark )) ;;
    postgres) psql "$store_arg" -X -A -t -q -c "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '$mark')::bigint" ;;
    *) echo "" ;;
  esac
}
stats() { # numbers on stdin → "median M p99 P"
  sort -n | awk '{a[NR] = $1} END { if (!NR) { print "median - p99 -"; exit }
    i = int(0.99 * NR) + 1; if (i > NR) i = NR; printf "median %s p99 %s", a[int((NR + 1) / 2)], a[i] }'
}

echo "$(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) before the run (other jobs on the machine share the cores);" \
  "workdir $work ($(df --output=fstype "$work" | tail -1))"
echo "$vehicles vehicles x $points points; wrk -t$threads -c$connections -d${duration}s; binary $bin"

# The server, on a fresh SQLite file; the start-up seeds the store from the fleet file.
[ "$store" = sqlite ] && rm -f "$store_arg" "$store_arg-wal" "$store_arg-shm"
started=$(date +%s%N)
"$bin" serve "$fleet" --store "$store_arg" --write-token $token --port "$port" --log-level warning --maxzoom 14 \
  2>"$work/serve.log" &
server=$!
up="" # wait_health's loop, but up to 10 minutes (a large fleet seeds a store for minutes) and ending if serve does
for _ in $(seq 6000); do
  if curl -fs -o /dev/null "http://127.0.0.1:$port/health"; then up=1; break; fi
  kill -0 "$server" 2>/dev/null || break
  sleep 0.1
done
[ -n "$up" ] || { echo "the server did not start:" >&2; tail -20 "$work/serve.log" >&2; exit 1; }
startup=$(( ($(date +%s%N) - started) / 1000000 ))
awk -v ms="$startup" -v tag="$tag" -v n="$((vehicles * points))" -v mb="$(stat -c %s "$fleet")" \
  'BEGIN { printf "%s start-up: %.1f s (%d points, a %.0f MB file)\n", tag, ms / 1000, n, mb / 1e6 }'

# wrk phases: FLEET_ENDS is where each track ends when wrk starts, FLEET_ENDS_OUT where fleet_appends.lua's done()
# writes where they end after it (for the next phase).
ends=$ends0
# postgres: a second replica over the same store, on port+1, and replica_propagation.py beside each wrk phase.
replica=""
stop_replica() { if [ -n "$replica" ]; then kill "$replica" 2>/dev/null || true; wait "$replica" 2>/dev/null || true; replica=""; fi; }
if [ "$store" = postgres ]; then
  "$bin" serve --store "$store_arg" --port $((port + 1)) --log-level warning --maxzoom 14 2>"$work/replica.log" &
  replica=$!
  trap 'stop_server; stop_replica' EXIT
  wait_health $((port + 1)) || { echo "the replica did not start:" >&2; tail -20 "$work/replica.log" >&2; exit 1; }
fi
phase_time=$((time0 + points + 10)) # with TIMES=1, the time of each vehicle's first fix of a phase
wrk_phase() { # label, fixes per request (0: one per POST /routes/veh-K/points)
  local label=$1 b=$2 out="$work/wrk-$1.txt" written probe="" t0=""
  if [ "$times" = 1 ]; then t0=$phase_time; phase_time=$((phase_time + 1000000)); fi
  mark_bytes
  if [ -n "$replica" ]; then
    python3 Benchmarks/scripts/replica_propagation.py "http://127.0.0.1:$port" "http://127.0.0.1:$((port + 1))" \
      --seconds "$((duration > 3 ? duration - 2 : 1))" >"$work/propagation-$label.txt" 2>&1 &
    probe=$!
  fi
  FLEET_VEHICLES=$vehicles FLEET_THREADS=$threads FLEET_BATCH=$b FLEET_TOKEN=$token FLEET_ENDS=$ends FLEET_T0=$t0 \
    FLEET_ORDER=${ORDER:-random} \
    FLEET_ENDS_OUT="$work/ends-$label" \
    wrk -t$threads -c"$connections" -d"${duration}s" --timeout 10s --latency -s Benchmarks/scripts/fleet_appends.lua \
    "http://127.0.0.1:$port" >"$out" 2>&1 || { cat "$out" >&2; exit 1; }
  if [ -n "$probe" ]; then
    wait "$probe" || true
    echo "$tag $label: $(tail -1 "$work/propagation-$label.txt")"
  fi
  sleep 0.2
  written=$(bytes_since_mark)
  [ -s "$work/ends-$label" ] && ends=$work/ends-$label
  awk -v tag="$tag" -v label="$label" -v b="$b" -v written="$written" -v store="$store" '
    function ms(v) { if (v ~ /us$/) return v / 1000; if (v ~ /ms$/) return v + 0; if (v ~ /m$/) return v * 60000
                     if (v ~ /s$/) return v * 1000; return v + 0 }
    $1 == "50%" { p50 = ms($2) } $1 == "99%" { p99 = ms($2) } $1 == "Requests/sec:" { rps = $2 }
    $1 == "non2xx" { bad = $2 } / requests in / { total = $1 } /Socket errors/ { errors = "; " $0 } /first non-2xx/ { first = "; " $0 }
    END { if (rps == "") exit 1
          sub(/^ +/, "", errors)
          if (b > 0) printf "%s batch=%d: %.0f requests/s = %.0f fixes/s", tag, b, rps, rps * b
          else printf "%s appends: %.0f fixes/s", tag, rps
          printf " p50 %.1f ms p99 %.1f ms non2xx %d%s%s", p50, p99, bad, errors, first
          if (written != "" && total > 0)
            printf "; %s %.0f B a fix", (store == "sqlite" ? "write_bytes" : "WAL"), written / (total * (b > 0 ? b : 1))
          printf "\n" }' "$out" \
    || { echo "cannot read wrk's output:" >&2; cat "$out" >&2; exit 1; }
}
wrk_phase appends 0

if [ "$batch" -gt 0 ]; then
  read -r lon lat _ < "$ends"
  probe_fix="[$lon,$lat]"
  # With times, a fix object after the last phase's fixes and before the next's.
  [ "$times" = 1 ] && probe_fix="{\"lon\":$lon,\"lat\":$lat,\"t\":$((phase_time - 1))}"
  code=$(curl -s -o "$work/batch-probe.txt" -w '%{http_code}' -X POST -H "Authorization: Bearer $token" \
    -H 'Content-Type: application/json' --data-binary "{\"veh-0\":[$probe_fix]}" \
    "http://127.0.0.1:$port/routes/points")
  case $code in
    404|405) echo "$tag batch endpoint: not available (POST /routes/points answered $code)" ;;
    2??) wrk_phase batch "$batch" ;;
    *) echo "$tag batch endpoint: answered $code to the first batch, skipped: $(head -c 300 "$work/batch-probe.txt")" ;;
  esac
fi

if [ "$times" = 1 ]; then
  echo "$tag: with times, the serial phases (positions without times) are left out"
  exit 0
fi

# The long track, then fixes one after the other with curl, each track going on from its end.
put=$(curl -s -o "$work/put-long.txt" -w '%{http_code} %{time_total}' -X PUT -H "Authorization: Bearer $token" \
  -H 'Content-Type: application/geo+json' --data-binary @"$long" "http://127.0.0.1:$port/routes/long")
[[ $put == 2* ]] || { echo "PUT /routes/long answered ${put% *}: $(head -c 300 "$work/put-long.txt")" >&2; exit 1; }
echo "$tag PUT /routes/long ($long_points points): ${put#* } s"

serial_fixes() { # vehicles|long, count → lines "KEY [[lon,lat]]" in $work/serial-$1.txt
  python3 - "$1" "$2" "$vehicles" "$ends" "$long.end" "$work/serial-$1.txt" <<'PY'
import math, random, sys
kind, count, vehicles, ends, long_end, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), *sys.argv[4:]
LON0, LON1, LAT0, LAT1 = 2.25, 2.45, 48.80, 48.92
STEP_LAT, STEP_LON = 30 / 111320, 30 / (111320 * math.cos(math.radians(48.86)))
state = {}
rng = random.Random(7 if kind == "vehicles" else 8)
for k, line in enumerate(open(ends if kind == "vehicles" else long_end)):
    try: s = [float(x) for x in line.split()[:3]]
    except ValueError: s = [rng.uniform(LON0, LON1), rng.uniform(LAT0, LAT1), 0.0]   # "- - -": not known
    state[f"veh-{k}" if kind == "vehicles" else "long"] = s
with open(out, "w") as f:
    for _ in range(count):
        key = f"veh-{rng.randrange(vehicles)}" if kind == "vehicles" else "long"
        s = state[key]
        h = s[2] + rng.uniform(-0.3, 0.3)
        lon, lat = s[0] + math.cos(h) * STEP_LON, s[1] + math.sin(h) * STEP_LAT
        if not LON0 <= lon <= LON1: h = math.pi - h; lon = s[0] + math.cos(h) * STEP_LON
        if not LAT0 <= lat <= LAT1: h = -h; lat = s[1] + math.sin(h) * STEP_LAT
        s[:] = [lon, lat, h]
        f.write(f"{key} [[{lon:.7f},{lat:.7f}]]\n")
PY
}
serial_run() { # vehicles|long, count → invalidated_tiles per answer in $work/invalidated-$1.txt; sets bytes_$1, db_$1
  local kind=$1 key body answer code io0 db0 failed=0
  serial_fixes "$kind" "$2"
  : >"$work/invalidated-$kind.txt"
  io0=$(write_bytes) db0=$(db_bytes)
  while read -r key body; do
    answer=$(curl -s -w ' %{http_code}' -X POST -H "Authorization: Bearer $token" -H 'Content-Type: application/json' \
      --data-binary "$body" "http://127.0.0.1:$port/routes/$key/points")
    code=${answer##* }
    if [[ $code == 2* ]]; then
      sed -n 's/.*"invalidated_tiles" *: *\([0-9]*\).*/\1/p' <<<"$answer" >>"$work/invalidated-$kind.txt"
    else
      failed=$((failed + 1)); [ $failed -eq 1 ] && echo "$tag serial fix to $key answered $code: ${answer:0:300}" >&2
    fi
  done <"$work/serial-$kind.txt"
  sleep 0.2 # a write answered after its commit: let any write-back that follows it reach the counters
  eval "bytes_$kind=\$(( \$(write_bytes) - io0 )) db_$kind=\$(( \$(db_bytes) - db0 )) failed_$kind=$failed"
}
wal0=""; [ "$store" = postgres ] && wal0=$(wal_lsn)
serial_run vehicles $serial
wal1=""; [ "$store" = postgres ] && wal1=$(wal_lsn)
serial_run long $long_fixes
wal2=""; [ "$store" = postgres ] && wal2=$(wal_lsn)
echo "$tag invalidated per fix: $points-pt $(stats <"$work/invalidated-vehicles.txt");" \
  "${long_points}-pt $(stats <"$work/invalidated-long.txt")" \
  "($serial and $long_fixes serial fixes, non-2xx $failed_vehicles and $failed_long)"
if [ "$store" = sqlite ]; then
  echo "$tag bytes per fix: $points-pt $(fmt_bytes $((bytes_vehicles / serial))); ${long_points}-pt" \
    "$(fmt_bytes $((bytes_long / long_fixes))) (write_bytes of the server over $serial and $long_fixes serial fixes)"
  echo "$tag fleet.db + fleet.db-wal growth per fix: $points-pt $(fmt_bytes $((db_vehicles / serial)));" \
    "${long_points}-pt $(fmt_bytes $((db_long / long_fixes))) (now $(fmt_bytes "$(db_bytes)"))"
fi
if [ "$store" = postgres ] && [ -n "$wal0" ] && [ -n "$wal2" ]; then
  read -r w1 w2 < <(psql "$store_arg" -X -A -t -q -F ' ' -c \
    "SELECT pg_wal_lsn_diff('$wal1', '$wal0')::bigint, pg_wal_lsn_diff('$wal2', '$wal1')::bigint")
  echo "$tag WAL per fix: $points-pt $(fmt_bytes $((w1 / serial))); ${long_points}-pt $(fmt_bytes $((w2 / long_fixes)))" \
    "(pg_current_wal_lsn over $serial and $long_fixes serial fixes, the whole cluster's WAL)"
fi
stop_server
