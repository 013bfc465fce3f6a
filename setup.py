"""Build step for the wheel (everything else is in pyproject.toml).

The app reads three things at run time that live at the repository root, outside any package:
``data/`` (the built-in figures), ``assets/`` (the pages' CSS and JS) and ``gunicorn.conf.py``
(the production server's settings). A wheel carries them inside the ``evalmaps`` package, as
``evalmaps/_share/``; :mod:`evalmaps.catalog.resources` looks there first and otherwise at the repository
root (a checkout, or an editable install, reads them in place). ``MANIFEST.in`` puts the same
files in an sdist.
"""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
SHARED = ("data", "assets", "gunicorn.conf.py")  # also evalmaps.catalog.resources.SHARED
SKIP = shutil.ignore_patterns("__pycache__", "*.pyc", ".*")


class build_py_with_share(build_py):
    """setuptools' build_py, then a copy of the run-time files into ``evalmaps/_share``."""

    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):
            return  # an editable install reads them from the checkout
        share = Path(self.build_lib) / "evalmaps" / "_share"
        shutil.rmtree(share, ignore_errors=True)  # no file left over from an earlier build
        share.mkdir(parents=True)
        for name in SHARED:
            source = ROOT / name
            if source.is_dir():
                shutil.copytree(source, share / name, ignore=SKIP)
            else:
                shutil.copy2(source, share / name)


setup(cmdclass={"build_py": build_py_with_share})
