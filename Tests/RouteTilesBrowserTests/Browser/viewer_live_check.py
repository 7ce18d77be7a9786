"""Drives the RouteTiles viewer in headless Chromium through what a person does with it, and reports, as JSON on
stdout, what the page showed. The caller (ViewerBrowserTests) decides what passes.

Usage: viewer_live_check.py URL TOKEN BASEMAP_LAYER OUTPUT_FOLDER

- basemap: rendered features of the basemap's layer BASEMAP_LAYER and of the routes; the order of the layers;
  screenshot viewer.png
- list: the page's routes against GET /routes; typing a filter; a click on a row; a click on the map
- live: a route POSTed while the page is open, then DELETEd; when each shows in the list and on the map
- playback: the marker's position and rotation after a seek and after playing, checked here against the route's
  GeoJSON (Web Mercator segments, bearings clockwise from north); screenshot playback.png
- steps: the steps panel of a directions route, and where a click on a step flies
"""
import json
import math
import sys
import time
import urllib.request

import chromium
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By

url, token, basemap_layer, output = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
base = url.rstrip("/")
report = {"errors": []}


def http(method, path, body=None, content_type="application/geo+json"):
    request = urllib.request.Request(base + path, data=body, method=method)
    if body is not None:
        request.add_header("Content-Type", content_type)
    if method != "GET":
        request.add_header("Authorization", "Bearer " + token)
    with urllib.request.urlopen(request, timeout=20) as response:
        return response.status, json.loads(response.read() or b"null")


def mercator(lon, lat):
    y = math.log(math.tan(math.pi / 4 + math.radians(lat) / 2))
    return (lon + 180) / 360, (1 - y / math.pi) / 2


def on_route(feature, lng_lat, rotation):
    """Distance in metres from the point to the route's nearest Web Mercator segment, and the difference between
    `rotation` and that segment's bearing, in degrees."""
    g = feature["geometry"]
    parts = [g["coordinates"]] if g["type"] == "LineString" else g["coordinates"]
    px, py = mercator(*lng_lat)
    best = (float("inf"), None)
    for part in parts:
        points = [mercator(lon, lat) for lon, lat in part]
        for (ax, ay), (bx, by) in zip(points, points[1:]):
            dx, dy = bx - ax, by - ay
            length2 = dx * dx + dy * dy
            if length2 == 0:
                continue
            t = max(0.0, min(1.0, ((px - ax) * dx + (py - ay) * dy) / length2))
            d = math.hypot(ax + t * dx - px, ay + t * dy - py)
            if d < best[0]:
                best = (d, math.degrees(math.atan2(dx, -dy)) % 360)
    # Map units to metres at this latitude: the world is 40,075,016.686 m round at the equator.
    metres = best[0] * 40075016.686 * math.cos(math.radians(lng_lat[1]))
    difference = abs((rotation - best[1] + 180) % 360 - 180)
    return metres, difference


driver = chromium.start()
js = driver.execute_script


def wait_for(script, seconds, step=0.05):
    """Polls `script` (a JS expression) until it is truthy; returns (value, seconds waited)."""
    start = time.time()
    while True:
        value = js("return " + script)
        if value or time.time() - start > seconds:
            return value, time.time() - start
        time.sleep(step)


def settle(seconds=60):
    wait_for("(() => { const m = window.map; return m && typeof m.loaded === 'function' && m.isStyleLoaded() "
             "&& m.loaded() && m.areTilesLoaded() && !m.isMoving(); })()", seconds, 0.1)
    time.sleep(0.3)


try:
    driver.set_page_load_timeout(60)
    driver.get(url)
    ready, _ = wait_for("window.routetiles && window.routetiles.ready && window.routetiles.routes.length > 0", 90, 0.25)
    report["ready"] = bool(ready)
    settle(90)

    # Basemap and routes, both drawn; the routes under the basemap's labels.
    report["basemap"] = js("""
        const m = window.map, v = window.routetiles;
        const layers = m.getStyle().layers.map((l) => l.id);
        const firstSymbol = m.getStyle().layers.findIndex((l) => l.type === 'symbol' && !v.routeLayers.includes(l.id));
        return {
            loaded: v.basemapLoaded,
            basemapFeatures: m.queryRenderedFeatures({layers: [arguments[0]]}).length,
            routeFeatures: m.queryRenderedFeatures({layers: v.routeLayers.filter((id) => id.endsWith('-line'))}).length,
            routeLayerIndexes: v.routeLayers.map((id) => layers.indexOf(id)),
            firstBasemapSymbol: firstSymbol,
        };
    """, basemap_layer)
    driver.save_screenshot(output + "/viewer.png")

    # The list against the server.
    _, listing = http("GET", "/routes")
    server_lines = [r for r in listing["routes"] if r["kind"] == "line"]
    page = js("return window.routetiles.routes.filter((r) => r.kind === 'line').map((r) => [r.id, r.name || null, r.length_m]);")
    report["list"] = {
        "server": len(server_lines), "page": len(page),
        "same": sorted(p[0] for p in page) == sorted(r["id"] for r in server_lines),
        "countText": js("return document.getElementById('count').textContent;"),
        "rows": js("return document.querySelectorAll('#list-rows .row').length;"),
    }

    # Typing filters it.
    box = driver.find_element(By.ID, "filter")
    box.send_keys("run 3")
    wait_for("document.getElementById('count').textContent.includes(' of ')", 5)
    shown = js("return window.routetiles.shown.map((r) => r.id);")
    expected = [r["id"] for r in server_lines
                if all(w in f"{r.get('name') or ''} {r['id']} {r['layer']}".lower() for w in ["run", "3"])]
    rows_text = js("return [...document.querySelectorAll('#list-rows .row .name')].map((e) => e.textContent);")
    report["filter"] = {"shown": shown, "expected": expected, "rows": rows_text}
    box.clear()
    js("document.getElementById('filter').dispatchEvent(new Event('input'));")
    wait_for("!document.getElementById('count').textContent.includes(' of ')", 5)

    # A click on a row selects the route and highlights it through feature-state.
    target = server_lines[1]
    row = driver.find_element(By.CSS_SELECTOR, f"#list-rows .row[data-id='{target['id']}']")
    row.click()
    time.sleep(1.2)
    settle()
    report["rowClick"] = js("""
        const v = window.routetiles, m = window.map, e = v.selected;
        const state = m.getFeatureState({source: v.source, sourceLayer: e.layer, id: e.fid});
        const rendered = m.queryRenderedFeatures({layers: v.routeLayers.filter((id) => id.endsWith('-line'))})
            .filter((f) => String(f.id) === String(e.fid));
        return {
            selected: e.id, featureState: state, renderedSelected: rendered.length,
            renderedState: rendered.length ? rendered[0].state : null,
            rowSelected: !!document.querySelector(`#list-rows .row.selected[data-id='${e.id}']`),
            details: document.getElementById('details-name').textContent,
            zoom: m.getZoom(),
            // Drawn again on top of the other routes: only its feature in the copy of its layer.
            onTop: m.getLayer('routetiles-selected-line') ? [...new Set(m.queryRenderedFeatures(
                {layers: ['routetiles-selected-line']}).map((f) => String(f.id)))] : null,
            topIsLast: (() => { const ids = m.getStyle().layers.map((l) => l.id);
                return v.routeLayers.every((id) => ids.indexOf(id) < ids.indexOf('routetiles-selected-line')); })(),
        };
    """)
    report["rowClick"]["expected"] = target["id"]

    # A click on another route on the map selects it in the list.
    other = server_lines[2]
    point = js("""
        const v = window.routetiles, m = window.map, fid = String(arguments[0]);
        m.fitBounds(arguments[1], {animate: false, padding: 80});
        return null;
    """, other["fid"], [[other["bbox"][0], other["bbox"][1]], [other["bbox"][2], other["bbox"][3]]])
    settle()
    point = js("""
        const v = window.routetiles, m = window.map, fid = String(arguments[0]);
        const layers = v.routeLayers.filter((id) => id.endsWith('-line'));
        for (const f of m.queryRenderedFeatures({layers})) {
            if (String(f.id) !== fid) continue;
            const lines = f.geometry.type === 'LineString' ? [f.geometry.coordinates] : f.geometry.coordinates;
            for (const line of lines) for (const c of line) {
                const p = m.project(c);
                const hit = m.queryRenderedFeatures([p.x, p.y], {layers});
                if (hit.length && String(hit[0].id) === fid && p.x > 20 && p.y > 20) return [p.x, p.y];
            }
        }
        return null;
    """, other["fid"])
    report["mapClick"] = {"expected": other["id"], "point": point}
    if point:
        canvas = driver.find_element(By.CSS_SELECTOR, "#map canvas")
        size = canvas.size
        ActionChains(driver).move_to_element_with_offset(canvas, point[0] - size["width"] / 2,
                                                         point[1] - size["height"] / 2).click().perform()
        wait_for(f"window.routetiles.selected && window.routetiles.selected.id === {json.dumps(other['id'])}", 3)
        report["mapClick"]["selected"] = js("return window.routetiles.selected && window.routetiles.selected.id;")
        report["mapClick"]["rowSelected"] = js(
            f"return !!document.querySelector(\"#list-rows .row.selected[data-id='{other['id']}']\");")

    # Live: a route POSTed while the page is open appears on the map and in the list; a DELETE removes it.
    settle()
    west, south, east, north = js("const b = window.map.getBounds(); return [b.getWest(), b.getSouth(), b.getEast(), b.getNorth()];")
    lat = (south + north) / 2
    line = [[west + (east - west) * (0.3 + 0.4 * i / 19), lat + (north - south) * 0.1 * math.sin(i / 3)] for i in range(20)]
    feature = {"type": "Feature", "id": "live-check", "properties": {"name": "Live check route", "color": "#9333ea"},
               "geometry": {"type": "LineString", "coordinates": line}}
    status, answer = http("POST", "/routes", json.dumps(feature).encode())
    posted = time.time()
    in_list, list_wait = wait_for("window.routetiles.byId.has('live-check')", 5)
    on_map, map_wait = wait_for("""(() => { const v = window.routetiles, e = v.byId.get('live-check');
        return !!e && window.map.queryRenderedFeatures({layers: v.routeLayers.filter((id) => id.endsWith('-line'))})
            .some((f) => String(f.id) === String(e.fid)); })()""", 5)
    map_wait = time.time() - posted
    fid = js("const e = window.routetiles.byId.get('live-check'); return e ? String(e.fid) : null;")
    report["livePost"] = {"status": status, "inList": bool(in_list), "listSeconds": list_wait,
                          "onMap": bool(on_map), "mapSeconds": map_wait, "fid": fid,
                          "rowText": js("return document.getElementById('count').textContent;")}
    settle()

    # The position layer: a dot (and a heading arrow) at the route's last position, moved by an append.
    vehicle_js = """(() => { const v = window.routetiles;
        const layers = v.routeLayers.filter((id) => id.endsWith('-dot') || id.endsWith('-heading'));
        return window.map.queryRenderedFeatures({layers}).filter((f) => String(f.id) === %s)
            .map((f) => ({layer: f.layer.id, at: f.geometry.coordinates, bearing: f.properties.bearing,
                          fixTime: f.properties.fix_time})); })()""" % json.dumps(fid)
    before = js("return " + vehicle_js)
    fix = [line[-1][0] + (east - west) * 0.05, line[-1][1] + (north - south) * 0.05]
    status, _ = http("POST", "/routes/live-check/points", json.dumps([fix]).encode(), "application/json")
    appended = time.time()
    moved, _ = wait_for(f"""(() => {{ const found = {vehicle_js};
        const here = (f) => Math.abs(f.at[0] - {fix[0]}) < 1e-4 && Math.abs(f.at[1] - {fix[1]}) < 1e-4;
        return found.some((f) => f.layer.endsWith('-dot')) && found.some((f) => f.layer.endsWith('-heading'))
            && found.every(here) && found; }})()""", 5)
    report["vehicle"] = {"before": before, "last": line[-1], "status": status, "fix": fix, "after": moved or [],
                         "seconds": time.time() - appended,
                         "headingImage": js("return window.map.hasImage('routetiles-heading');")}
    settle()
    status, _ = http("DELETE", "/routes/live-check")
    deleted = time.time()
    gone_list, _ = wait_for("!window.routetiles.byId.has('live-check')", 5)
    list_wait = time.time() - deleted
    gone_map, _ = wait_for(f"""(() => {{ const v = window.routetiles;
        return !window.map.queryRenderedFeatures({{layers: v.routeLayers.filter((id) => id.endsWith('-line'))}})
            .some((f) => String(f.id) === {json.dumps(fid)}); }})()""", 5)
    report["liveDelete"] = {"status": status, "goneFromList": bool(gone_list), "listSeconds": list_wait,
                            "goneFromMap": bool(gone_map), "mapSeconds": time.time() - deleted}
    report["events"] = js("return window.routetiles.events;")

    # Playback: the marker after a seek and after playing lies on the route, turned to its segment's bearing.
    run = server_lines[0]
    js("window.routetiles.select(arguments[0], {fly: true, duration: 0});", run["id"])
    settle()
    _, geojson = http("GET", "/routes/" + run["id"])
    checks = []
    for fraction in [0.13, 0.37, 0.81]:
        at = driver.execute_async_script("""
            const done = arguments[arguments.length - 1];
            window.routetiles.seek(arguments[0]).then(() => {
                const m = window.routetiles.playback.marker;
                done({lngLat: m.getLngLat().toArray(), rotation: m.getRotation()});
            });
        """, fraction)
        metres, degrees = on_route(geojson, at["lngLat"], at["rotation"])
        checks.append({"fraction": fraction, "metresOff": metres, "degreesOff": degrees, **at})
    driver.execute_async_script("window.routetiles.seek(0.2).then(arguments[arguments.length - 1]);")
    js("document.getElementById('speed').value = '60';")
    before = js("return window.routetiles.playback.fraction;")
    driver.find_element(By.ID, "play").click()
    time.sleep(1.5)
    driver.find_element(By.ID, "play").click()
    after = js("const p = window.routetiles.playback, m = p.marker; "
               "return {fraction: p.fraction, playing: p.playing, lngLat: m.getLngLat().toArray(), rotation: m.getRotation()};")
    metres, degrees = on_route(geojson, after["lngLat"], after["rotation"])
    checks.append({"played": True, "from": before, "metresOff": metres, "degreesOff": degrees, **after})
    report["playback"] = {
        "checks": checks,
        "travelledDrawn": js("return !!window.map.getLayer('routetiles-travelled') && "
                             "window.map.queryRenderedFeatures({layers: ['routetiles-travelled']}).length > 0;"),
        "slider": js("return Number(document.getElementById('position').value);"),
    }
    driver.save_screenshot(output + "/playback.png")

    # Steps of a directions route: listed with distance and duration; a click flies to the maneuver.
    directions = [r for r in server_lines if r.get("steps")]
    if directions:
        entry = directions[0]
        js("window.routetiles.select(arguments[0], {fly: true, duration: 0});", entry["id"])
        settle()
        items = driver.find_elements(By.CSS_SELECTOR, "#steps li")
        pick = min(2, len(items) - 1)
        items[pick].click()
        time.sleep(1.0)
        settle()
        center = js("return window.map.getCenter().toArray();")
        report["steps"] = {"listed": len(items), "expected": len(entry["steps"]),
                           "text": items[pick].text, "center": center,
                           "location": entry["steps"][pick].get("location")}
    report["mapErrors"] = js("return window.routetiles.errors;")
    print(json.dumps(report))
finally:
    driver.quit()
