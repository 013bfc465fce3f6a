"""Where the app's run-time files are: ``data/`` (the built-in figures), ``assets/`` (the pages'
CSS and JS) and ``gunicorn.conf.py`` (the production server's settings). They live at the
repository root, outside any package.

:data:`SHARED` declares them, once: ``setup.py`` reads it from this file (without importing the
package) and copies them into a wheel as ``evalmaps/_share/``; ``MANIFEST.in`` puts them in an
sdist (``tests/unit/test_runfiles.py`` checks that it names the same). A checkout, or an editable
install, has them at the repository root, beside this package; an installed wheel has them inside
it, so it needs no checkout and runs from any working directory.

Each layer asks for its own: the catalog for ``data``
(:func:`evalmaps.catalog.resources.default_data_dir`), the web app and the static site for
``assets``, the production server for ``gunicorn.conf.py``
(:func:`evalmaps.service.server.gunicorn_conf`).
"""

from __future__ import annotations

from pathlib import Path

SHARED = ("data", "assets", "gunicorn.conf.py")  # setup.py reads this assignment
# the scripts of assets/ that only the static site's pages load (evalmaps.service.bundle ships
# them); the live pages leave them out (app.py's ``assets_ignore``): the live app never calls
# the in-browser slicing, which the site's pages do
SITE_ONLY_SCRIPTS = ("evalmaps-slice.js",)

PACKAGE = Path(__file__).resolve().parents[1]  # evalmaps/
INSTALLED = PACKAGE / "_share"  # in a wheel (a checkout has none: .gitignore)
CHECKOUT = PACKAGE.parent  # the repository root


def runfile(name: str) -> Path:
    """The path of one of :data:`SHARED`: the installed copy if there is one, else the
    checkout's."""
    if name not in SHARED:
        raise ValueError(f"{name!r} is not one of the app's run-time files {SHARED}")
    return (INSTALLED if INSTALLED.is_dir() else CHECKOUT) / name
