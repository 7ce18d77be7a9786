"""Drives the viewer's time controls in headless Chromium over routes with times, and reports, as JSON on stdout,
what the page showed. The caller (ViewerBrowserTests) made the routes and decides what passes.

Usage: viewer_time_check.py URL OUTPUT_FOLDER FROM_S TO_S

- windows: the route ids whose lines are rendered with no window, the last 15 minutes, and the custom range
  FROM_S..TO_S (Unix seconds), with the tile URL the source then asks for and the line layers' opacity
- list: each row's text (the "last seen" of routes with times)
- speed: the line colour expression and the speeds of the rendered features with speed colouring on
- playback: the selected route played at x60 (and x600): the wall-clock seconds it took from start to end, and the
  clock's text at the end; screenshot time.png
"""
import json
import sys

import chromium

url, output, custom_from, custom_to = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
report = {"errors": []}
driver = chromium.start()
js = driver.execute_script


def wait_for(script, seconds, step=0.05):
    return chromium.wait_for(driver, script, seconds, step)


def rendered():
    """The route ids of the lines drawn in view, sorted, once the map is idle."""
    chromium.wait_until_idle(driver)
    return js("""
        const m = window.map, v = window.routetiles;
        const layers = v.routeLayers.filter((id) => id.endsWith('-line') && m.getLayer(id));
        const ids = new Set();
        for (const f of m.queryRenderedFeatures({layers})) {
            const entry = v.byFid.get(String(f.id));
            ids.add(entry ? entry.id : 'fid ' + f.id);
        }
        return [...ids].sort();
    """)


try:
    driver.get(url)
    wait_for("window.routetiles && window.routetiles.ready && window.routetiles.routes.length >= 3", 90)
    report["controlsShown"] = js("return !document.getElementById('time-controls').hidden")
    report["speedToggleShown"] = js("return !document.getElementById('speed-toggle').hidden")
    windows = {"all": rendered()}
    js("window.routetiles.setTimeWindow('15m')")
    windows["15m"] = rendered()
    report["fade"] = js("return JSON.stringify(window.map.getPaintProperty('routes-line', 'line-opacity'))")
    js("window.routetiles.setTimeWindow('custom', arguments[0], arguments[1])", custom_from, custom_to)
    windows["custom"] = rendered()
    report["customTiles"] = js("return window.map.getSource(window.routetiles.source).tiles[0]")
    js("window.routetiles.setTimeWindow('all')")
    windows["allAgain"] = rendered()
    report["allTiles"] = js("return window.map.getSource(window.routetiles.source).tiles[0]")
    report["windows"] = windows

    report["rows"] = js("""
        const rows = {};
        for (const row of document.querySelectorAll('#list-rows .row')) {
            rows[row.dataset.id] = {text: row.querySelector('.meta').textContent, title: row.querySelector('.meta').title};
        }
        return rows;
    """)

    js("window.routetiles.setSpeedColours(true)")
    chromium.wait_until_idle(driver)
    report["speed"] = js("""
        const m = window.map;
        const speeds = m.queryRenderedFeatures({layers: ['routes-line']}).map((f) => f.properties.speed)
            .filter((s) => s !== undefined);
        return {colour: m.getPaintProperty('routes-line', 'line-color'), speeds: [...new Set(speeds)].sort((a, b) => a - b)};
    """)
    js("window.routetiles.setSpeedColours(false)")

    # Playback of the recent van at x60, then x600, each from the start.
    js("window.routetiles.select('recent', {fly: true, duration: 0})")
    chromium.wait_until_idle(driver)
    runs = {}
    for speed in ["60", "600"]:
        js("document.getElementById('speed').value = arguments[0]", speed)
        js("window.routetiles.seek(0).then(() => window.routetiles.play())")
        ended = wait_for("window.routetiles.playback.endedAt != null", 60, 0.02)
        runs[speed] = js("""
            const p = window.routetiles.playback;
            return {ended: p.endedAt != null, seconds: p.endedAt != null ? (p.endedAt - p.startedAt) / 1000 : null,
                    startFraction: p.startFraction, fraction: p.fraction,
                    clock: document.getElementById('clock').textContent,
                    clockShown: !document.getElementById('clock').hidden, timed: !!(p.geometry && p.geometry.times),
                    lngLat: p.at && p.at.lngLat};
        """)
        runs[speed]["waited"] = bool(ended)
    report["playback"] = runs
    js("window.routetiles.seek(0.5)")
    report["halfway"] = js("""
        const p = window.routetiles.playback;
        return {lngLat: p.at.lngLat, time: p.at.time, clock: document.getElementById('clock').textContent};
    """)
    driver.save_screenshot(output + "/time.png")
    report["mapErrors"] = js("return window.tileErrors || []")
except Exception as error:  # reported, not raised: the caller shows what was gathered
    report["errors"].append(repr(error))
finally:
    driver.quit()
print(json.dumps(report))
