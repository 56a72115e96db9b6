"""Headless Chromium for the page tests (Debian's chromium, driven through chromedriver), as
the report's and the server's browser tests share it. CI installs the browser (.ci/run) and
must run these tests; elsewhere they are skipped without it."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
HAVE_BROWSER = Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists()
SCREENSHOTS = Path(os.environ.get("MOONASM_SCREENSHOTS", "/tmp/moonasm-screenshots"))


@contextmanager
def chromium(width: int = 1280, height: int = 2400) -> Iterator[Any]:
    """A fresh headless Chromium (its own profile: no cookies, no local storage) whose console
    is kept for `errors`."""
    if not HAVE_BROWSER and not os.environ.get("CI"):
        pytest.skip("needs Debian's chromium and chromium-driver (apt-get install chromium "
                    "chromium-driver)")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--disable-background-networking", "--no-first-run",
                 "--disable-component-update", "--disable-sync",
                 f"--window-size={width},{height}"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    # Chromium's windows are at least 500 px wide: a narrow screen is emulated, as a phone's
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600})
    try:
        yield driver
    finally:
        driver.quit()


def errors(driver: Any) -> list[Any]:
    """What the page wrote to the console as a warning or an error."""
    return [e for e in driver.get_log("browser") if e["level"] in ("SEVERE", "WARNING")]


def screenshot(driver: Any, name: str) -> Path:
    """Save what the page looks like now (to be looked at: narrow and wide)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    driver.save_screenshot(str(path))
    return path
