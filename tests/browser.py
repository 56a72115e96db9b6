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


AXE = Path(__file__).parent / "vendor" / "axe-core-4.14.1" / "axe.min.js"
GRAVE = ("serious", "critical")


def axe(driver: Any, impacts: tuple[str, ...] = GRAVE) -> list[str]:
    """axe-core's violations of the page as it is now, of the given impacts, one line each
    ("rule (impact): target …: what to fix"): a page passes when this is empty. axe-core is
    vendored from its npm release and injected here; the page itself never loads it."""
    if not driver.execute_script("return typeof window.axe !== 'undefined'"):
        driver.execute_script(AXE.read_text(encoding="utf-8"))
    driver.set_script_timeout(60)
    found = driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "axe.run(document, {resultTypes: ['violations']})"
        ".then(r => done(r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,"
        " nodes: v.nodes.map(n => n.target.join(' ')).slice(0, 5)}))))"
        ".catch(e => done([{id: 'axe-error', impact: 'critical', help: String(e), nodes: []}]));")
    return [f"{v['id']} ({v['impact']}): {', '.join(v['nodes'])}: {v['help']}"
            for v in found if v["impact"] in impacts]
