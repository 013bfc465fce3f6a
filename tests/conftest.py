"""Shared fixtures. Browser tests use dash[testing]'s dash_duo with the system Chromium, headless."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
EXTERNAL = SHARED / "external" / "meta-learning-logic"


def pytest_configure(config):
    """The suite's cache of validated cells and its upload store live in temporary folders (the
    app's defaults are the user's cache and data folders), so test files never pile up there."""
    import tempfile

    os.environ.setdefault("EVALMAPS_CACHE", tempfile.mkdtemp(prefix="evalmaps-test-cache-"))
    os.environ.setdefault("EVALMAPS_STORE", tempfile.mkdtemp(prefix="evalmaps-test-store-"))


def _browser_available() -> bool:
    return bool((os.environ.get("DASH_TEST_CHROMEPATH") or shutil.which("chromium")
                 or shutil.which("chromium-browser") or shutil.which("google-chrome"))
                and shutil.which("chromedriver"))


def pytest_collection_modifyitems(config, items):
    """Without Chromium + chromedriver, browser tests skip locally, and fail the run in CI."""
    if _browser_available():
        return
    reason = ("browser tests need Chromium and chromedriver "
              "(Debian: apt-get install chromium chromium-driver)")
    if os.environ.get("CI"):
        raise pytest.UsageError(f"CI: {reason}")
    for item in items:
        if "dash_duo" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.skip(reason=reason))


def pytest_setup_options():
    """Chrome options for dash_duo: the system Chromium, no network chatter of its own."""
    from selenium.webdriver.chrome.options import Options

    options = Options()
    binary = os.environ.get("DASH_TEST_CHROMEPATH") or shutil.which("chromium") \
        or shutil.which("chromium-browser") or shutil.which("google-chrome")
    if binary:
        options.binary_location = binary
    for flag in ("--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--no-first-run", "--disable-quic", "--disable-default-apps",
                 "--window-size=1400,1000"):
        options.add_argument(flag)
    return options


@pytest.fixture(scope="session")
def catalog():
    from evalmaps import load_catalog

    return load_catalog()


@pytest.fixture(scope="session")
def dash_app():
    """The real app, built once per test session (Dash Pages register globally)."""
    import app as webapp

    return webapp.app


@pytest.fixture()
def client(dash_app):
    return dash_app.server.test_client()


@pytest.fixture()
def external_dir():
    if not EXTERNAL.is_dir():
        pytest.skip("../shared/external is absent: published-table tests skipped")
    return EXTERNAL
