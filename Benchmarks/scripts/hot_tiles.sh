# The set-up the cached-tile benchmarks share; sourced, not run, from the repository root, after `points` and
# `work` are set:
#
#   . Benchmarks/scripts/hot_tiles.sh
#
# It makes the routes ($input, generate_routes.py), finds the binary ($bin: ROUTETILES_BIN, else the release build in
# .build-bench), builds the pyramid ($pyramid, z0–14) once, and writes the hot set: 1,000 z14 tiles of the pyramid
# in a fixed order ($work/hot.txt) and the wrk script that cycles through them with Accept-Encoding: gzip
# ($work/hot.lua, which reads HOT_LIST). Needs nginx and wrk (Debian).
. Benchmarks/scripts/bench_setup.sh
mkdir -p "$work"
input="$work/routes-$points.geojson"
generated_routes "$points" "$input"
command -v nginx >/dev/null && command -v wrk >/dev/null || { echo "needs nginx and wrk: apt-get install nginx wrk" >&2; exit 1; }
bin=$(routetiles_binary "${ROUTETILES_BIN:-}")
pyramid="$work/serve-pyramid"
[ -d "$pyramid" ] || $bin build "$input" -o "$pyramid" --quiet --maxzoom 14
(cd "$pyramid" && find 14 -name '*.mvt' | sort | awk 'NR <= 1000') > "$work/hot.txt"
cat > "$work/hot.lua" <<'LUA'
local paths = {}
for line in io.lines(os.getenv("HOT_LIST")) do paths[#paths + 1] = "/tiles/" .. line end
local i = 0
request = function()
  i = i % #paths + 1
  return wrk.format("GET", paths[i], {["Accept-Encoding"] = "gzip"})
end
LUA
export HOT_LIST="$work/hot.txt"

# Helpers of the scripts that serve the hot set (HOT_LIST, which a script may point at another list, and $seconds):
# wait_for URL (up to a minute), warm BASE_URL (every hot tile fetched once), rps BASE_URL (wrk's requests/s).
wait_for() { for _ in $(seq 600); do curl -sf -o /dev/null "$1" && return 0; sleep 0.1; done; echo "no answer from $1" >&2; exit 1; }
warm() { while read -r p; do curl -s -o /dev/null -H 'Accept-Encoding: gzip' "$1/tiles/$p"; done < "$HOT_LIST"; }
rps() { wrk -t2 -c64 -d"${seconds}s" -s "$work/hot.lua" "$1" | awk '/Requests\/sec/ {print $2}'; }

nginx_conf() { # NAME ACCESS_LOG_DIRECTIVE: nginx serving the pyramid's tiles as static files, config in $work/NAME.conf
  cat > "$work/$1.conf" <<CONF
worker_processes 2;
pid $work/$1.pid;
error_log $work/$1-error.log;
events { worker_connections 1024; }
http {
  $2
  sendfile on;
  tcp_nopush on;
  open_file_cache max=10000 inactive=60s;
  server {
    listen 127.0.0.1:$nginx_port;
    location /tiles/ {
      alias $pyramid/;
      types { }
      default_type application/vnd.mapbox-vector-tile;
      add_header Content-Encoding gzip;
      add_header Vary Accept-Encoding;
      add_header Cache-Control "public, max-age=60";
    }
  }
}
CONF
}
