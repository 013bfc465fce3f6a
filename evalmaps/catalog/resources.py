"""Where the built-in figures are: ``data/`` of the checkout, or the copy a wheel installs inside
the package (:mod:`evalmaps.core.runfiles` declares the run-time files and finds them)."""

from __future__ import annotations

from pathlib import Path

from evalmaps.core.runfiles import runfile


def default_data_dir() -> Path:
    """The built-in figures: ``data/`` of the checkout, or the copy a wheel installs inside the
    package."""
    return runfile("data")
