#!/usr/bin/env python3
"""Writes deterministic benchmark routes as a GeoJSON FeatureCollection.

GPS-like tracks (a point every ~10 m with a wandering heading, around a few cities) and long arcs (great circles
between airports, a point every ~2 km), until the requested number of points. The same seed gives the same file.

    python3 generate_routes.py --points 1000000 --out /tmp/routes-1m.geojson

With --times, every route gets a time per position (`properties.coordTimes`, ISO 8601 UTC to the millisecond), as
recorded tracks have: a walk, a ride or a drive (1.4, 4.5 or 12 m/s, give or take a fifth, so fixes 0.7-9 s apart
with jitter), stops of half a minute to five minutes now and then, and gaps of 10-60 minutes (a tunnel, a phone
asleep); flights at 250 m/s. Tracks start at random times within one day.
"""
import argparse
import json
import math
import random
import time

from great_circle import great_circle

CITIES = [(-73.98, 40.75), (2.35, 48.86), (139.69, 35.69), (-122.42, 37.77), (13.40, 52.52), (151.21, -33.87),
          (-43.20, -22.91), (77.21, 28.61), (-0.13, 51.51), (37.62, 55.75)]


def track(rng, n):
    lon, lat = rng.choice(CITIES)
    lon += rng.uniform(-0.3, 0.3)
    lat += rng.uniform(-0.3, 0.3)
    heading = rng.uniform(0, 2 * math.pi)
    step = 0.0001  # about 10 m
    points = []
    for _ in range(n):
        points.append([round(lon, 7), round(lat, 7)])
        heading += rng.gauss(0, 0.15)
        lon += math.cos(heading) * step / math.cos(math.radians(lat))
        lat += math.sin(heading) * step
    return points


def arc(rng, n):
    # Longitudes that jump over ±180° are fine: the reader unwraps them.
    return [[round(lon, 7), round(lat, 7)] for lon, lat in great_circle(*rng.sample(CITIES, 2), n)]


def times_of(rng, coords, kind):
    """Times of the positions, in milliseconds since 1970, for a route of `kind` through `coords`."""
    speed = 250.0 if kind == "flight" else rng.choice([1.4, 4.5, 12.0])
    t = 1_795_737_600_000 + rng.randrange(0, 86_400_000)
    out = [t]
    for (lon0, lat0), (lon1, lat1) in zip(coords, coords[1:]):
        dx = (lon1 - lon0) * 111_320 * math.cos(math.radians(lat0))
        dy = (lat1 - lat0) * 111_320
        seconds = math.hypot(dx, dy) / (speed * rng.uniform(0.8, 1.2))
        roll = rng.random()
        if kind != "flight" and roll < 0.002:
            seconds += rng.uniform(600, 3600)
        elif kind != "flight" and roll < 0.01:
            seconds += rng.uniform(30, 300)
        t += max(1, round(seconds * 1000))
        out.append(t)
    return out


def iso(ms):
    seconds, millis = divmod(ms, 1000)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds)) + f".{millis:03d}Z"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--points", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", required=True)
    parser.add_argument("--times", action="store_true", help="a time per position (properties.coordTimes)")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    features = []
    total = 0
    i = 0
    while total < args.points:
        if i % 5 == 4:
            n = rng.randint(2000, 5000)
            coords = arc(rng, n)
            kind = "flight"
        else:
            n = rng.randint(5000, 40000)
            coords = track(rng, n)
            kind = "track"
        properties = {"name": f"{kind} {i}", "kind": kind, "points": len(coords)}
        if args.times:
            properties["coordTimes"] = [iso(ms) for ms in times_of(rng, coords, kind)]
        features.append({"type": "Feature", "id": i, "properties": properties,
                         "geometry": {"type": "LineString", "coordinates": coords}})
        total += len(coords)
        i += 1
    with open(args.out, "w") as f:
        json.dump({"type": "FeatureCollection", "features": features}, f, separators=(",", ":"))
    print(f"{len(features)} routes, {total} points -> {args.out}")


if __name__ == "__main__":
    main()
