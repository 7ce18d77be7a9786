#!/usr/bin/env python3
"""Staleness through a cache, for cache_staleness.sh: ROUTES routes "bench-K" are put first (two positions each,
in Paris), then WRITES appends of one position, one after the other, each to a random one of them. Before each
write, the z14 tile that will hold the new position is fetched through the cache twice (so the cache holds its old
bytes); after the write's 2xx, that tile is asked of the cache again and again until its ETag changes. Prints the
time from the 2xx to the first answer with the new tile (p50/p90/p99/max in ms), and the writes whose tile did not
change within TIMEOUT s. Loopback only; one persistent connection to the origin and one to the cache.

  cache_staleness.py ORIGIN_PORT CACHE_PORT TOKEN WRITES [ROUTES]
"""
import http.client
import json
import math
import random
import statistics
import sys
import time

origin_port, cache_port, token, writes = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
routes = int(sys.argv[5]) if len(sys.argv) > 5 else 50
TIMEOUT = 2.0


def tile(lon, lat, z=14):
    n = 2 ** z
    x = int((lon + 180) / 360 * n)
    lat_r = math.radians(lat)
    y = int((1 - math.log(math.tan(lat_r) + 1 / math.cos(lat_r)) / math.pi) / 2 * n)
    return z, x, y


origin = http.client.HTTPConnection("127.0.0.1", origin_port)
cache = http.client.HTTPConnection("127.0.0.1", cache_port)


def get(conn, path):
    conn.request("GET", path, headers={"Accept-Encoding": "gzip"})
    r = conn.getresponse()
    r.read()
    return r.status, (r.getheader("ETag") or "").replace("W/", "")


rng = random.Random(7)
ends = {}
for k in range(routes):
    lon, lat = 2.25 + rng.random() * 0.2, 48.80 + rng.random() * 0.12
    ends[k] = (lon, lat)
for k, (lon, lat) in ends.items():
    feature = {"type": "Feature", "properties": {"name": "bench-%d" % k},
               "geometry": {"type": "LineString", "coordinates": [[lon - 0.0003, lat - 0.0002], [lon, lat]]}}
    origin.request("PUT", "/routes/bench-%d" % k, body=json.dumps(feature),
                   headers={"Authorization": "Bearer " + token, "Content-Type": "application/geo+json"})
    r = origin.getresponse()
    r.read()
    if r.status not in (200, 201):
        sys.exit("PUT /routes/bench-%d: HTTP %d" % (k, r.status))
times, missed = [], 0
for i in range(writes):
    k = rng.randrange(routes)
    lon, lat = ends[k]
    lon, lat = lon + rng.uniform(-0.0004, 0.0004), lat + rng.uniform(-0.0003, 0.0003)
    path = "/tiles/%d/%d/%d.mvt" % tile(lon, lat)
    get(cache, path)  # cached, with the old bytes
    _, old = get(cache, path)
    body = json.dumps([[lon, lat]])
    origin.request("POST", "/routes/bench-%d/points" % k, body=body,
                   headers={"Authorization": "Bearer " + token, "Content-Type": "application/json"})
    r = origin.getresponse()
    r.read()
    acknowledged = time.perf_counter()
    if r.status != 200:
        print("write %d: HTTP %d" % (i, r.status), file=sys.stderr)
        continue
    ends[k] = (lon, lat)
    while True:
        status, tag = get(cache, path)
        now = time.perf_counter()
        if tag != old:
            times.append((now - acknowledged) * 1000)
            break
        if now - acknowledged > TIMEOUT:
            missed += 1
            break

times.sort()
q = lambda p: times[min(len(times) - 1, int(p * len(times)))] if times else float("nan")
print("staleness_ms writes=%d fresh=%d missed=%d p50=%.2f p90=%.2f p99=%.2f max=%.2f mean=%.2f" % (
    writes, len(times), missed, q(0.5), q(0.9), q(0.99), times[-1] if times else float("nan"),
    statistics.mean(times) if times else float("nan")))
