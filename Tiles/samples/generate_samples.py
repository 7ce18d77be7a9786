#!/usr/bin/env python3
"""Regenerates the bundled sample routes (deterministic). Run from this folder: python3 generate_samples.py"""
import csv
import json
import math
import os
import random
import sys

# The great circle of the benchmark routes' flights (Benchmarks/scripts/great_circle.py).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Benchmarks", "scripts"))
from great_circle import great_circle  # noqa: E402

rng = random.Random(2026)


def walk(lon, lat, n, step_m, turn=0.12):
    heading = rng.uniform(0, 2 * math.pi)
    pts = []
    for _ in range(n):
        pts.append([round(lon, 6), round(lat, 6)])
        heading += rng.gauss(0, turn)
        lat += math.sin(heading) * step_m / 111_320
        lon += math.cos(heading) * step_m / (111_320 * math.cos(math.radians(lat)))
    return pts


def feature(i, props, coords, kind="LineString"):
    return {"type": "Feature", "id": i, "properties": props, "geometry": {"type": kind, "coordinates": coords}}


# Morning runs in Paris: GPS tracks, a point every ~8 m.
colors = ["#e6194b", "#3cb44b", "#4363d8", "#f58231", "#911eb4"]
runs = [feature(i + 1, {"name": f"Morning run {i + 1}", "athlete": rng.choice(["ana", "ben", "chloé"]),
                        "color": colors[i], "moving_time_s": rng.randint(1500, 4000)},
                walk(2.35 + rng.uniform(-0.04, 0.04), 48.86 + rng.uniform(-0.02, 0.02), 1200, 8))
        for i in range(5)]
json.dump({"type": "FeatureCollection", "features": runs}, open("paris-runs.geojson", "w"), separators=(",", ":"))

# Flights on great circles, two of them across the antimeridian.
airports = {"LAX": (-118.408, 33.942), "JFK": (-73.779, 40.640), "NRT": (140.386, 35.765), "SYD": (151.177, -33.946),
            "LHR": (-0.454, 51.470), "SFO": (-122.375, 37.619), "AKL": (174.785, -37.008), "GRU": (-46.473, -23.432)}
pairs = [("LAX", "JFK"), ("NRT", "SFO"), ("SYD", "LAX"), ("LHR", "GRU"), ("AKL", "SFO"), ("JFK", "LHR")]
flights = [feature(f"{a}-{b}", {"from": a, "to": b, "name": f"{a} → {b}", "color": "#1f78b4"},
                   [[round(lon, 5), round(lat, 5)] for lon, lat in great_circle(airports[a], airports[b], 400)])
           for a, b in pairs]
json.dump({"type": "FeatureCollection", "features": flights}, open("flights.geojson", "w"), indent=None,
          separators=(",", ":"), ensure_ascii=False)

# Transit lines in Berlin: one LineString and one MultiLineString (a line with a branch).
lines = []
for i, (name, color) in enumerate([("U1", "#7dad4c"), ("U2", "#da421e"), ("U6", "#8c6dab")]):
    main = walk(13.40 + rng.uniform(-0.05, 0.05), 52.52 + rng.uniform(-0.03, 0.03), 300, 40, turn=0.05)
    if i == 2:
        branch = walk(main[150][0], main[150][1], 120, 40, turn=0.05)
        branch[0] = main[150]
        lines.append(feature(100 + i, {"name": name, "color": color, "mode": "subway", "branches": ["north", "south"]},
                             [main, branch], "MultiLineString"))
    else:
        lines.append(feature(100 + i, {"name": name, "color": color, "mode": "subway", "accessible": i == 0}, main))
# A station, to show that non-line features are counted and skipped.
lines.append(feature(200, {"name": "Alexanderplatz"}, [13.4125, 52.5219], "Point"))
json.dump({"type": "FeatureCollection", "features": lines}, open("berlin-transit.geojson", "w"),
          separators=(",", ":"), ensure_ascii=False)

# A bike ride recorded as CSV, one row per fix, two rides told apart by the route column.
with open("bike-rides.csv", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["route", "time", "lat", "lon", "ele"])
    for ride, (lon, lat) in [("ride-sat", (-122.45, 37.77)), ("ride-sun", (-122.27, 37.80))]:
        for k, (x, y) in enumerate(walk(lon, lat, 1500, 6)):
            w.writerow([ride, f"2026-05-0{1 if ride == 'ride-sat' else 2}T08:{k // 60 % 60:02d}:{k % 60:02d}Z", y, x,
                        round(20 + 10 * math.sin(k / 90), 1)])
print("wrote paris-runs.geojson flights.geojson berlin-transit.geojson bike-rides.csv")
