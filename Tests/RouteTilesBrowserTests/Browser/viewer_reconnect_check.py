"""The viewer through a server restart: the page stays open while `routetiles serve` stops, a route is loaded into
its SQLite store meanwhile, and the server starts again on the same port. The page's EventSource reconnects with
Last-Event-ID, is told to resync, and shows the new route in its list and on the map without a reload.

Usage: viewer_reconnect_check.py ROUTETILES ASSETS FOLDER
Reports JSON on stdout; the caller (ViewerBrowserTests) decides what passes.
"""
import json
import os
import socket
import subprocess
import sys
import time

import chromium

routetiles, assets, folder = sys.argv[1], sys.argv[2], sys.argv[3]
root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
store = os.path.join(folder, "routes.db")
report = {}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def load(path):
    subprocess.run([routetiles, "load", path, "--store", store], check=True, capture_output=True, timeout=120)


port = free_port()
base = f"http://127.0.0.1:{port}"


def start():
    process = subprocess.Popen([routetiles, "serve", "--port", str(port), "--store", store, "--assets", assets,
                                "--maplibre-url", "/assets", "--basemap", "none", "--log-level", "warning"],
                               stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, cwd=root)
    text = b""
    deadline = time.time() + 60
    while b"serving http://" not in text and time.time() < deadline:
        chunk = process.stderr.read1(4096)
        if not chunk:
            break
        text += chunk
    return process


def stop(process):
    process.terminate()
    try:
        return process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        return process.wait()


load(os.path.join(root, "Tiles/samples/paris-runs.geojson"))
server = start()
driver = chromium.start()
js = driver.execute_script


def wait_for(script, seconds):
    start_time = time.time()
    while time.time() - start_time < seconds:
        value = js("return " + script)
        if value:
            return value
        time.sleep(0.1)
    return js("return " + script)


try:
    driver.set_page_load_timeout(60)
    driver.get(base + "/")
    wait_for("window.routetiles && window.routetiles.ready && window.routetiles.eventId !== null "
             "&& window.routetiles.routes.length > 0", 90)
    # Every tile in view loaded before the server goes away, so that no tile request fails while it is down.
    wait_for("window.map.loaded() && window.map.areTilesLoaded() && !window.map.isMoving()", 60)
    time.sleep(0.3)
    report["before"] = js("return {routes: window.routetiles.routes.length, eventId: window.routetiles.eventId};")

    report["stopStatus"] = stop(server)
    wait_for("document.getElementById('status').textContent !== 'live'", 10)
    report["statusWhileDown"] = js("return document.getElementById('status').textContent;")

    # Written while the server is down: only the store knows.
    route = os.path.join(folder, "added.geojson")
    with open(route, "w") as f:
        json.dump({"type": "FeatureCollection", "features": [{
            "type": "Feature", "id": "while-away", "properties": {"name": "Added while away"},
            "geometry": {"type": "LineString", "coordinates": [[2.33, 48.85], [2.34, 48.855], [2.35, 48.852]]}}]}, f)
    load(route)

    server = start()
    started = time.time()
    seen = wait_for("window.routetiles.byId.has('while-away')", 20)
    report["inList"] = bool(seen)
    report["listSeconds"] = time.time() - started
    js("""const e = window.routetiles.byId.get('while-away');
          if (e) window.map.fitBounds([[e.bbox[0], e.bbox[1]], [e.bbox[2], e.bbox[3]]], {animate: false, padding: 100});""")
    report["onMap"] = bool(wait_for("""(() => { const v = window.routetiles, e = v.byId.get('while-away');
        return !!e && window.map.queryRenderedFeatures({layers: ['routes-line']}).some((f) => String(f.id) === String(e.fid)); })()""", 20))
    report["events"] = js("return window.routetiles.events;")
    report["after"] = js("return {routes: window.routetiles.routes.length, eventId: window.routetiles.eventId, "
                         "status: document.getElementById('status').textContent};")
    report["mapErrors"] = js("return window.routetiles.errors;")
finally:
    driver.quit()
    report["finalStopStatus"] = stop(server)
print(json.dumps(report))
