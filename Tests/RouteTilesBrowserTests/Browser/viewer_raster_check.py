"""Switches the RouteTiles viewer to its raster tiles in headless Chromium and reports, as JSON on stdout, what each
way drew: the pixels inked by the vector layers, then by the server's PNG tiles in their place.

Usage: viewer_raster_check.py URL VECTOR.png RASTER.png
"""
import json
import sys

from PIL import Image

import chromium


def ink(path):
    """Pixels clearly darker than the page's background (#f8fafc), away from the zoom buttons."""
    image = Image.open(path).convert("L")
    width, height = image.size
    pixels = image.load()
    return sum(1 for y in range(height) for x in range(width - 60 if y < 110 else width) if pixels[x, y] < 170)


url, vector_shot, raster_shot = sys.argv[1:4]
driver = chromium.start(1000, 700)
try:
    driver.set_page_load_timeout(60)
    driver.get(url)
    chromium.wait_for(driver, "window.routetiles && window.routetiles.ready", 60)
    chromium.wait_until_idle(driver)
    driver.save_screenshot(vector_shot)
    vector_features = driver.execute_script("return window.map.queryRenderedFeatures({layers: ['routes-line']}).length")
    driver.execute_script("document.getElementById('draw-raster').click()")
    chromium.wait_for(driver, "window.map.getSource('routetiles-raster') !== undefined", 10)
    chromium.wait_until_idle(driver)
    driver.save_screenshot(raster_shot)
    state = driver.execute_script("""
        const m = window.map;
        const source = m.getSource('routetiles-raster');
        return {
            rasterVisible: m.getLayoutProperty('routetiles-raster', 'visibility') !== 'none',
            vectorHidden: window.routetiles.routeLayers.every((id) => m.getLayoutProperty(id, 'visibility') === 'none'),
            renderedRouteFeatures: m.queryRenderedFeatures({layers: ['routes-line']}).length,
            rasterTiles: source ? source.tiles : [],
            loaded: m.loaded() && m.areTilesLoaded(),
            mapErrors: window.tileErrors || [],
        };
    """)
finally:
    driver.quit()
state["vectorFeatures"] = vector_features
state["vectorInk"] = ink(vector_shot)
state["rasterInk"] = ink(raster_shot)
print(json.dumps(state))
