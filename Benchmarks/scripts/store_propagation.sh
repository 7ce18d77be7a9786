#!/usr/bin/env bash
# How soon a write to one replica shows in another's tiles: two `routetiles serve --store postgres://…` on different
# loopback ports over one database (A takes the writes, B follows the change feed, woken by NOTIFY). WRITES times
# (1000), one at a time: PUT /routes/probe on A with a new geometry (the middle vertex moves) inside one fixed z14
# tile; the clock starts when A's answer arrives; then B's tile is asked for on one keep-alive connection, with
# If-None-Match and B's previous ETag, as fast as the answers come, until B answers 200 with a new ETag. That delay
# is the propagation time; a write still unseen after 5 s counts as a failure (and the run goes on once B has caught
# up). Prints p50/p90/p99/max of the delay, the failures, A's write latency, and how often B's new tile differed
# from A's (ETags compared after the clock stops).
#
#   Benchmarks/scripts/store_propagation.sh [BINARY] [workdir]
#
# Without BINARY, builds the release binary into .build-bench. Defaults: workdir /work/bench-store (the PostgreSQL
# cluster, started and stopped here as the postgres user with default settings, fsync on, lives there: on the
# disk). SECONDS_LIMIT (600) ends the run early. The client, both servers and PostgreSQL share the machine's cores.
set -euo pipefail
cd "$(dirname "$0")/../.."
. Benchmarks/scripts/bench_setup.sh
store_bench "$@"
port_a=18520; port_b=18521; pg_port=18522; token=bench-token-1
writes=${WRITES:-1000}
limit=${SECONDS_LIMIT:-600}
servers=()
cleanup() { for p in "${servers[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done; pg_stop; }
trap cleanup EXIT

pg_start "$work/pg" $pg_port
pg_createdb routes
url=$(pg_url routes)
echo "$(nproc) cores; PostgreSQL $(pg_psql postgres -c 'SHOW server_version') under $work ($(df --output=fstype "$work" | tail -1)), fsync=$(pg_psql postgres -c 'SHOW fsync'); $writes writes"
"$bin" serve --store "$url" --port $port_a --log-level warning --write-token $token 2>"$work/serve-a.log" &
servers+=($!)
wait_health $port_a || { cat "$work/serve-a.log" >&2; exit 1; }
"$bin" serve --store "$url" --port $port_b --log-level warning 2>"$work/serve-b.log" &
servers+=($!)
wait_health $port_b || { cat "$work/serve-b.log" >&2; exit 1; }

python3 - $port_a $port_b $token "$writes" "$limit" <<'PY'
import http.client, json, math, sys, time
port_a, port_b, token, writes, limit = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), float(sys.argv[5])
give_up = 5.0
z, lon0, lat0 = 14, 2.3522, 48.8566                       # the z14 tile of central Paris
x = int((lon0 + 180) / 360 * 2 ** z)
y = int((1 - math.asinh(math.tan(math.radians(lat0))) / math.pi) / 2 * 2 ** z)
lon = lambda x: x / 2 ** z * 360 - 180
lat = lambda y: math.degrees(math.atan(math.sinh(math.pi * (1 - 2 * y / 2 ** z))))
w, e, n, s = lon(x), lon(x + 1), lat(y), lat(y + 1)
cx, cy, dx, dy = (w + e) / 2, (n + s) / 2, (e - w) * 0.2, (n - s) * 0.2
tile = f"/tiles/{z}/{x}/{y}.mvt"

def feature(i):  # a 3-point line inside the tile; the middle vertex moves ~17 tile units per write
    off = ((i % 97) / 97 - 0.5) * dy
    return json.dumps({"type": "Feature", "id": "probe", "properties": {"name": "probe"},
                       "geometry": {"type": "LineString", "coordinates": [[cx - dx, cy], [cx, cy + off], [cx + dx, cy]]}}).encode()

a = http.client.HTTPConnection("127.0.0.1", port_a, timeout=10)
b = http.client.HTTPConnection("127.0.0.1", port_b, timeout=10)
write_headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/geo+json"}

def call(conn, method, path, body=None, headers={}):
    conn.request(method, path, body=body, headers=headers)
    r = conn.getresponse()
    return r.status, r.getheader("ETag"), r.read()

def applied_b():
    return json.loads(call(b, "GET", "/health")[2])["store"]["applied_sequence"]

def wait_b(sequence):  # until B has applied `sequence` (bounded), then B's ETag of the tile
    deadline = time.perf_counter() + 30
    while applied_b() < sequence:
        if time.perf_counter() > deadline: raise SystemExit(f"B did not apply sequence {sequence} within 30 s")
        time.sleep(0.01)
    status, etag, _ = call(b, "GET", tile)
    assert status == 200 and etag, (status, etag)
    return etag

status, _, body = call(a, "POST", "/routes", feature(0), write_headers)
assert status == 201, (status, body)
etag = wait_b(json.loads(body)["sequence"])

delays, write_ms, polls, failures, mismatches = [], [], 0, 0, 0
started = time.perf_counter()
for i in range(1, writes + 1):
    if time.perf_counter() - started > limit:
        print(f"stopped at the {limit:.0f} s limit after {i - 1} writes"); break
    t = time.perf_counter()
    status, _, body = call(a, "PUT", "/routes/probe", feature(i), write_headers)
    t0 = time.perf_counter()
    if status != 200: raise SystemExit(f"PUT answered {status}: {body[:200]!r}")
    write_ms.append((t0 - t) * 1000)
    while True:
        status, new, _ = call(b, "GET", tile, headers={"If-None-Match": etag})
        polls += 1
        if status == 200 and new != etag:
            delays.append((time.perf_counter() - t0) * 1000); etag = new
            mismatches += call(a, "GET", tile)[1] != new     # after the clock: B's tile is A's tile
            break
        if status not in (200, 304): raise SystemExit(f"B answered {status} for {tile}")
        if time.perf_counter() - t0 > give_up:
            failures += 1; etag = wait_b(json.loads(body)["sequence"]); break
elapsed = time.perf_counter() - started

def q(v, p): return v[min(len(v) - 1, int(p * len(v)))]
delays.sort(); write_ms.sort()
print(f"tile {tile}; {len(write_ms)} writes in {elapsed:.1f} s, {polls} polls of B ({polls / max(1, len(write_ms)):.1f} a write)")
print(f"{'':<34} {'p50':>8} {'p90':>8} {'p99':>8} {'max':>8}")
print(f"{'A answers the PUT (ms)':<34} {q(write_ms, .5):>8.2f} {q(write_ms, .9):>8.2f} {q(write_ms, .99):>8.2f} {write_ms[-1]:>8.2f}")
if delays:
    print(f"{'B serves the new tile after (ms)':<34} {q(delays, .5):>8.2f} {q(delays, .9):>8.2f} {q(delays, .99):>8.2f} {delays[-1]:>8.2f}")
print(f"failures (not seen within {give_up:.0f} s): {failures}; under 100 ms: {sum(d < 100 for d in delays)} of {len(write_ms)}; "
      f"B's new tile differed from A's (ETag): {mismatches}")
print("B /health store:", json.dumps(json.loads(call(b, "GET", "/health")[2])["store"]))
PY
