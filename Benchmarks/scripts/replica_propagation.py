#!/usr/bin/env python3
"""Propagation from one replica of a PostgreSQL store to another, as the second one's clients see it.

    replica_propagation.py WRITER_URL REPLICA_URL [--seconds S]

Follows `GET /events` of both servers for S seconds (default 10) while something else writes to the writer (the
fleet benchmark's wrk phase). Every `change` event carries the store sequence the server reached, the same on every
replica. The writer applies its own writes when they commit, before it answers them, so its event for sequence s
marks when the writes up to s were answered; the first event of the replica whose sequence reaches s marks when the
replica's clients could see them. The difference, for every event of the writer, is the propagation. Prints one
line: how many of the writer's events, how many the replica reached, p50, p99 and the largest, in milliseconds.

Loopback only; reads are bounded by timeouts and the run by S; the script exits by itself.
"""
import argparse
import http.client
import json
import sys
import threading
import time
import urllib.parse


def follow(url, events, ready, stop):
    """Reads a server's events until `stop`; records (sequence, arrival time) of each change."""
    u = urllib.parse.urlsplit(url)
    if u.hostname not in ("127.0.0.1", "localhost", "::1"):
        sys.exit(f"{url}: loopback addresses only")
    conn = http.client.HTTPConnection(u.hostname, u.port or 80, timeout=1)
    conn.request("GET", "/events", headers={"Accept": "text/event-stream"})
    response = conn.getresponse()
    if response.status != 200:
        sys.exit(f"GET {url}/events answered {response.status}")
    ready.release()
    name = None
    while not stop.is_set():
        try:
            line = response.fp.readline()
        except TimeoutError:
            continue  # quiet for a second: look at the stop flag again
        if not line:
            return
        now = time.monotonic()
        line = line.decode().rstrip("\n")
        if line.startswith("event:"):
            name = line[6:].strip()
        elif line.startswith("data:") and name == "change":
            events.append((json.loads(line[5:])["sequence"], now))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("writer")
    parser.add_argument("replica")
    parser.add_argument("--seconds", type=float, default=10)
    args = parser.parse_args()

    writer, replica = [], []
    ready, stop = threading.Semaphore(0), threading.Event()
    threads = [threading.Thread(target=follow, args=(url, out, ready, stop), daemon=True)
               for url, out in ((args.writer, writer), (args.replica, replica))]
    for t in threads:
        t.start()
    for _ in threads:
        if not ready.acquire(timeout=10):
            sys.exit("an /events stream did not open")
    time.sleep(args.seconds)
    written_until = time.monotonic()
    time.sleep(2)  # for the replica to reach the last of the writer's events
    stop.set()
    for t in threads:
        t.join(3)

    delays = []
    reached = 0
    for sequence, at in writer:
        if at > written_until:
            break
        arrival = next((t for s, t in replica if s >= sequence), None)
        if arrival is not None:
            reached += 1
            delays.append(max(0.0, arrival - at) * 1000)
    delays.sort()

    def pick(q):
        return delays[min(len(delays) - 1, int(q * len(delays)))] if delays else float("nan")
    print(f"propagation to the replica: {sum(1 for _, at in writer if at <= written_until)} changes of the writer, "
          f"{reached} reached by the replica; p50 {pick(0.5):.1f} ms p99 {pick(0.99):.1f} ms "
          f"max {delays[-1] if delays else float('nan'):.1f} ms")


if __name__ == "__main__":
    main()
