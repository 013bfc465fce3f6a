"""What a load meets and can go on without: :class:`Problems`, one collector passed down the
loaders (``load_catalog``, ``load_folder``, the watched folders, start-up) instead of a list
or None.

A collector (``Problems()``) keeps each problem as one line (:func:`evalmaps.core.errors.
problem_line`: a file not served, a figure renamed, a manifest not checked), in the order met,
and the load goes on without what it could not read: what ``evalmaps serve`` does, showing the
lines in the app's banner and ``/healthz``. A strict one (:data:`STRICT`, the loaders' default,
or ``Problems(strict=True)``) raises the first problem's error instead, whose message names the
file and the fix; a warning, which asks nothing of the data (a figure given another id), is
logged. ``load_catalog(folder)`` (:mod:`evalmaps.catalog.load`) is strict;
``load_catalog(folder, problems=Problems())`` serves what it can.

Compare's grid of two labels takes one too (``label_grid``, ``grid_query``): strict, a choice
that does not fit raises its ``CompareError``; a collector notes it and the default is used.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator, Sequence

from evalmaps.core.errors import DataError, not_served, problem_line

log = logging.getLogger("evalmaps.data")


class Problems(Sequence):
    """The problems a load met, one line each (a sequence of texts), or, ``strict``, the first
    one raised."""

    def __init__(self, lines: Iterable[str] = (), strict: bool = False):
        self.strict = strict
        self._lines: list[str] = []
        for line in lines:
            self.add(line)

    def add(self, line: str, error: Exception | None = None) -> None:
        """A problem: its line kept, or, strict, ``error`` raised (a :class:`DataError` of the
        line when there is none)."""
        if self.strict:
            raise error if error is not None else DataError(line)
        self._lines.append(line)

    def not_served(self, error: DataError) -> None:
        """A file that cannot be served: ``Not served: <its error>``, or, strict, the error."""
        if self.strict:
            raise error
        self._lines.append(not_served(error))

    def warn(self, text: str) -> None:
        """A warning (nothing is left out): its line kept, or, strict, logged."""
        line = problem_line(text)
        if self.strict:
            log.warning(line)
        else:
            self._lines.append(line)

    def __getitem__(self, index):
        return self._lines[index]

    def __len__(self) -> int:
        return len(self._lines)

    def __iter__(self) -> Iterator[str]:
        return iter(self._lines)

    def __eq__(self, other) -> bool:
        if isinstance(other, Problems):
            return self._lines == other._lines and self.strict == other.strict
        if isinstance(other, (list, tuple)):
            return self._lines == list(other)
        return NotImplemented

    __hash__ = None  # a collector changes

    def __repr__(self) -> str:
        return f"Problems({self._lines!r}{', strict=True' if self.strict else ''})"


# the loaders' default: the first problem raises (it keeps no line, so one serves every load)
STRICT = Problems(strict=True)
