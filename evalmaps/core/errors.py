"""Errors with messages meant for people: what is wrong, where, and what to do."""

from __future__ import annotations

import re

from evalmaps.core.text import bidi_marked, clip, listing

MAX_QUOTED = 100  # characters of a user's input quoted back in a message
MAX_LISTED = 20  # names listed in a message before "and N more"
# characters of a data error's problem: the start (what is wrong) and the end (what to do) of a
# longer one are kept, what it quoted in between is cut (a header of 100 KB named as a column)
MAX_ERROR = 1000
_LONG_WORD = re.compile(r"\S{%d,}" % (MAX_QUOTED + 1))  # a text quoted whole: no spaces


class EvalmapsError(Exception):
    """Base class: ``str(err)`` is a one- or two-sentence message fit to show a user."""


class DataError(EvalmapsError, ValueError):
    """A data or catalog file that fails validation.

    ``where`` names the file (and row or column when known); the message says what to fix.
    """

    def __init__(self, problem: str, *, file: str | None = None, row: int | None = None,
                 column: str | None = None) -> None:
        self.problem = clipped_problem(problem)
        self.file = file
        self.row = row
        self.column = column
        super().__init__(self.message)

    @property
    def where(self) -> str:
        parts = []
        if self.file:
            parts.append(self.file)
        if self.row is not None:
            parts.append(f"row {self.row}")
        if self.column is not None:
            parts.append(f"column '{clip(self.column, MAX_QUOTED)}'")
        return ", ".join(parts)

    @property
    def message(self) -> str:
        return f"{self.where}: {self.problem}" if self.where else self.problem


def clipped_problem(problem: str) -> str:
    """A data error's problem of at most :data:`MAX_ERROR` characters: a longer one (it quoted
    a file's long text, a header of 100 KB) keeps its start and its end (the fix), and says what
    was cut between them. A run of more than :data:`MAX_QUOTED` characters without a space
    (quoted from a file) is clipped to that first."""
    problem = _LONG_WORD.sub(lambda m: clip(m.group(), MAX_QUOTED), str(problem))
    if len(problem) <= MAX_ERROR:
        return problem
    keep = MAX_ERROR - 40  # room for the note of the cut
    head = keep * 2 // 3
    return (f"{problem[:head]} … [{len(problem) - keep:,} characters cut] … "
            f"{problem[len(problem) - (keep - head):]}")


class UnknownFigure(EvalmapsError, KeyError):
    def __init__(self, figure_id: str, known: list[str], gone: str | None = None) -> None:
        self.figure_id = figure_id
        super().__init__(figure_id)
        self.msg = (f"There is no figure '{clip(figure_id, MAX_QUOTED)}'. Pick one of: "
                    f"{listing(known, MAX_LISTED, 'see /api/figures')}.")
        if gone is not None:  # a watched folder's figure whose files were removed
            self.msg = (f"The figure '{clip(figure_id, MAX_QUOTED)}' has no data file now: the "
                        f"files it came from in {clip(gone, MAX_QUOTED)} were removed. It comes "
                        f"back when they are written again; meanwhile pick one of: "
                        f"{listing(known, MAX_LISTED, 'see /api/figures')}.")

    def __str__(self) -> str:  # KeyError would repr() the key
        return self.msg


class UnknownPanel(EvalmapsError, KeyError):
    def __init__(self, key: str, hint: str = "") -> None:
        super().__init__(key)
        self.msg = f"There is no panel '{clip(key, MAX_QUOTED)}'." + (f" {hint}" if hint else "")

    def __str__(self) -> str:
        return self.msg


MAX_PROBLEM = 1000  # characters of one start-up problem line
_BREAKS = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]+")


def problem_line(text: str) -> str:
    """A start-up problem as one line of text (log, /healthz, the app's banner): line breaks and
    other control characters become spaces, bidirectional controls are written out (a file
    named with U+202E reads as it is); at most MAX_PROBLEM characters."""
    return clip(bidi_marked(_BREAKS.sub(" ", str(text)).strip()), MAX_PROBLEM)


def not_served(exc: DataError) -> str:
    """The problem line of a file that is skipped at start-up."""
    return problem_line(f"Not served: {exc}")
