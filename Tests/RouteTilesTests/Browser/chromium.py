"""Headless Chromium for the viewer checks: Debian's chromium and chromium-driver, driven by selenium, rendering
WebGL in software (SwiftShader), since the test machines have no GPU."""
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
