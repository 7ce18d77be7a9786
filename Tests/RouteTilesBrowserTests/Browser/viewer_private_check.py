"""The viewer on a private server (`serve --read token`): without a credential it asks for one; opened with
`#access_token=…` (a reader of the group acme) it removes the token from the address bar, lists and draws acme's
routes alone, loads its tiles by signed URLs, and follows acme's changes live.

Usage: viewer_private_check.py BASE ACME_TOKEN WRITE_TOKEN
Reports JSON on stdout; the caller (ViewerBrowserTests) decides what passes.
"""
import json
import sys
import time
import urllib.request

import chromium

base, acme, write_token = sys.argv[1], sys.argv[2], sys.argv[3]
report = {}
driver = chromium.start()
js = driver.execute_script
try:
    driver.set_page_load_timeout(60)
    driver.get(base + "/")
    report["asked"] = bool(chromium.wait_for(driver, "!document.getElementById('credential').hidden", 30))
    report["askedMessage"] = js("return document.getElementById('credential-message').textContent;")

    # A page with only another fragment is not loaded again: go elsewhere first.
    driver.get("about:blank")
    driver.get(base + "/#access_token=" + acme)
    chromium.wait_for(driver, "window.routetiles && window.routetiles.ready && window.routetiles.eventId !== null "
                      "&& window.routetiles.routes.length > 0", 90)
    chromium.wait_until_idle(driver)
    report["hash"] = js("return location.hash;")
    report["listed"] = sorted(js("return window.routetiles.routes.map((r) => r.id);"))
    report["rendered"] = js("""return [...new Set(window.map.queryRenderedFeatures()
        .filter((f) => f.source === window.routetiles.source).map((f) => String(f.id)))];""")
    report["fids"] = js("return Object.fromEntries(window.routetiles.routes.map((r) => [r.id, String(r.fid)]));")
    # Tiles are fetched in MapLibre's workers, out of the page's resource timings: the source's URLs say how.
    report["tileURL"] = js("return (window.map.getSource(window.routetiles.source).tiles || [''])[0];")

    # A change of acme's route reaches the page as an event.
    request = urllib.request.Request(base + "/routes/acme-1/points", data=b"[[2.3605, 48.8505]]", method="POST",
                                     headers={"Authorization": "Bearer " + write_token})
    report["appendStatus"] = urllib.request.urlopen(request, timeout=30).status
    report["sawChange"] = bool(chromium.wait_for(driver, """window.routetiles.events.some((e) => e.type === 'change'
        && (e.ids || []).includes('acme-1'))""", 20))
    report["status"] = js("return document.getElementById('status').textContent;")
    report["mapErrors"] = js("return window.routetiles.errors;")
finally:
    driver.quit()
print(json.dumps(report))
