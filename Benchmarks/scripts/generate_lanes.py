#!/usr/bin/env python3
"""Writes deterministic vessel tracks along shared shipping lanes, as a GeoJSON FeatureCollection.

The shape of a day of AIS positions on the US coasts, the data on which tiles grew with the points: most vessels
sail between neighbouring ports along lanes that many share (each vessel a few hundred metres to the side of the
lane's axis, which bends through a few waypoints), a fix every ~300 m with ~20 m of noise; the rest (fishing,
harbour craft) wander near a port on tracks of their own. Where the lanes run, many tracks fall on the same pixels
at the zooms a map opens at; the wanderers do not. The same seed gives the same file.

    python3 generate_lanes.py --points 3000000 --out /tmp/lanes-3m.geojson
"""
import argparse
import json
import math
import random

PORTS = [(-122.42, 37.80), (-118.26, 33.73), (-117.17, 32.71), (-122.33, 47.60), (-123.10, 46.20), (-124.20, 43.37),
         (-121.89, 36.60), (-120.64, 34.95), (-119.23, 34.15), (-124.10, 40.80), (-97.40, 27.80), (-95.27, 29.31),
         (-94.10, 29.70), (-90.07, 29.95), (-88.04, 30.69), (-85.67, 30.15), (-82.46, 27.95), (-81.80, 24.55),
         (-80.13, 25.77), (-80.05, 26.70), (-81.40, 30.33), (-81.10, 32.08), (-79.93, 32.78), (-77.95, 34.20),
         (-76.30, 36.85), (-76.60, 39.27), (-75.14, 39.95), (-74.02, 40.65), (-71.40, 41.49), (-70.93, 42.35),
         (-70.25, 43.66), (-68.20, 44.39)]


NAMES = ["OCEAN", "PACIFIC", "ATLANTIC", "GULF", "STAR", "SPIRIT", "QUEEN", "TRADER", "MARINER", "HARVEST"]


def neighbours(index, count):
    """The `count` ports nearest to port `index`."""
    x0, y0 = PORTS[index]
    order = sorted(range(len(PORTS)), key=lambda j: (PORTS[j][0] - x0) ** 2 + (PORTS[j][1] - y0) ** 2)
    return [j for j in order if j != index][:count]


def lane(rng_lane, a, b):
    """The axis of the lane from port a to port b: the ports and three waypoints bent off the straight line."""
    (x0, y0), (x1, y1) = PORTS[a], PORTS[b]
    length = math.hypot(x1 - x0, y1 - y0)
    nx, ny = -(y1 - y0) / (length or 1), (x1 - x0) / (length or 1)
    points = [(x0, y0)]
    for t in (0.25, 0.5, 0.75):
        bend = rng_lane.uniform(-0.12, 0.12) * length
        points.append((x0 + (x1 - x0) * t + nx * bend, y0 + (y1 - y0) * t + ny * bend))
    points.append((x1, y1))
    return points


def sail(rng, axis, offset, step=0.003, noise=0.0002):
    """A vessel's fixes along `axis`, `offset` degrees to its side (drifting slowly), one every ~`step` degrees."""
    fixes = []
    for (x0, y0), (x1, y1) in zip(axis, axis[1:]):
        length = math.hypot(x1 - x0, y1 - y0)
        nx, ny = -(y1 - y0) / (length or 1), (x1 - x0) / (length or 1)
        steps = max(1, int(length / step))
        for k in range(steps):
            t = k / steps
            offset += rng.gauss(0, 0.00005)
            fixes.append([round(x0 + (x1 - x0) * t + nx * offset + rng.gauss(0, noise), 7),
                          round(y0 + (y1 - y0) * t + ny * offset + rng.gauss(0, noise), 7)])
    return fixes


def wander(rng, n):
    """A track of its own near a port: fishing or harbour craft."""
    lon, lat = rng.choice(PORTS)
    lon += rng.uniform(-0.5, 0.5)
    lat += rng.uniform(-0.5, 0.5)
    heading = rng.uniform(0, 2 * math.pi)
    points = []
    for _ in range(n):
        points.append([round(lon, 7), round(lat, 7)])
        heading += rng.gauss(0, 0.3)
        lon += math.cos(heading) * 0.002
        lat += math.sin(heading) * 0.002
    return points


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--points", type=int, required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--wanderers", type=float, default=0.3, help="share of the tracks that are their own")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    lanes = {}
    written = 0
    with open(args.out, "w") as out:
        out.write('{"type":"FeatureCollection","features":[\n')
        index = 0
        while written < args.points:
            if rng.random() < args.wanderers:
                coords = wander(rng, rng.randint(30, 800))
                kind = "wanderer"
            else:
                a = rng.randrange(len(PORTS))
                b = rng.choice(neighbours(a, 3))
                key = (min(a, b), max(a, b))
                if key not in lanes:
                    lanes[key] = lane(random.Random(hash(key) ^ args.seed), *key)
                axis = lanes[key] if key == (a, b) else list(reversed(lanes[key]))
                coords = sail(rng, axis, rng.gauss(0, 0.004))
                # A day's stretch of the voyage.
                first = rng.randrange(len(coords))
                coords = coords[first:first + rng.randint(30, 1200)]
                kind = "vessel"
            if len(coords) < 2:
                continue
            coords = coords[: args.points - written] if args.points - written >= 2 else coords[:2]
            feature = {"type": "Feature", "id": index, "properties": {"kind": kind, "mmsi": 366000000 + index,
                                                         "name": "%s %05d" % (rng.choice(NAMES), index)},
                       "geometry": {"type": "LineString", "coordinates": coords}}
            out.write(("," if index else "") + json.dumps(feature, separators=(",", ":")) + "\n")
            written += len(coords)
            index += 1
        out.write("]}\n")


if __name__ == "__main__":
    main()
