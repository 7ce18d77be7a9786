"""Loads the RouteTiles viewer of a server with many routes in headless Chromium and reports, as JSON on stdout, how
its list copes: routes held, rows in the document, a filter typed, the end of the list scrolled to, a selection.

Usage: viewer_list_check.py URL
The milliseconds reported are for the record (Docs/BENCHMARKS.md), not checked: the machine is shared.
"""
import json
import sys
import time

import chromium
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By

url = sys.argv[1]
driver = chromium.start()
js = driver.execute_script
try:
    driver.set_page_load_timeout(60)
    started = time.time()
    driver.get(url)
    deadline = time.time() + 120
    while time.time() < deadline and not js("return !!(window.routetiles && window.routetiles.ready "
                                             "&& window.routetiles.routes.length > 0);"):
        time.sleep(0.1)
    report = {"loadSeconds": time.time() - started}
    report["held"] = js("return window.routetiles.routes.length;")
    report["rows"] = js("return document.querySelectorAll('#list-rows .row').length;")
    report["countText"] = js("return document.getElementById('count').textContent;")

    # Typing: each key filters the whole list.
    box = driver.find_element(By.ID, "filter")
    typed = time.time()
    box.send_keys("route 12")
    report["filterSeconds"] = time.time() - typed
    report["shown"] = js("return window.routetiles.shown.map((r) => r.name);")
    report["filterRows"] = js("return [...document.querySelectorAll('#list-rows .row .name')].map((e) => e.textContent);")
    box.clear()
    js("document.getElementById('filter').dispatchEvent(new Event('input'));")

    # The end of the list.
    js("const l = document.getElementById('list'); l.scrollTop = l.scrollHeight; l.dispatchEvent(new Event('scroll'));")
    # The rows are drawn on the next frame, later on a busy machine: wait (bounded) for the last one.
    deadline = time.time() + 20
    while time.time() < deadline and js("return !document.querySelector('#list-rows .row[data-id=\"10000\"]');"):
        time.sleep(0.1)
    report["lastRows"] = js("return [...document.querySelectorAll('#list-rows .row')].map((e) => e.dataset.id).slice(-3);")
    report["lastId"] = js("const r = window.routetiles.shown; return r[r.length - 1].id;")
    report["rowsAtEnd"] = js("return document.querySelectorAll('#list-rows .row').length;")
    # A click on the last row selects it. A row found just before the list redraws itself goes stale: find it
    # again (at most 5 times).
    for attempt in range(5):
        try:
            driver.find_elements(By.CSS_SELECTOR, "#list-rows .row")[-1].click()
            break
        except StaleElementReferenceException:
            time.sleep(0.2)
    deadline = time.time() + 10
    while time.time() < deadline and not js("return !!window.routetiles.selected;"):
        time.sleep(0.1)
    report["selected"] = js("return window.routetiles.selected && window.routetiles.selected.id;")
    report["mapErrors"] = js("return window.routetiles.errors;")
    print(json.dumps(report))
finally:
    driver.quit()
