"""Turns on the RouteTiles viewer's heat of the positions in headless Chromium and reports, as JSON on stdout, what
it changed: the heat toggle's presence, the heatmap layer's visibility before and after, the density features the
map rendered, and the pixels that differ between a screenshot without heat and one with it (at zoom 4, where the
density layer is in the tiles).

Usage: viewer_heat_check.py URL PLAIN.png HEAT.png
"""
import json
import sys

from PIL import Image, ImageChops

import chromium

url, plain_shot, heat_shot = sys.argv[1:4]
driver = chromium.start(1000, 700)
try:
    driver.set_page_load_timeout(60)
    driver.get(url)
    chromium.wait_for(driver, "window.routetiles && window.routetiles.ready", 60)
    driver.execute_script("window.map.jumpTo({zoom: 4})")
    chromium.wait_until_idle(driver)
    before = driver.execute_script("""
        const m = window.map;
        const heat = window.routetiles.routeLayers.filter((id) => m.getLayer(id).type === 'heatmap');
        return { toggleShown: !document.getElementById('heat-toggle').hidden, heatLayers: heat,
                 hiddenAtFirst: heat.every((id) => m.getLayoutProperty(id, 'visibility') === 'none') };
    """)
    driver.save_screenshot(plain_shot)
    driver.execute_script("document.getElementById('draw-heat').click()")
    chromium.wait_until_idle(driver)
    driver.save_screenshot(heat_shot)
    after = driver.execute_script("""
        const m = window.map;
        const heat = window.routetiles.routeLayers.filter((id) => m.getLayer(id).type === 'heatmap');
        return { shownAfter: heat.every((id) => m.getLayoutProperty(id, 'visibility') === 'visible'),
                 densityFeatures: m.querySourceFeatures(window.routetiles.source, {sourceLayer: 'density'}).length,
                 mapErrors: window.tileErrors || [] };
    """)
finally:
    driver.quit()
difference = ImageChops.difference(Image.open(plain_shot).convert("RGB"), Image.open(heat_shot).convert("RGB")).convert("L")
before.update(after)
before["changedPixels"] = sum(1 for value in difference.getdata() if value > 24)
print(json.dumps(before))
