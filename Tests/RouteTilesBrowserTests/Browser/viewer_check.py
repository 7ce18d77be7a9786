"""Loads the RouteTiles viewer in headless Chromium and reports, as JSON on stdout, what the map rendered.

Usage: viewer_check.py URL SCREENSHOT.png
Checks made by the caller: route pixels drawn, rendered route features, no map error (and, from the server's
metrics, no failed tile request: MapLibre fetches tiles in a web worker, out of the page's resource timing).
"""
import json
import sys

from PIL import Image

import chromium

url, screenshot = sys.argv[1], sys.argv[2]
result = chromium.render(url, screenshot, """
    const m = window.map;
    const lines = m.queryRenderedFeatures({layers: ['routes-line']});
    return {
        ready: m.loaded() && m.areTilesLoaded(),
        zoom: m.getZoom(),
        renderedRouteFeatures: lines.length,
        mapErrors: window.tileErrors || [],
    };
""")
# Count the pixels the routes inked: clearly darker than the page's background (#f8fafc), away from the zoom buttons
# in the top-right corner.
image = Image.open(screenshot).convert("L")
width, height = image.size
pixels = image.load()
ink = 0
for y in range(height):
    for x in range(width - 60 if y < 110 else width):
        if pixels[x, y] < 170:
            ink += 1
result["inkPixels"] = ink
result["totalPixels"] = width * height
print(json.dumps(result))
