"""The app as a user installs it: a wheel (not the checkout, not an editable install), and
``evalmaps serve`` run from an empty folder.

The wheel is built from a copy of the repository (``pip wheel . --no-deps --no-build-isolation``,
so no network) and installed with ``pip install --no-deps`` into a fresh virtual environment.
The environment sees the test interpreter's site-packages (for the dependencies) as a plain
``sys.path`` entry, through a ``.pth`` line: the ``.pth`` files in that folder are then not run,
so an editable install of evalmaps there (its import finder) cannot answer for a module the wheel
lacks. ``test_the_wheel_is_what_runs`` checks that every module of the app comes from the
environment's site-packages. Servers listen on 127.0.0.1 only, in their own process group, and
are stopped at the end of each test.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import site
import subprocess
import sys
import sysconfig
import urllib.error
import urllib.request
import zipfile
from pathlib import Path

import pytest

from tests.servers import HOST, children_of, free_port, stop_gunicorn, wait_until_serving

pytestmark = pytest.mark.server

ROOT = Path(__file__).resolve().parents[2]
START_TIMEOUT = 30.0
STOP_TIMEOUT = 10.0
BUILD_TIMEOUT = 120
PROJECT_MODULES = ("evalmaps", "app", "components", "layouts")  # the top-level names, exactly
# not needed to build the wheel, and large or changing while tests run
NOT_COPIED = shutil.ignore_patterns(".git", "build", "dist", "*.egg-info", "__pycache__", "*.pyc",
                                    ".pytest_cache", ".hypothesis", ".venv", "_share", "tests",
                                    "docs", "benchmarks", "scripts", ".ci", "node_modules")

OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # 127.0.0.1 only


def fetch(base: str, path: str, timeout: float = 15.0) -> tuple[int, dict, bytes]:
    try:
        with OPENER.open(base + path, timeout=timeout) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as err:
        with err:
            return err.code, dict(err.headers), err.read()


class Venv:
    def __init__(self, path: Path, wheel: Path):
        self.path = path
        self.wheel = wheel
        self.python = path / "bin" / "python"
        self.evalmaps = path / "bin" / "evalmaps"
        self.site = Path(subprocess.run(
            [self.python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
            capture_output=True, text=True, check=True, env=clean_env()).stdout.strip())


def clean_env(**extra: str) -> dict[str, str]:
    """The environment without anything that points Python at the checkout or sets the app's
    or gunicorn's settings."""
    drop = ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "VIRTUAL_ENV", "GUNICORN_CMD_ARGS",
            "WEB_CONCURRENCY", "PORT")
    env = {k: v for k, v in os.environ.items()
           if k not in drop and not (k.startswith("EVALMAPS_") and k != "EVALMAPS_CACHE")}
    env["PYTHONNOUSERSITE"] = "1"
    env.update(extra)
    return env


@pytest.fixture(scope="module")
def venv(tmp_path_factory) -> Venv:
    base = tmp_path_factory.mktemp("wheel")
    source = base / "source"
    shutil.copytree(ROOT, source, ignore=NOT_COPIED)
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", ".", "--no-deps", "--no-build-isolation",
         "--no-index", "--no-cache-dir", "-q", "-w", str(base / "dist")],
        cwd=source, env=clean_env(), capture_output=True, text=True, timeout=BUILD_TIMEOUT)
    assert built.returncode == 0, built.stdout + built.stderr
    (wheel,) = (base / "dist").glob("evalmaps-*.whl")

    env_dir = base / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env_dir)], check=True,
                   env=clean_env(), timeout=BUILD_TIMEOUT)
    purelib = Path(subprocess.run(
        [env_dir / "bin" / "python", "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        capture_output=True, text=True, check=True, env=clean_env()).stdout.strip())
    # the dependencies: the test interpreter's site-packages, as plain path entries
    deps = [p for p in dict.fromkeys([*site.getsitepackages(), sysconfig.get_path("purelib")])
            if Path(p).is_dir()]
    (purelib / "_evalmaps_test_dependencies.pth").write_text("\n".join(deps) + "\n")
    installed = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(env_dir / "bin" / "python"), "install",
         "--no-deps", "--no-index", "-q", str(wheel)],
        env=clean_env(), capture_output=True, text=True, timeout=BUILD_TIMEOUT)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    return Venv(env_dir, wheel)


class Served:
    def __init__(self, proc: subprocess.Popen, base: str, log_path: Path):
        self.proc = proc
        self.base = base
        self.log_path = log_path

    def log(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-4000:]
        except OSError:
            return ""


@pytest.fixture()
def serve(venv, tmp_path):
    """Start ``evalmaps serve ARGS --port P`` of the wheel from an empty folder; wait until it
    answers /healthz; stop its process group at the end of the test."""
    started: list[tuple[Served, list[int]]] = []

    def start(*args: str, workers: int = 1) -> Served:
        cwd = tmp_path / f"empty-{len(started)}"
        cwd.mkdir()
        port = free_port()
        log_path = tmp_path / f"serve-{len(started)}.log"
        with open(log_path, "wb") as log:
            proc = subprocess.Popen([str(venv.evalmaps), "serve", *args, "--port", str(port)],
                                    cwd=cwd, env=clean_env(), stdout=log, stderr=subprocess.STDOUT,
                                    stdin=subprocess.DEVNULL, start_new_session=True)
        served = Served(proc, f"http://{HOST}:{port}", log_path)
        entry = (served, [])
        started.append(entry)

        def healthy() -> bool:
            status, _, body = fetch(served.base, "/healthz", timeout=2)
            return status == 200 and json.loads(body)["status"] == "ok"

        entry[1].extend(wait_until_serving(proc, healthy, served.log, START_TIMEOUT, workers))
        assert os.listdir(cwd) == [], "evalmaps serve wrote into its working directory"
        return served

    yield start
    leftovers = []
    for served, workers in started:
        leftovers += stop_gunicorn(served.proc, workers, STOP_TIMEOUT)
    assert not leftovers, f"server processes outlived the test: {leftovers}"


# --------------------------------------------------------------------------- tests

def test_the_wheel_is_what_runs(venv, tmp_path):
    """The wheel's modules, run-time files and entry point, none of the checkout's."""
    probe = (
        "import json, sys\n"
        "import app\n"
        "from evalmaps.service.server import gunicorn_conf\n"
        "from evalmaps.service.settings import Settings\n"
        "import evalmaps.service.cli, evalmaps.service.server\n"
        "a = app.create_app(Settings(cache_dir=None))\n"
        f"mods = {{n: getattr(m, '__file__', None) for n, m in list(sys.modules.items())"
        f" if n.split('.')[0] in {PROJECT_MODULES!r}}}\n"
        "finders = [repr(f) for f in sys.meta_path]\n"
        "print(json.dumps({'modules': mods, 'finders': finders, 'assets': a.config.assets_folder,"
        " 'data': str(Settings().data_dir), 'conf': str(gunicorn_conf())}))\n")
    out = subprocess.run([venv.python, "-c", probe], cwd=tmp_path, env=clean_env(),
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    seen = json.loads(out.stdout)
    site_packages = str(venv.site) + os.sep
    assert {"app", "layouts._routes", "evalmaps", "evalmaps.service.cli", "evalmaps.service.server", "components",
            "layouts", "layouts.browse", "layouts.compare", "layouts.data",
            "layouts.trends"} <= set(seen["modules"])
    outside = {name: path for name, path in seen["modules"].items()
               if not (path or "").startswith(site_packages)}
    assert outside == {}
    assert not [f for f in seen["finders"] if "editable" in f.lower()]
    share = venv.site / "evalmaps" / "_share"
    assert (seen["assets"], seen["data"], seen["conf"]) == (
        str(share / "assets"), str(share / "data"), str(share / "gunicorn.conf.py"))
    for name in ("data", "assets"):  # the same files as the checkout's, byte for byte
        ours = {p.relative_to(ROOT / name): p.read_bytes()
                for p in sorted((ROOT / name).rglob("*")) if p.is_file()}
        theirs = {p.relative_to(share / name): p.read_bytes()
                  for p in sorted((share / name).rglob("*")) if p.is_file()}
        assert theirs == ours
    assert (share / "gunicorn.conf.py").read_bytes() == (ROOT / "gunicorn.conf.py").read_bytes()
    for own in sorted((ROOT / "evalmaps" / "_bundle").iterdir()):  # evalmaps bundle's pages
        assert (venv.site / "evalmaps" / "_bundle" / own.name).read_bytes() == own.read_bytes()
    assert venv.evalmaps.read_text().startswith(f"#!{venv.python}")


def test_the_wheel_installs_exactly_four_top_level_names(venv):
    """The domain package and the web app's module and two packages, nothing else beside them
    in site-packages (the routes and gunicorn's worker live inside packages)."""
    with zipfile.ZipFile(venv.wheel) as wheel:
        names = {name.split("/", 1)[0] for name in wheel.namelist()}
    top = {name.removesuffix(".py") for name in names if not name.endswith(".dist-info")}
    assert top == set(PROJECT_MODULES)


def test_serve_gives_every_builtin_figure_under_gunicorn(serve, client):
    """From an empty folder: the page, an asset it links, and every built-in figure's cells,
    equal to what the checkout's app answers."""
    served = serve("--workers", "1")
    status, headers, _ = fetch(served.base, "/healthz")
    assert (status, headers["Server"]) == (200, "gunicorn")
    assert len(children_of(served.proc.pid)) == 1  # --workers 1 (gunicorn.conf.py says 2)
    log = served.log()
    assert "Using worker: evalmaps.service.gunicorn_worker.HeadBufferingThreadWorker" in log, log

    status, headers, body = fetch(served.base, "/")
    assert status == 200 and headers["Content-Type"].startswith("text/html")
    html = body.decode("utf-8")
    css = re.findall(r'href="(/assets/evalmaps\.css\?m=[^"]+)"', html)
    assert len(css) == 1, html[:2000]
    status, headers, body = fetch(served.base, css[0])
    assert status == 200 and headers["Content-Type"].startswith("text/css")
    assert body == (ROOT / "assets" / "evalmaps.css").read_bytes()

    builtin = [f["id"] for f in json.loads((ROOT / "data" / "catalog.json").read_text())["figures"]]
    status, _, body = fetch(served.base, "/api/figures")
    assert status == 200
    assert [f["id"] for f in json.loads(body)["figures"]] == builtin
    for figure_id in builtin:
        path = f"/api/figures/{figure_id}/cells"
        status, _, body = fetch(served.base, path)
        expected = client.get(path)
        assert (status, json.loads(body)) == (200, expected.get_json()), figure_id
        assert len(json.loads(body)["cells"]) > 0


def test_serve_debug_is_flasks_development_server(serve):
    served = serve("--debug", workers=0)
    status, headers, body = fetch(served.base, "/healthz")
    assert status == 200
    assert headers["Server"].startswith("Werkzeug/"), headers
    assert "gunicorn" not in served.log()


def test_production_settings_are_gunicorn_conf(monkeypatch):
    """``evalmaps serve``'s gunicorn: gunicorn.conf.py's settings, then GUNICORN_CMD_ARGS, then
    the command's own address and --workers."""
    from evalmaps.service.server import WEB_APP, Production, config_file_settings
    from tests.integration.test_gunicorn_conf import EXPECTED

    for var in ("GUNICORN_CMD_ARGS", "WEB_CONCURRENCY", "PORT"):
        monkeypatch.delenv(var, raising=False)
    conf = config_file_settings()
    assert {k: conf[k] for k in EXPECTED} == EXPECTED

    def settings(cfg) -> dict:
        values = {name: cfg.settings[name].get() for name in EXPECTED}
        values["worker_class"] = cfg.settings["worker_class"].get()
        return values

    cfg = Production(WEB_APP, bind="127.0.0.1:8123").cfg
    assert settings(cfg) == {**EXPECTED, "bind": ["127.0.0.1:8123"]}
    monkeypatch.setenv("GUNICORN_CMD_ARGS", "--threads 4 --bind 0.0.0.0:9 --workers 5")
    cfg = Production(WEB_APP, bind="127.0.0.1:8123", workers=3).cfg
    assert settings(cfg) == {**EXPECTED, "bind": ["127.0.0.1:8123"], "threads": 4, "workers": 3}
    cfg = Production(WEB_APP, bind="127.0.0.1:8123").cfg
    assert settings(cfg) == {**EXPECTED, "bind": ["127.0.0.1:8123"], "threads": 4, "workers": 5}
