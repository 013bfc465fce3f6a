"""``evalmaps serve``'s production server: gunicorn, run in-process, with the settings of
``gunicorn.conf.py`` (the same file ``gunicorn app:server`` reads from the repository root, and
that a wheel carries as ``evalmaps/_share/gunicorn.conf.py``), serving the web app it loads by
name, :data:`WEB_APP`, as the ``gunicorn`` command does. The domain package never imports the
web app: it names it.

Settings, lowest first: ``gunicorn.conf.py``, then ``GUNICORN_CMD_ARGS`` (as for the ``gunicorn``
command), then ``evalmaps serve``'s own options: the address (``--host``, ``--port``) always, the
number of workers when ``--workers`` is given. The app is built once, before gunicorn starts (as
``preload_app`` does), so bad data stops start-up with one message; workers fork it.
"""

from __future__ import annotations

import importlib.util
import pkgutil
from pathlib import Path

from gunicorn import util
from gunicorn.app.base import BaseApplication

from evalmaps.core.runfiles import runfile

WEB_APP = "app:server"  # the WSGI app (Flask), as `gunicorn app:server` names it
DASH_APP = "app:app"  # the Dash app itself: Flask's development server with Dash's dev tools


def web_app(name: str = WEB_APP):
    """The web app's object ``name`` (``module:attribute``), imported by name. The app module
    builds it on first use with the settings given to
    :func:`evalmaps.service.settings.serve_with` (else the environment's)."""
    return pkgutil.resolve_name(name)


def gunicorn_conf() -> Path:
    """gunicorn's settings file: the checkout's ``gunicorn.conf.py``, or the copy a wheel
    installs inside the package."""
    return runfile("gunicorn.conf.py")


def config_file_settings(path=None) -> dict:
    """The settings a gunicorn config file sets (its module-level names), by executing it as
    gunicorn does."""
    path = path or gunicorn_conf()
    spec = importlib.util.spec_from_file_location("evalmaps_gunicorn_conf", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return {name: value for name, value in vars(module).items() if not name.startswith("_")}


class Production(BaseApplication):
    """gunicorn serving the WSGI app ``app_uri`` names (``module:attribute``), which it imports
    as the ``gunicorn`` command imports its argument."""

    def __init__(self, app_uri: str, bind: str, workers: int | None = None) -> None:
        self.app_uri = app_uri
        self.options = {"bind": [bind]}
        if workers is not None:
            self.options["workers"] = workers
        super().__init__(prog="evalmaps serve")

    def load_config(self) -> None:
        known = self.cfg.settings
        for name, value in config_file_settings().items():
            if name in known:
                self.cfg.set(name.lower(), value)
        env_args = self.cfg.parser().parse_args(self.cfg.get_cmd_args_from_env())
        for name, value in vars(env_args).items():
            if value is not None and name != "args":
                self.cfg.set(name.lower(), value)
        for name, value in self.options.items():
            self.cfg.set(name, value)

    def load(self):
        return util.import_app(self.app_uri)
