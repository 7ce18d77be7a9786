"""Our raster tiles against MapLibre Native's rendering of our style.json at the same place.

For each tile z/x/y given, MapLibre Native (PyPI's pymgl, headless through Mesa's EGL) renders the server's style
(its background layer removed, its tiles named in the source itself) 256·scale pixels square, centred on the tile,
at zoom z − 1 and a pixel ratio of `scale`: the ground and the sizes of our tile. Our PNG of the same tile is read
from FOLDER/z-x-y@scale.png. A pixel is route ink where its alpha is above half. Reported per tile:
- ours_near: the share of our ink pixels with MapLibre ink within 2 px, and theirs_near the other way;
- the median colour of the ink pixels each draws with full opacity (the lines' cores).

Usage: compare_with_maplibre.py BASE FOLDER SCALE z/x/y [z/x/y …]   (prints one JSON object)
"""
import io
import json
import math
import os
import sys
import urllib.request

os.environ.setdefault("EGL_PLATFORM", "surfaceless")

import numpy  # noqa: E402
import pymgl  # noqa: E402
from PIL import Image  # noqa: E402

base, folder, scale = sys.argv[1], sys.argv[2], int(sys.argv[3])
tiles = [tuple(int(n) for n in t.split("/")) for t in sys.argv[4:]]


def fetch(path):
    with urllib.request.urlopen(base + path, timeout=30) as answer:
        return json.load(answer)


style = fetch("/style.json")
tilejson = fetch("/tiles.json")
style["layers"] = [layer for layer in style["layers"] if layer["type"] != "background"]
style["sources"]["routes"] = {"type": "vector", "tiles": tilejson["tiles"], "minzoom": tilejson["minzoom"],
                              "maxzoom": tilejson["maxzoom"]}
text = json.dumps(style)


def centre(z, x, y):
    n = 2 ** z
    lon = (x + 0.5) / n * 360 - 180
    lat = math.degrees(math.atan(math.sinh(math.pi * (1 - 2 * (y + 0.5) / n))))
    return lon, lat


def ink(image):
    return numpy.asarray(image.convert("RGBA"))[:, :, 3] > 127


def near(mask, other, radius=2):
    """The share of `mask`'s pixels with a pixel of `other` within `radius` (a square neighbourhood)."""
    if not mask.any():
        return 1.0
    grown = numpy.zeros_like(other)
    h, w = other.shape
    for dy in range(-radius, radius + 1):
        for dx in range(-radius, radius + 1):
            grown[max(0, dy):h + min(0, dy), max(0, dx):w + min(0, dx)] |= \
                other[max(0, -dy):h - max(0, dy), max(0, -dx):w - max(0, dx)]
    return float((mask & grown).sum()) / float(mask.sum())


def core_colour(image):
    pixels = numpy.asarray(image.convert("RGBA")).reshape(-1, 4)
    solid = pixels[pixels[:, 3] == 255][:, :3]
    return [int(v) for v in numpy.median(solid, axis=0)] if len(solid) else None


report = {}
size = 256 * scale
for z, x, y in tiles:
    lon, lat = centre(z, x, y)
    with pymgl.Map(text, size // scale, size // scale, scale, lon, lat, z - 1) as m:
        theirs = Image.open(io.BytesIO(m.renderPNG()))
    theirs.save(os.path.join(folder, f"{z}-{x}-{y}@{scale}-maplibre.png"))
    ours = Image.open(os.path.join(folder, f"{z}-{x}-{y}@{scale}.png"))
    a, b = ink(ours), ink(theirs)
    report[f"{z}/{x}/{y}"] = {
        "size": list(ours.size), "theirSize": list(theirs.size),
        "ours": int(a.sum()), "theirs": int(b.sum()),
        "ours_near": near(a, b), "theirs_near": near(b, a),
        "our_colour": core_colour(ours), "their_colour": core_colour(theirs),
    }
print(json.dumps(report))
