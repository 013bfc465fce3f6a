"""Benchmarks of evalmaps at scale: run ``python benchmarks/run.py`` (see README.md here)."""
