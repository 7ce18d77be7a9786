"""Headless Chromium for the viewer checks: Debian's chromium and chromium-driver, driven by selenium, rendering
WebGL in software (SwiftShader), since the test machines have no GPU."""
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service


def start(width=1280, height=800):
    options = webdriver.ChromeOptions()
    for flag in ["--headless=new", "--use-angle=swiftshader", "--enable-unsafe-swiftshader", "--no-sandbox",
                 "--disable-dev-shm-usage", f"--window-size={width},{height}", "--no-first-run",
                 "--disable-gpu-sandbox"]:
        options.add_argument(flag)
    options.binary_location = "/usr/bin/chromium"
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def wait_until_idle(driver, seconds=90):
    """Waits (at most `seconds`) until MapLibre says every tile is loaded and the map is idle, then half a second
    more for the last frame; returns whether it got there."""
    deadline = time.time() + seconds
    ready = False
    while not ready and time.time() < deadline:
        ready = driver.execute_script("""
            const m = window.map;
            // Until MapLibre has loaded, window.map is the page's <div id="map"> (named access on window).
            if (!m || typeof m.isStyleLoaded !== 'function' || !m.isStyleLoaded()) return false;
            return m.loaded() && m.areTilesLoaded() && !m.isMoving();
        """)
        if not ready:
            time.sleep(0.25)
    time.sleep(0.5)
    return ready


def render(url, screenshot, script, width=1000, height=700):
    """Loads `url` in a new headless Chromium of `width` × `height`, waits until the map is idle, saves a screenshot
    to `screenshot` and returns what `script` (JavaScript with a `return`) returned then."""
    driver = start(width, height)
    try:
        driver.set_page_load_timeout(60)
        driver.get(url)
        wait_until_idle(driver)
        result = driver.execute_script(script)
        driver.save_screenshot(screenshot)
        return result
    finally:
        driver.quit()


def wait_for(driver, script, seconds, step=0.05):
    """Polls `script` (a JS expression) until it is truthy or `seconds` have passed; returns its last value."""
    start = time.time()
    while True:
        value = driver.execute_script("return " + script)
        if value or time.time() - start > seconds:
            return value
        time.sleep(step)
