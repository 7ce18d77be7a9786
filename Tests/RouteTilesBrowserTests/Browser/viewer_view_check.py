"""Loads the RouteTiles viewer in headless Chromium and reports, as JSON on stdout, where its first view is.

Usage: viewer_view_check.py URL SCREENSHOT.png
Reports the centre (its longitude in -180..180 as well), the zoom, the view's west and east (unwrapped, as MapLibre
gives them) and how many route features are drawn, once the map is idle; the caller checks them.
"""
import json
import sys

import chromium

url, screenshot = sys.argv[1], sys.argv[2]
result = chromium.render(url, screenshot, """
    const m = window.map;
    const c = m.getCenter();
    const b = m.getBounds();
    return {
        ready: m.loaded() && m.areTilesLoaded(),
        centerLng: c.lng, wrappedCenterLng: c.wrap().lng, centerLat: c.lat, zoom: m.getZoom(),
        west: b.getWest(), east: b.getEast(), south: b.getSouth(), north: b.getNorth(),
        renderedRouteFeatures: m.queryRenderedFeatures({layers: ['routes-line']}).length,
        mapErrors: window.tileErrors || [],
    };
""")
print(json.dumps(result))
