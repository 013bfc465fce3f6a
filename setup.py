"""Build step for the wheel (everything else is in pyproject.toml).

The app reads three things at run time that live at the repository root, outside any package:
``data/`` (the built-in figures), ``assets/`` (the pages' CSS and JS) and ``gunicorn.conf.py``
(the production server's settings). A wheel carries them inside the ``evalmaps`` package, as
``evalmaps/_share/``; :mod:`evalmaps.core.runfiles` declares them (``SHARED``, read here from
that file without importing the package) and finds them: there first, otherwise at the
repository root (a checkout, or an editable install, reads them in place). ``MANIFEST.in`` puts
the same files in an sdist.
"""

import ast
import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
RUNFILES = ROOT / "evalmaps" / "core" / "runfiles.py"
SKIP = shutil.ignore_patterns("__pycache__", "*.pyc", ".*")


def shared() -> tuple[str, ...]:
    """``SHARED`` of evalmaps/core/runfiles.py, read as a literal."""
    for node in ast.parse(RUNFILES.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == ["SHARED"]:
            return tuple(ast.literal_eval(node.value))
    raise RuntimeError(f"{RUNFILES} assigns no SHARED")


class build_py_with_share(build_py):
    """setuptools' build_py, then a copy of the run-time files into ``evalmaps/_share``."""

    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):
            return  # an editable install reads them from the checkout
        share = Path(self.build_lib) / "evalmaps" / "_share"
        shutil.rmtree(share, ignore_errors=True)  # no file left over from an earlier build
        share.mkdir(parents=True)
        for name in shared():
            source = ROOT / name
            if source.is_dir():
                shutil.copytree(source, share / name, ignore=SKIP)
            else:
                shutil.copy2(source, share / name)


setup(cmdclass={"build_py": build_py_with_share})
