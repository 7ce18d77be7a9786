#!/usr/bin/env bash
# Far jumps (issue 34): what one fix costs against the number of tiles its segment is drawn in, and whether
# /health waits on it. One `routetiles serve` over a SQLite store with one route near Paris, at the README's
# defaults (zooms 0-14, access log off: --log-level warning), on a loopback port.
#
#   Benchmarks/scripts/far_jump.sh [BIN]        # BIN: the routetiles binary (default: the release build)
#
# 1. Distance sweep: from the route's end, a fix d degrees east and one back, for d from 0.0003° to 120°, three
#    times each; prints d, the tiles the answer says were invalidated, and the median answer time.
# 2. The issue's sequence ((-120,-60), (150,70), (-170,-80), (170,80), (0,0)) and 50 appends alternating between
#    (-170,-80) and (170,80), one at a time, while /health is polled every 20 ms: each answer's time, and the
#    slowest /health.
# Every request is bounded (curl --max-time 120) and the server is stopped at the end.
set -euo pipefail
cd "$(dirname "$0")/../.."
. Benchmarks/scripts/bench_setup.sh
bin=$(routetiles_binary "${1:-${ROUTETILES_BIN:-}}")
work=$(mktemp -d)
server=""
poller=""
cleanup() {
  [ -n "$poller" ] && kill "$poller" 2>/dev/null || true
  if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

cat > "$work/one.geojson" <<'JSON'
{"type":"Feature","id":"veh-1","properties":{"name":"van"},"geometry":{"type":"LineString","coordinates":[[2.35,48.85],[2.351,48.851],[2.352,48.853]]}}
JSON
token=far-jump-bench
port=$((20000 + RANDOM % 20000))
"$bin" serve "$work/one.geojson" --store "$work/j.db" --write-token "$token" --host 127.0.0.1 --port "$port" \
  --log-level warning 2> "$work/serve.log" &
server=$!
wait_health "$port"
url="http://127.0.0.1:$port"

# One append; prints "seconds invalidated_tiles".
append() { # lon lat
  curl -s --max-time 120 -o "$work/answer" -w '%{time_total}' -X POST -H "Authorization: Bearer $token" \
    --data "[[$1,$2]]" "$url/routes/veh-1/points" > "$work/time"
  printf '%s %s\n' "$(cat "$work/time")" "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("invalidated_tiles", "?"))' "$work/answer")"
}
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR + 1) / 2)]}'; }

echo "# $("$bin" --version), $(nproc) cores"
echo "# 1. distance sweep: degrees east and back, tiles invalidated (out), median seconds of 6 appends"
printf 'degrees\ttiles\tseconds\n'
lon=2.352 lat=48.853
for d in 0.0003 0.003 0.03 0.3 3 30 120; do
  times=() tiles=""
  for _ in 1 2 3; do
    out=$(python3 -c "print($lon + $d)")
    read -r t n < <(append "$out" "$lat"); times+=("$t"); tiles=$n
    read -r t _ < <(append "$lon" "$lat"); times+=("$t")
  done
  printf '%s\t%s\t%s\n' "$d" "$tiles" "$(printf '%s\n' "${times[@]}" | median)"
done

echo "# 2. the issue's sequence, then 50 alternating far appends; /health polled every 20 ms"
(
  for _ in $(seq 3000); do
    curl -s --max-time 10 -o /dev/null -w '%{time_total}\n' "$url/health" || echo 10
    sleep 0.02
  done
) > "$work/health" &
poller=$!
printf 'append\tto\tseconds\ttiles\n'
k=0
for fix in "-120 -60" "150 70" "-170 -80" "170 80" "0 0" $(for i in $(seq 50); do if [ $((i % 2)) -eq 1 ]; then echo "-170_-80"; else echo "170_80"; fi; done); do
  set -- ${fix/_/ }
  k=$((k + 1))
  read -r t n < <(append "$1" "$2")
  printf '%d\t(%s, %s)\t%s\t%s\n' "$k" "$1" "$2" "$t" "$n"
done
kill "$poller" 2>/dev/null || true; wait "$poller" 2>/dev/null || true; poller=""
echo "# /health while appending: $(wc -l < "$work/health") requests, median $(median < "$work/health") s, slowest $(sort -g "$work/health" | tail -1) s"
