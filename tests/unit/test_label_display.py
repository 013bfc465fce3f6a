"""Labels as they are shown (issue 37, red team 11): a label holding "%{" is shown as typed with
nothing inserted into it (a zero-width space would be copied with it)."""

from __future__ import annotations

import html
import re

from components.theme import text

TEMPLATE = "a%{x}b"
PLOTLY_TEMPLATE = re.compile(r"%\{([^\s%{}:]*)")  # how plotly.js finds a template variable


def test_a_percent_brace_label_is_shown_as_typed_with_nothing_inserted():
    shown = text(TEMPLATE)
    assert "\u200b" not in shown and not PLOTLY_TEMPLATE.search(shown)
    assert html.unescape(shown) == TEMPLATE  # plotly.js turns &#37; back into %
