"""Dash Pages: one module per page, its layout next to its callbacks."""
