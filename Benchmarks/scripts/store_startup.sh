#!/usr/bin/env bash
# Start-up from a route store: the 1,000,068 generated points loaded with `routetiles load` into a SQLite file and
# into PostgreSQL (wall time, CPU, peak RSS, size; then the same load again, which finds every route unchanged),
# then the time from process start to the first 200 from /health, and the server's RSS at that moment
# (/proc/PID/status VmRSS), for
#   - `serve FILE` (routes read from the GeoJSON file),
#   - `serve --store routes.db` (SQLite),
#   - `serve --store postgres://…`,
# RUNS times each (3), alternating; the median is printed.
#
#   Benchmarks/scripts/store_startup.sh [BINARY] [workdir]
#
# Without BINARY, builds the release binary into .build-bench. Defaults: workdir /work/bench-store, on the disk: the
# GeoJSON file, the SQLite file and the PostgreSQL cluster (started and stopped here, as the postgres user, default
# settings: fsync on) live there. The files have just been written, so they are read from the page cache. POINTS
# (1000000) sets the size of the generated routes.
set -euo pipefail
cd "$(dirname "$0")/../.."
. Benchmarks/scripts/bench_setup.sh
store_bench "$@"
port=18530; pg_port=18531
points=${POINTS:-1000000}
runs=${RUNS:-3}
trap pg_stop EXIT

input="$work/routes-$points.geojson"
generated_routes "$points" "$input"
db="$work/routes.db"
rm -f "$db" "$db-wal" "$db-shm"
pg_start "$work/pg" $pg_port
pg_createdb routes
url=$(pg_url routes)
echo "input: $input ($(du -h "$input" | cut -f1), $points points); files and PostgreSQL under $work ($(df --output=fstype "$work" | tail -1)); $(nproc) cores"

echo "== routetiles load =="
load() { # label, store
  /usr/bin/time -f "%e %U %S %M" -o "$work/time" "$bin" load "$input" --store "$2" >"$work/load.out" 2>"$work/load.log" \
    || { cat "$work/load.log" >&2; exit 1; }
  read -r wall user sys rss < "$work/time"
  printf "%-22s %7.2f s wall %7.2f s CPU %6d MB peak RSS   %s\n" "$1" "$wall" "$(echo "$user + $sys" | bc)" $((rss / 1024)) "$(cat "$work/load.out")"
}
load "sqlite" "$db"
load "postgres" "$url"
load "sqlite, again" "$db"
load "postgres, again" "$url"
echo "sizes: SQLite $(du -ch "$db"* | tail -1 | cut -f1); PostgreSQL routes table $(pg_psql routes -c "SELECT pg_size_pretty(pg_total_relation_size('routes'))"), database $(pg_psql routes -c "SELECT pg_size_pretty(pg_database_size('routes'))")"

# Start → first 200 from /health, and VmRSS then; bounded (120 s).
cat > "$work/startup.py" <<'PY'
import http.client, subprocess, sys, time
port, log, args = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
t0 = time.perf_counter()
p = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=open(log, "w"))
try:
    while True:
        if p.poll() is not None: raise SystemExit(f"server exited with {p.returncode}; see {log}")
        if time.perf_counter() - t0 > 120: raise SystemExit("no 200 from /health within 120 s")
        try:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            c.request("GET", "/health"); r = c.getresponse(); r.read(); c.close()
            if r.status == 200: break
        except OSError:
            pass
        time.sleep(0.005)
    ready = time.perf_counter() - t0
    rss = next(int(l.split()[1]) for l in open(f"/proc/{p.pid}/status") if l.startswith("VmRSS:"))
    print(f"{ready:.3f} {rss // 1024}")
finally:
    p.terminate()
    try: p.wait(timeout=30)
    except subprocess.TimeoutExpired: p.kill(); p.wait()
PY

echo "== start-up: process start to the first 200 from /health (median of $runs, alternating) =="
rm -f "$work/startups"
for i in $(seq "$runs"); do
  for kind in file sqlite postgres; do
    case $kind in
      file) args=("$input") ;;
      sqlite) args=(--store "$db") ;;
      postgres) args=(--store "$url") ;;
    esac
    echo "$kind $(python3 "$work/startup.py" $port "$work/serve.log" "$bin" serve "${args[@]}" --port $port --log-level warning)" >> "$work/startups"
  done
done
python3 - "$work/startups" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    kind, s, rss = line.split()
    rows.setdefault(kind, []).append((float(s), int(rss)))
base = statistics.median(r[0] for r in rows["file"])
names = {"file": "serve FILE", "sqlite": "serve --store routes.db", "postgres": "serve --store postgres://"}
print(f"{'server':<26} {'start-up s':>10} {'runs':>20} {'/ file':>7} {'RSS MB':>7}")
for kind, r in rows.items():
    s = statistics.median(x[0] for x in r)
    print(f"{names[kind]:<26} {s:>10.2f} {' '.join(f'{x[0]:.2f}' for x in r):>20} {s / base:>7.2f} {statistics.median(x[1] for x in r):>7}")
PY
rm -f "$db" "$db-wal" "$db-shm"
