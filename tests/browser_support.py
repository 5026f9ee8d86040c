"""Headless Chromium for the browser tests (the replay page, ``azul serve``'s pages): the
``browser`` fixture and the small helpers the tests share. Import the fixture into a test module
(``from browser_support import browser``) to use it there.

Needs Debian's ``chromium`` and ``chromedriver``; without them the tests skip, unless
``AZUL_REQUIRE_BROWSER=1`` (set by .ci/run), where they fail and say what is missing.
"""
from __future__ import annotations

import os
import shutil
import tempfile

import pytest

CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--disable-dev-shm-usage", "--window-size=1300,900")


def _binary(name: str) -> str | None:
    path = f"/usr/bin/{name}"
    return path if os.access(path, os.X_OK) else shutil.which(name)


class NoBrowser(RuntimeError):
    """Chromium, chromedriver or selenium is missing (the message says which and how to get them)."""


def start_chromium():
    """A headless Chromium under selenium and its fresh profile folder (remove it after ``quit``);
    ``NoBrowser`` when something is missing. The benchmarks use it too."""
    chromium, chromedriver = _binary("chromium"), _binary("chromedriver")
    missing = [n for n, p in (("chromium", chromium), ("chromedriver", chromedriver)) if p is None]
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        missing.append("the Python package selenium")
    if missing:
        raise NoBrowser(f"the browser tests need {' and '.join(missing)} (Debian: apt-get install chromium "
                        "chromium-driver)")
    profile = tempfile.mkdtemp(prefix="azul-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = chromium  # with the driver's path below, selenium-manager downloads nothing
    for flag in CHROMIUM_FLAGS + (f"--user-data-dir={profile}",):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(executable_path=chromedriver), options=options), profile


@pytest.fixture(scope="module")
def browser():
    try:
        driver, profile = start_chromium()
    except NoBrowser as exc:
        if os.environ.get("AZUL_REQUIRE_BROWSER") == "1":
            pytest.fail(f"{exc}; AZUL_REQUIRE_BROWSER=1 requires it", pytrace=False)
        pytest.skip(str(exc))
    yield driver
    driver.quit()
    shutil.rmtree(profile, ignore_errors=True)


def css(driver, selector):
    from selenium.webdriver.common.by import By
    return driver.find_elements(By.CSS_SELECTOR, selector)


def click(driver, selector):
    css(driver, selector)[0].click()


def open_page(driver, url):
    driver.get(url)
    driver.get_log("browser")  # start each page with an empty console log


def no_script_errors(driver):
    severe = [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    assert severe == [], severe
