#!/usr/bin/env bash
# Read throughput per input format: `routetiles check` (read and validate, no tiling) over generated files of
# about the same number of points in each format; prints MB/s and points/s from the best of 3 runs, and the peak
# RSS of reading a ~1 GB NDJSON file (streamed), which is deleted afterwards.
#
#   Benchmarks/scripts/read_throughput.sh [points] [workdir]
#
# Defaults: 2,000,000 points per format, /tmp/routetiles-read-bench. Needs GNU time. ROUTETILES_BIN=path uses that
# binary; otherwise the release binary is built into .build-bench.
set -euo pipefail
cd "$(dirname "$0")/../.."
. Benchmarks/scripts/bench_setup.sh
points=${1:-2000000}
work=${2:-/tmp/routetiles-read-bench}
mkdir -p "$work"
bin=$(routetiles_binary "${ROUTETILES_BIN:-}")
python3 - "$points" "$work" <<'PY'
import json, math, random, sys
points, work = int(sys.argv[1]), sys.argv[2]
rng = random.Random(11)
per_route = 2000
routes = points // per_route

def walk(n):
    lon, lat, h = rng.uniform(-170, 170), rng.uniform(-60, 60), rng.uniform(0, 6.28)
    out = []
    for _ in range(n):
        out.append((round(lon, 6), round(lat, 6)))
        h += rng.gauss(0, 0.1)
        lat += math.sin(h) * 1e-4
        lon += math.cos(h) * 1e-4
    return out

def encode(pts, precision):
    s, out, plat, plon = 10 ** precision, [], 0, 0
    for lon, lat in pts:
        a, b = round(lat * s), round(lon * s)
        for d in (a - plat, b - plon):
            v = ~(d << 1) if d < 0 else d << 1
            while v >= 0x20:
                out.append(chr((0x20 | (v & 0x1F)) + 63)); v >>= 5
            out.append(chr(v + 63))
        plat, plon = a, b
    return ''.join(out)

lines = [walk(per_route) for _ in range(routes)]
with open(f'{work}/bench.polyline', 'w') as f:
    for i, l in enumerate(lines):
        f.write(f'{i}\t{encode(l, 5)}\n')
with open(f'{work}/bench.gpx', 'w') as f:
    f.write('<?xml version="1.0" encoding="UTF-8"?>\n<gpx version="1.1" creator="bench">\n')
    for i, l in enumerate(lines):
        f.write(f' <trk><name>t{i}</name><trkseg>\n')
        f.writelines(f'  <trkpt lat="{lat}" lon="{lon}"><time>2026-01-01T00:00:00Z</time></trkpt>\n' for lon, lat in l)
        f.write(' </trkseg></trk>\n')
    f.write('</gpx>\n')
with open(f'{work}/bench.ndjson', 'w') as f:
    for i, l in enumerate(lines):
        f.write(json.dumps({'type': 'Feature', 'id': i, 'properties': {'n': i},
                            'geometry': {'type': 'LineString', 'coordinates': l}}, separators=(',', ':')) + '\n')
osrm = {'code': 'Ok', 'routes': [{'geometry': encode(l, 6), 'distance': 1.0, 'duration': 1.0,
        'legs': [{'summary': '', 'steps': [{'geometry': encode(l[k:k + 101], 6), 'name': 's', 'distance': 1,
                  'duration': 1, 'maneuver': {'location': list(l[k]), 'bearing_after': 90, 'type': 'turn',
                  'modifier': 'left'}} for k in range(0, per_route - 1, 100)]}]} for l in lines],
        'waypoints': [{'location': list(lines[0][0])}]}
with open(f'{work}/bench-osrm.json', 'w') as f:
    json.dump(osrm, f)
PY
printf "%-18s %10s %10s %12s %14s %10s\n" format "MB" "seconds" "MB/s" "points/s" "peak RSS"
for file in bench.polyline bench-osrm.json bench.gpx bench.ndjson; do
  best=""
  for _ in 1 2 3; do
    /usr/bin/time -f "%e %M" -o "$work/time" "$bin" check "$work/$file" > "$work/out" || { cat "$work/out"; exit 1; }
    read -r seconds rss < "$work/time"
    if [ -z "$best" ] || awk "BEGIN{exit !($seconds < $best)}"; then best=$seconds; bestrss=$rss; fi
  done
  mb=$(awk "BEGIN{printf \"%.1f\", $(stat -c %s "$work/$file") / 1e6}")
  pts=$(grep -o '[0-9]* points' "$work/out" | cut -d' ' -f1)
  printf "%-18s %10s %10s %12s %14s %8s MB\n" "$file" "$mb" "$best" \
    "$(awk "BEGIN{printf \"%.1f\", $mb / $best}")" "$(awk "BEGIN{printf \"%.0f\", $pts / $best}")" "$((bestrss / 1024))"
done

# About 1 GB of NDJSON: the bench file repeated. Streamed, so peak RSS stays at the routes read, not the file.
big="$work/big.ndjson"
: > "$big"
while [ "$(stat -c %s "$big")" -lt 1000000000 ]; do cat "$work/bench.ndjson" >> "$big"; done
/usr/bin/time -f "%e %M" -o "$work/time" "$bin" check "$big" > "$work/out"
read -r seconds rss < "$work/time"
echo "1 GB NDJSON: $(awk "BEGIN{printf \"%.2f\", $(stat -c %s "$big") / 1e9}") GB in ${seconds} s, peak RSS $((rss / 1024)) MB; $(cat "$work/out")"
rm -f "$big"
