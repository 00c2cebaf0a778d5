"""Headless Chromium (Debian's ``chromium`` + ``chromium-driver``) and the demo to point it at."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from live_server import LiveServer, free_port, serve
from selenium import webdriver
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.support.ui import WebDriverWait

CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
)


def _find(*names: str) -> str | None:
    return next((path for name in names if (path := shutil.which(name))), None)


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """The demo site (``python -m io_bindings.demo``) on a free port, data in a temporary dir."""
    port = free_port()
    env = {"PORT": str(port), "DEMO_DIR": str(tmp_path_factory.mktemp("demo"))}
    with serve([sys.executable, "-m", "io_bindings.demo"], port, env=env) as live:
        yield live


def start_chromium(profile: Path) -> webdriver.Chrome:
    """A headless Chromium with its own profile dir; skips only when it is not installed."""
    binary = _find("chromium", "chromium-browser")
    driver_path = _find("chromedriver", "chromium-driver")
    if binary is None or driver_path is None:
        pytest.skip("chromium and chromium-driver are not installed (run `make system-deps`)")
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for flag in (*CHROMIUM_FLAGS, f"--user-data-dir={profile}"):
        options.add_argument(flag)
    try:
        driver = webdriver.Chrome(options=options, service=Service(executable_path=driver_path))
    except WebDriverException as err:
        pytest.fail(f"chromium is installed but did not start: {err.msg}")
    driver.set_page_load_timeout(30)
    return driver


def wait(browser: webdriver.Chrome, seconds: float = 10) -> WebDriverWait[webdriver.Chrome]:
    """Waits through page loads: a condition that fails on a node of the page being replaced
    (missing, stale, or "not in the document", as Chromium says mid-navigation) is asked again."""
    return WebDriverWait(browser, seconds, ignored_exceptions=(WebDriverException,))


def running_chromium(profile: Path) -> Iterator[webdriver.Chrome]:
    """A fresh headless Chromium on ``profile``, quit afterwards."""
    driver = start_chromium(profile)
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[webdriver.Chrome]:
    """A fresh headless Chromium (own profile dir)."""
    yield from running_chromium(tmp_path / "profile")


@pytest.fixture
def second_browser(tmp_path: Path) -> Iterator[webdriver.Chrome]:
    """Another fresh headless Chromium: another profile, nothing shared with ``browser``."""
    yield from running_chromium(tmp_path / "second-profile")
