#!/usr/bin/env python3
"""Propagation from one replica of a PostgreSQL store to another, as a user of the second sees it.

    replica_propagation.py WRITER_URL REPLICA_URL TOKEN [--seconds S] [--interval MS]

Puts a short line route "propagation-probe" on the writer, follows the replica's `GET /events`, then for S seconds
(default 10) appends one fix to the probe route on the writer every MS milliseconds (default 20). For each append
answered 2xx it takes the `sequence` of the answer and the moment the answer arrived, and finds the first `change`
event of the replica whose sequence reaches it (events carry the store's sequence, the same on every replica):
the difference is that write's propagation. Prints one line: how many probes, how many were seen, p50, p99 and the
largest, in milliseconds. Run it beside a write load to measure propagation under that load.

Loopback only; every request has a timeout, the loop is bounded in time, and the script exits by itself.
"""
import argparse
import http.client
import json
import math
import sys
import threading
import time
import urllib.parse

PROBE = "propagation-probe"


def connection(url, timeout):
    u = urllib.parse.urlsplit(url)
    if u.hostname not in ("127.0.0.1", "localhost", "::1"):
        sys.exit(f"{url}: loopback addresses only")
    return http.client.HTTPConnection(u.hostname, u.port or 80, timeout=timeout)


def request(conn, method, path, token, body):
    conn.request(method, path, body=body, headers={"Authorization": f"Bearer {token}",
                                                   "Content-Type": "application/json"})
    response = conn.getresponse()
    return response.status, response.read()


def follow(replica, seen, ready, stop):
    """Reads the replica's events; records the arrival time of each sequence reached."""
    conn = connection(replica, timeout=2)
    conn.request("GET", "/events", headers={"Accept": "text/event-stream"})
    response = conn.getresponse()
    if response.status != 200:
        sys.exit(f"GET {replica}/events answered {response.status}")
    ready.set()
    event = None
    while not stop.is_set():
        try:
            line = response.fp.readline()
        except TimeoutError:
            continue  # heartbeats keep it going; the stop flag ends it
        if not line:
            return
        now = time.monotonic()
        line = line.decode().rstrip("\n")
        if line.startswith("event:"):
            event = line[6:].strip()
        elif line.startswith("data:") and event == "change":
            sequence = json.loads(line[5:])["sequence"]
            with seen["lock"]:
                seen["events"].append((sequence, now))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("writer")
    parser.add_argument("replica")
    parser.add_argument("token")
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--interval", type=float, default=20, help="milliseconds between probes")
    args = parser.parse_args()

    writer = connection(args.writer, timeout=10)
    line = {"type": "Feature", "properties": {"name": PROBE},
            "geometry": {"type": "LineString", "coordinates": [[2.30, 48.85], [2.3001, 48.8501]]}}
    status, body = request(writer, "PUT", f"/routes/{PROBE}", args.token, json.dumps(line))
    if status // 100 != 2:
        sys.exit(f"PUT /routes/{PROBE} answered {status}: {body[:200]!r}")

    seen = {"lock": threading.Lock(), "events": []}
    ready, stop = threading.Event(), threading.Event()
    follower = threading.Thread(target=follow, args=(args.replica, seen, ready, stop), daemon=True)
    follower.start()
    if not ready.wait(10):
        sys.exit("the replica's /events did not open")

    answered = []  # (sequence, monotonic time of the answer)
    failed = 0
    lon, lat = 2.3001, 48.8501
    end = time.monotonic() + args.seconds
    while time.monotonic() < end:
        started = time.monotonic()
        lon += 0.0002
        lat += 0.0001 * math.sin(started)
        status, body = request(writer, "POST", f"/routes/{PROBE}/points", args.token,
                               json.dumps([[round(lon, 7), round(lat, 7)]]))
        if status // 100 == 2:
            answered.append((json.loads(body)["sequence"], time.monotonic()))
        else:
            failed += 1
        time.sleep(max(0.0, args.interval / 1000 - (time.monotonic() - started)))
    time.sleep(2)  # the last probes' events
    stop.set()

    with seen["lock"]:
        events = sorted(seen["events"], key=lambda e: e[1])
    delays = []
    for sequence, at in answered:
        arrival = next((t for s, t in events if s >= sequence), None)
        if arrival is not None:
            delays.append(max(0.0, arrival - at) * 1000)
    delays.sort()

    def pick(q):
        return delays[min(len(delays) - 1, int(q * len(delays)))] if delays else float("nan")
    print(f"propagation to the replica: {len(answered)} probes answered 2xx ({failed} not), {len(delays)} seen; "
          f"p50 {pick(0.5):.1f} ms p99 {pick(0.99):.1f} ms max {delays[-1] if delays else float('nan'):.1f} ms")
    request(writer, "DELETE", f"/routes/{PROBE}", args.token, None)


if __name__ == "__main__":
    main()
