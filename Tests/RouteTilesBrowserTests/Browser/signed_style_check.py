"""Signed tile URLs in Chromium, over HTTPS with a test CA: a page fetches `style.json?access_token=…` from a private
server (`serve --read token --tls-cert … --tls-key …`) and MapLibre loads its tiles by the signed URLs the style
names. A copy of the source whose signature has one character changed gets 403s; once the token (and so the
signed URLs) has expired, tiles of a new place get 403s too.

Usage: signed_style_check.py BASE CA_PEM TOKEN PROFILE
  BASE     https://127.0.0.1:PORT of the server
  CA_PEM   the test CA, which Chromium is made to trust through an NSS database in PROFILE/.pki/nssdb
  TOKEN    a JWT that reads one group and expires soon (the signed URLs expire with it)
  PROFILE  an empty folder, used as Chromium's home
Reports JSON on stdout; the caller (SignedStyleBrowserTests) decides what passes.
"""
import json
import os
import re
import subprocess
import sys
import time

base, ca, token, profile = sys.argv[1:5]
nss = os.path.join(profile, ".pki", "nssdb")
os.makedirs(nss, exist_ok=True)
subprocess.run(["certutil", "-d", "sql:" + nss, "-N", "--empty-password"], check=True)
subprocess.run(["certutil", "-d", "sql:" + nss, "-A", "-t", "C,,", "-n", "routetiles-test-ca", "-i", ca], check=True)
os.environ["HOME"] = profile

import chromium  # noqa: E402  (after HOME is set: Chromium reads the NSS database of its HOME)

report = {}
driver = chromium.start()
js = driver.execute_script
try:
    driver.set_page_load_timeout(60)
    driver.get(base + "/assets/signed.html#" + token)
    report["idle"] = chromium.wait_until_idle(driver)
    report["secure"] = js("return window.isSecureContext && location.protocol === 'https:';")
    report["source"] = js("""const sources = window.map.getStyle().sources;
        return Object.keys(sources).find((k) => sources[k].type === 'vector');""")
    report["template"] = js("return window.map.getStyle().sources[arguments[0]].tiles[0];", report["source"])
    report["loaded"] = js("return window.check.loaded.length;")
    report["failedBefore"] = js("return window.check.failed;")
    report["rendered"] = js("""return [...new Set(window.map.queryRenderedFeatures()
        .filter((f) => f.source === arguments[0] && f.sourceLayer === 'routes').map((f) => String(f.id)))];""",
                            report["source"])

    # The same tiles with one character of the signature changed: refused.
    template = report["template"]
    at = template.index("sig=") + 4
    tampered = template[:at] + ("A" if template[at] != "A" else "B") + template[at + 1:]
    report["tampered"] = tampered
    js("""window.map.addSource('tampered', {type: 'vector', tiles: [arguments[0]]});
        window.map.addLayer({id: 'tampered', type: 'line', source: 'tampered', 'source-layer': 'routes'});""", tampered)
    chromium.wait_for(driver, "window.check.failed.some((f) => f.source === 'tampered')", 30)
    time.sleep(1)
    report["tamperedFailures"] = js("return window.check.failed.filter((f) => f.source === 'tampered');")
    report["tamperedLoaded"] = js("return window.check.loaded.filter((t) => t.source === 'tampered').length;")
    js("window.map.removeLayer('tampered'); window.map.removeSource('tampered');")

    # Past the expiry the signed URLs carry (their exp), tiles of a zoom not seen yet are refused.
    expiry = int(re.search(r"[?&]exp=(\d+)", template).group(1))
    report["waitedForExpiry"] = max(0.0, expiry + 1.5 - time.time())
    time.sleep(report["waitedForExpiry"])
    loaded_before = js("return window.check.loaded.filter((t) => t.source === arguments[0]).length;", report["source"])
    failed_before = len(js("return window.check.failed;"))
    js("window.map.jumpTo({center: [2.3525, 48.8512], zoom: 11});")
    chromium.wait_for(driver, "window.check.failed.length > %d" % failed_before, 30)
    chromium.wait_until_idle(driver, 30)
    report["expiredFailures"] = js("return window.check.failed.slice(arguments[0]);", failed_before)
    report["loadedAfterExpiry"] = js("return window.check.loaded.filter((t) => t.source === arguments[0]).length;",
                                     report["source"]) - loaded_before
finally:
    driver.quit()
print(json.dumps(report))
