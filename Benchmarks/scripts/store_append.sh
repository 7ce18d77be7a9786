#!/usr/bin/env bash
# Appends per route store: `POST /routes/long/points` with 10 points, one after the other on one keep-alive
# connection, against `routetiles serve --store memory`, a SQLite store file and a PostgreSQL store, for a route of
# 100,000 points (the track of live_append.sh) and one of 1,000 points (its first 1,000). Prints appends/s and the
# latency p50/p90/p99/max of each run.
#
#   Benchmarks/scripts/store_append.sh [BINARY] [workdir]
#
# Without BINARY, builds the release binary into .build-bench. Defaults: workdir /work/bench-store, which must be on
# the disk: the SQLite file (WAL, synchronous=FULL) and the PostgreSQL cluster (started and stopped here, as the
# postgres user, default settings: fsync on) live there, and a durable append waits for fsync. APPENDS (2000) is the
# number of timed appends per run, after 20 untimed ones; SECONDS_LIMIT (180) ends a run early (the count is
# printed). Each append continues the track, so the route grows by 10 points each time: "p50 1st" and "p50 last"
# are the medians of the first and the last 100 timed appends, and "points" the route's length at the end.
set -euo pipefail
cd "$(dirname "$0")/../.."
. Benchmarks/scripts/bench_setup.sh
store_bench "$@"
port=18510; pg_port=18511; token=bench-token-1
appends=${APPENDS:-2000}
limit=${SECONDS_LIMIT:-180}
server=""
cleanup() { [ -n "$server" ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null; pg_stop; }
trap cleanup EXIT

# The track of live_append.sh (same walk from 13.4, 52.5), 100,000 and 1,000 points, and where it ends, so that the
# appends continue it.
python3 - "$work" <<'PY'
import json, math, sys
work = sys.argv[1]
for n in (100_000, 1_000):
    pts, lon, lat, h = [], 13.4, 52.5, 0.0
    for i in range(n):
        pts.append([round(lon, 7), round(lat, 7)])
        h += math.sin(i * 0.37) * 0.5
        lon += math.cos(h) * 0.0001; lat += math.sin(h) * 0.00007
    feature = {"type": "Feature", "id": "long", "properties": {"name": "long track"},
               "geometry": {"type": "LineString", "coordinates": pts}}
    open(f"{work}/long-{n}.geojson", "w").write(json.dumps(feature))
    open(f"{work}/long-{n}.end.json", "w").write(json.dumps({"i": n, "lon": lon, "lat": lat, "h": h}))
PY

# The client: sequential appends on one connection, bounded by count and time.
cat > "$work/append_client.py" <<'PY'
import http.client, json, math, sys, time
port, token, end_file, count, limit = int(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4]), float(sys.argv[5])
s = json.load(open(end_file))
i, lon, lat, h = s["i"], s["lon"], s["lat"], s["h"]
def next_points():
    global i, lon, lat, h
    out = []
    for _ in range(10):
        out.append([round(lon, 7), round(lat, 7)])
        h += math.sin(i * 0.37) * 0.5
        lon += math.cos(h) * 0.0001; lat += math.sin(h) * 0.00007
        i += 1
    return json.dumps(out).encode()
conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
def append():
    conn.request("POST", "/routes/long/points", body=next_points(), headers=headers)
    r = conn.getresponse(); body = r.read()
    if r.status != 200: raise SystemExit(f"append answered {r.status}: {body[:200]!r}")
for _ in range(20): append()
lat_ms, started = [], time.perf_counter()
while len(lat_ms) < count and time.perf_counter() - started < limit:
    t = time.perf_counter(); append(); lat_ms.append((time.perf_counter() - t) * 1000)
elapsed = time.perf_counter() - started
order = list(lat_ms)
lat_ms.sort()
q = lambda p: lat_ms[min(len(lat_ms) - 1, int(p * len(lat_ms)))]
first, last = sorted(order[:100]), sorted(order[-100:])
grown = s["i"] + 200 + 10 * len(lat_ms)                   # route length after the last append
print(f"{len(lat_ms):>6} {len(lat_ms) / elapsed:>10.0f} {q(0.5):>8.2f} {q(0.9):>8.2f} {q(0.99):>8.2f} {lat_ms[-1]:>8.2f}"
      f" {first[len(first) // 2]:>9.2f} {last[len(last) // 2]:>9.2f} {grown:>8}"
      + ("" if len(lat_ms) == count else f"  (stopped at the {limit:.0f} s limit)"))
PY

run() { # label, store, points
  local label=$1 store=$2 n=$3
  "$bin" serve "$work/long-$n.geojson" --store "$store" --port $port --log-level warning --write-token $token \
    2>"$work/serve.log" &
  server=$!
  wait_health $port || { cat "$work/serve.log" >&2; exit 1; }
  printf "%-10s %8s " "$label" "$n"
  python3 "$work/append_client.py" $port $token "$work/long-$n.end.json" "$appends" "$limit"
  kill "$server"; wait "$server" 2>/dev/null || true; server=""
}

echo "$(nproc) cores; SQLite file and PostgreSQL data under $work ($(df --output=fstype "$work" | tail -1), $(df --output=source "$work" | tail -1)), not tmpfs"
echo "$appends timed appends of 10 points each per run (after 20 untimed), one keep-alive connection; latency in ms"
pg_start "$work/pg" $pg_port
echo "PostgreSQL $(pg_psql postgres -c 'SHOW server_version') fsync=$(pg_psql postgres -c 'SHOW fsync') synchronous_commit=$(pg_psql postgres -c 'SHOW synchronous_commit'); SQLite WAL, synchronous=FULL"
printf "%-10s %8s %6s %10s %8s %8s %8s %8s %9s %9s %8s\n" store points count appends/s p50 p90 p99 max "p50 1st" "p50 last" "points"
for n in 100000 1000; do
  run memory memory $n
  rm -f "$work/routes.db" "$work/routes.db-wal" "$work/routes.db-shm"
  run sqlite "$work/routes.db" $n
  echo "           SQLite file after the run: $(du -ch "$work"/routes.db* | tail -1 | cut -f1)"
  pg_createdb routes_$n
  run postgres "$(pg_url routes_$n)" $n
  echo "           PostgreSQL database after the run: $(pg_psql routes_$n -c "SELECT pg_size_pretty(pg_database_size('routes_$n'))")"
  pg_psql postgres -c "DROP DATABASE routes_$n"
done
rm -f "$work/routes.db" "$work/routes.db-wal" "$work/routes.db-shm"
