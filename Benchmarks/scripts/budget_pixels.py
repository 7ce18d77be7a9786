#!/usr/bin/env python3
"""What MapLibre Native draws from tiles within the byte budget against tiles as cut, at the same places.

Two servers serve the same routes, A with the budget (the default) and B without (--max-tile-bytes 0). For each
tile z/x/y given, MapLibre Native (PyPI's pymgl, headless through Mesa's EGL) renders each server's style.json (its
background removed, the heat layer left hidden as the style has it) 512 pixels square at pixel ratio 2, centred on
the tile at zoom z - 1: the tile's ground as a map shows it. A pixel is route ink where its alpha is above half.
Printed per tile, as one JSON object: recall (the share of B's ink with A's ink within 1 px) and precision (the
share of A's ink with B's within 1 px), and the ink of each.

Usage: budget_pixels.py BASE_A BASE_B z/x/y [z/x/y ...]
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


def style_of(base):
    with urllib.request.urlopen(base + "/style.json", timeout=60) as answer:
        style = json.load(answer)
    with urllib.request.urlopen(base + "/tiles.json", timeout=60) as answer:
        tilejson = json.load(answer)
    style["layers"] = [layer for layer in style["layers"] if layer["type"] not in ("background", "heatmap")]
    style["sources"]["routes"] = {"type": "vector", "tiles": tilejson["tiles"], "minzoom": tilejson["minzoom"],
                                  "maxzoom": tilejson["maxzoom"]}
    return json.dumps(style)


def centre(z, x, y):
    n = 2 ** z
    return (x + 0.5) / n * 360 - 180, math.degrees(math.atan(math.sinh(math.pi * (1 - 2 * (y + 0.5) / n))))


def ink(style, z, x, y):
    lon, lat = centre(z, x, y)
    with pymgl.Map(style, 256, 256, 2, lon, lat, max(z - 1, 0)) as m:
        image = Image.open(io.BytesIO(m.renderPNG()))
    return numpy.asarray(image.convert("RGBA"))[:, :, 3] > 127


def near(mask, other, radius=1):
    if not mask.any():
        return 1.0
    grown = numpy.zeros_like(other)
    h, w = other.shape
    for dy in range(-radius, radius + 1):
        for dx in range(-radius, radius + 1):
            grown[max(0, dy):h + min(0, dy), max(0, dx):w + min(0, dx)] |= \
                other[max(0, -dy):h - max(0, dy), max(0, -dx):w - max(0, dx)]
    return float((mask & grown).sum()) / float(mask.sum())


a, b = style_of(sys.argv[1]), style_of(sys.argv[2])
report = {}
for t in sys.argv[3:]:
    z, x, y = (int(n) for n in t.split("/"))
    bounded, cut = ink(a, z, x, y), ink(b, z, x, y)
    report[t] = {"recall": round(near(cut, bounded), 4), "precision": round(near(bounded, cut), 4),
                 "ink_bounded": int(bounded.sum()), "ink_cut": int(cut.sum())}
print(json.dumps(report))
