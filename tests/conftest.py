"""Shared fixtures. Browser tests use dash[testing]'s dash_duo with the system Chromium, headless."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

pytest_plugins = ["tests.s3_server"]  # s3_endpoint, s3_bucket: a real S3 server on loopback

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
EXTERNAL = SHARED / "external" / "meta-learning-logic"


def pytest_configure(config):
    """The suite's cache of validated cells and its upload store live in temporary folders (the
    app's defaults are the user's cache and data folders), so test files never pile up there.
    The suite runs on every core (pytest-xdist, ``-n auto`` in pyproject.toml's ``addopts``; a
    file's tests stay on one worker); ``-n 0`` runs it in this process."""
    import tempfile

    os.environ.setdefault("EVALMAPS_CACHE", tempfile.mkdtemp(prefix="evalmaps-test-cache-"))
    os.environ.setdefault("EVALMAPS_STORE", tempfile.mkdtemp(prefix="evalmaps-test-store-"))
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")  # gw0, gw1, ... under pytest-xdist
    if worker.startswith("gw") and worker[2:].isdigit():
        # dash[testing] numbers its servers' ports from 8050 in each process: each worker
        # takes a range of its own, so that no test's browser ever asks another worker's app
        from components.dash_internals import number_test_servers_from

        number_test_servers_from(20000 + 500 * int(worker[2:]))


def _browser_available() -> bool:
    return bool((os.environ.get("DASH_TEST_CHROMEPATH") or shutil.which("chromium")
                 or shutil.which("chromium-browser") or shutil.which("google-chrome"))
                and shutil.which("chromedriver"))


def pytest_collection_modifyitems(config, items):
    """Every test under tests/browser/ or using dash_duo is marked ``browser`` (so that the fast
    tier, ``-m "not browser and not server"``, leaves it out whatever its file says). Without
    Chromium + chromedriver, browser tests skip locally, and fail the run in CI."""
    for item in items:
        if ("dash_duo" in getattr(item, "fixturenames", ())
                or item.nodeid.startswith("tests/browser/")) \
                and item.get_closest_marker("browser") is None:
            item.add_marker(pytest.mark.browser)
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
                 "--window-size=1400,1000",
                 # no smooth scrolling (Bootstrap scrolls smoothly unless motion is reduced):
                 # a click on an element below the fold lands where it is, not mid-scroll
                 "--force-prefers-reduced-motion"):
        options.add_argument(flag)
    return options


@pytest.fixture(scope="session")
def catalog():
    from evalmaps.catalog.load import load_catalog

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


# One Chrome for the whole session. dash[testing]'s dash_duo starts and quits a Chrome for each
# test (about 2 s of a ~3 s set-up on this machine, for ~100 browser tests). Here dash_duo keeps
# its own server per test (a new port each time, so each test's page is a new origin with empty
# storage), but takes the session's Chrome and gives it a fresh tab: a new tab has no script
# injected by an earlier test, no leftover device settings, and the next test's downloads folder.
@pytest.fixture(scope="session")
def _session_chrome():
    pool: dict = {}
    yield pool
    driver = pool.get("driver")
    if driver is not None:
        try:
            driver.quit()
        except Exception:  # noqa: BLE001 - the browser may be gone already
            pass


def fresh_tab(driver, download_path: str) -> None:
    """Leave ``driver`` with one new tab, the default size and timeouts, no cookies, no logs."""
    old = list(driver.window_handles)
    driver.switch_to.new_window("tab")
    new = driver.current_window_handle
    for handle in old:
        driver.switch_to.window(handle)
        driver.close()
    driver.switch_to.window(new)
    driver.execute_cdp_cmd("Page.bringToFront", {})  # a tab not in front gets no focus events
    driver.set_window_size(1400, 1000)
    driver.set_script_timeout(30)
    driver.set_page_load_timeout(300)
    driver.execute_cdp_cmd("Network.clearBrowserCookies", {})
    driver.execute_cdp_cmd("Page.setDownloadBehavior", {"behavior": "allow", "downloadPath": download_path})
    driver.get_log("browser")  # what the earlier test's page logged is not this test's


@pytest.fixture
def dash_duo(request, dash_thread_server, tmpdir, _session_chrome):
    """dash[testing]'s dash_duo, with the session's Chrome (see :func:`fresh_tab`)."""
    from dash.testing.composite import DashComposite
    from selenium.common.exceptions import WebDriverException

    class SessionChrome(DashComposite):
        def get_webdriver(self):
            driver = _session_chrome.get("driver")
            if driver is not None:
                try:
                    fresh_tab(driver, self.download_path)
                    return driver
                except WebDriverException:  # an earlier test left it unusable: start another
                    try:
                        driver.quit()
                    except WebDriverException:
                        pass
            driver = _session_chrome["driver"] = super().get_webdriver()
            return driver

        def __exit__(self, exc_type, exc_val, traceback):
            """The session quits the browser, not each test. The page is left before the test's
            server stops, as a quit browser would be: a request arriving while dash[testing] kills
            the server's threads can leave the server's stop waiting for ever."""
            try:
                self.driver.get("about:blank")
            except WebDriverException:
                _session_chrome.pop("driver", None)

    with SessionChrome(
        server=dash_thread_server,
        browser=request.config.getoption("webdriver"),
        remote=request.config.getoption("remote"),
        remote_url=request.config.getoption("remote_url"),
        headless=request.config.getoption("headless"),
        options=request.config.hook.pytest_setup_options(),
        download_path=tmpdir.mkdir("download").strpath,
        percy_assets_root=request.config.getoption("percy_assets"),
        percy_finalize=request.config.getoption("nopercyfinalize"),
        pause=request.config.getoption("pause"),
    ) as dc:
        yield dc
