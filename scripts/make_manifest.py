"""Regenerate data/manifest.json (the sha256 and cell count of every built-in figure file) after
changing or adding a file in data/:

    python scripts/make_manifest.py

The same as ``evalmaps manifest data``; every file must validate first.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # this checkout's evalmaps, not an installed one

from evalmaps.service.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main(["manifest", str(ROOT / "data"), *sys.argv[1:]]))
