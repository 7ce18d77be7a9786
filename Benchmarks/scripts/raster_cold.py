"""Asks a fresh server for every tile of a list once, with 2 clients (one keep-alive connection each), and prints
tiles per second and each zoom's p50 and p99 answer time.

Usage: raster_cold.py BASE LIST ENDING   (LIST: z/x/y.mvt lines; ENDING replaces .mvt: .mvt, .png, @2x.png)
"""
import http.client
import sys
import threading
import time
from urllib.parse import urlparse

base, listing, ending = sys.argv[1], sys.argv[2], sys.argv[3]
paths = ["/tiles/" + line.strip()[:-len(".mvt")] + ending for line in open(listing) if line.strip()]
url = urlparse(base)
times = {}
statuses = {}
lock = threading.Lock()


def client(part):
    connection = http.client.HTTPConnection(url.hostname, url.port, timeout=60)
    for path in part:
        started = time.perf_counter()
        connection.request("GET", path, headers={"Accept-Encoding": "gzip"})
        answer = connection.getresponse()
        answer.read()
        elapsed = time.perf_counter() - started
        zoom = int(path.split("/")[2])
        with lock:
            times.setdefault(zoom, []).append(elapsed)
            statuses[answer.status] = statuses.get(answer.status, 0) + 1
    connection.close()


started = time.perf_counter()
threads = [threading.Thread(target=client, args=(paths[k::2],)) for k in range(2)]
for t in threads:
    t.start()
for t in threads:
    t.join()
total = time.perf_counter() - started


def quantile(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


print(f"cold {ending}: {len(paths)} tiles in {total:.2f} s, {len(paths) / total:.0f} tiles/s, statuses {statuses}")
for zoom in sorted(times):
    ms = [t * 1000 for t in times[zoom]]
    print(f"  z{zoom}: {len(ms)} tiles, p50 {quantile(ms, 0.5):.2f} ms, p99 {quantile(ms, 0.99):.2f} ms")
