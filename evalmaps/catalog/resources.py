"""Where the app's run-time files are: ``data/`` (the built-in figures), ``assets/`` (the pages'
CSS and JS) and ``gunicorn.conf.py`` (the production server's settings).

A checkout, or an editable install, has them at the repository root, beside this package. A wheel
carries them inside this package, as ``evalmaps/_share/`` (``setup.py``'s build step copies them
there), so an installed evalmaps needs no checkout and runs from any working directory.
"""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1]  # evalmaps/
INSTALLED = PACKAGE / "_share"  # in a wheel (a checkout has none: .gitignore)
CHECKOUT = PACKAGE.parent  # the repository root
SHARED = ("data", "assets", "gunicorn.conf.py")  # as setup.py copies them


def resource(name: str) -> Path:
    """The path of one of :data:`SHARED`: the installed copy if there is one, else the
    checkout's."""
    if name not in SHARED:
        raise ValueError(f"{name!r} is not one of the app's run-time files {SHARED}")
    return (INSTALLED if INSTALLED.is_dir() else CHECKOUT) / name


def default_data_dir() -> Path:
    """The built-in figures: ``data/`` of the checkout, or the copy a wheel installs inside the
    package (:func:`resource`)."""
    return resource("data")
