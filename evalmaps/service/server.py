"""``evalmaps serve``'s production server: gunicorn, run in-process, with the settings of
``gunicorn.conf.py`` (the same file ``gunicorn app:server`` reads from the repository root, and
that a wheel carries as ``evalmaps/_share/gunicorn.conf.py``).

Settings, lowest first: ``gunicorn.conf.py``, then ``GUNICORN_CMD_ARGS`` (as for the ``gunicorn``
command), then ``evalmaps serve``'s own options: the address (``--host``, ``--port``) always, the
number of workers when ``--workers`` is given. The app is built once, before gunicorn starts (as
``preload_app`` does), so bad data stops start-up with one message; workers fork it.
"""

from __future__ import annotations

import importlib.util

from gunicorn.app.base import BaseApplication

from evalmaps.catalog.resources import resource


def config_file_settings(path=None) -> dict:
    """The settings a gunicorn config file sets (its module-level names), by executing it as
    gunicorn does."""
    path = path or resource("gunicorn.conf.py")
    spec = importlib.util.spec_from_file_location("evalmaps_gunicorn_conf", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return {name: value for name, value in vars(module).items() if not name.startswith("_")}


class Production(BaseApplication):
    """gunicorn serving one already-built WSGI app."""

    def __init__(self, wsgi_app, bind: str, workers: int | None = None) -> None:
        self.wsgi_app = wsgi_app
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
        return self.wsgi_app
