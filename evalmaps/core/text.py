"""How numbers are written: one vocabulary for the API, hovers, tables and sentences.

A value is written with its figure's decimals (as many as the data file writes, see
:func:`evalmaps.catalog.load.validate_cells`), so a reader sees exactly what the file holds. Derived
numbers follow two rules:

- a **mean** (or a derived panel's cell) shows up to :data:`MEAN_EXTRA` more decimals than the
  data it averages, trailing zeros trimmed down to the data's own decimals: the mean of 52.5 and
  56.3 is ``54.4``, of 52.5 and 56.2 ``54.35``;
- a **difference** of two values is written like a value, with a sign (``+3.8``, ``-0.3``),
  and counted in the metric's terms (:func:`change`): percentage points where values are
  written as percent (``+3.8 points``), the metric's unit otherwise, nothing for a plain number
  (``+0.0444`` of a fraction).

No decimals count ever exceeds :data:`MAX_DECIMALS`. Missing values read :data:`NOT_REPORTED`.
"""

from __future__ import annotations

import math
import re

import numpy as np

MAX_DECIMALS = 4
MEAN_EXTRA = 2
NOT_REPORTED = "not reported"
DASH = "—"  # a statistic that does not apply
MINUS = "\u2212"


def finite(value) -> bool:
    return value is not None and math.isfinite(value)


def places(decimals: int) -> int:
    """``decimals`` kept within 0..MAX_DECIMALS."""
    return max(0, min(int(decimals), MAX_DECIMALS))


def number(value: float, decimals: int, min_decimals: int | None = None) -> str:
    """``decimals`` decimals; with ``min_decimals``, trailing zeros are trimmed down to it.

    ``-0.0`` is written ``0.0``.
    """
    decimals = places(decimals)
    text = f"{value:.{decimals}f}"
    if min_decimals is not None and min_decimals < decimals and "." in text:
        whole, frac = text.split(".")
        frac = frac.rstrip("0").ljust(places(min_decimals), "0")
        text = f"{whole}.{frac}" if frac else whole
    return "0" + text[2:] if text.startswith("-0") and float(text) == 0 else text


def signed(value: float, decimals: int, min_decimals: int | None = None) -> str:
    """A difference: '+3.8', '-0.3', '0.0'."""
    text = number(value, decimals, min_decimals)
    return text if text.startswith("-") or float(text) == 0 else "+" + text


def mean_places(decimals: int) -> tuple[int, int]:
    """(most, least) decimals of a mean of values written with ``decimals`` decimals."""
    return places(decimals + MEAN_EXTRA), places(decimals)


def with_unit(text: str, unit: str) -> str:
    """'87.3%', '3.2 ms', '56.3'."""
    if not unit:
        return text
    return f"{text}{unit}" if unit == "%" else f"{text} {unit}"


def _scale(metric) -> tuple[float, int]:
    """(factor, decimals fewer) of a metric written as percent of a fraction (1, 0 otherwise):
    the value is multiplied only to be written, so 0.2534 reads 25.34% (never rounded first)."""
    scale = getattr(metric, "scale", 1) if metric is not None else 1
    return (100.0, 2) if scale == 100 else (1.0, 0)


def shown(metric, v: float, decimals: int) -> tuple[float, int]:
    """A value and its decimals as written for this metric (percent: x100, two decimals fewer)."""
    factor, shift = _scale(metric)
    return v * factor, max(int(decimals) - shift, 0)


def value(metric, v: float | None, decimals: int, min_decimals: int | None = None) -> str:
    """A data value with its unit: '87.3%'; 'not reported' when missing."""
    if not finite(v):
        return NOT_REPORTED
    v, shifted = shown(metric, v, decimals)
    least = None if min_decimals is None else max(min_decimals - (decimals - shifted), 0)
    return with_unit(number(v, shifted, least), metric.unit)


def mean(metric, v: float | None, decimals: int) -> str:
    """A mean of values written with ``decimals`` decimals, with the unit: '71.33%'."""
    if not finite(v):
        return DASH
    v, shifted = shown(metric, v, decimals)
    return with_unit(number(v, *mean_places(shifted)), metric.unit)


def difference(metric, v: float, decimals: int) -> str:
    """The size of a difference of two values, no sign and no unit, as the metric writes values
    ('3.8'; percent: 0.038 -> '3.8')."""
    v, shifted = shown(metric, v, decimals)
    return number(v, shifted)


def mean_column(metric, values, decimals) -> list[str]:
    """Means written in one column (or one row of a table): each with the same decimals, the
    most any of them needs by :func:`mean` ('63.00%' above '98.26%', never '63.0%'); a missing
    one reads :data:`DASH`. ``metric``: one for all, or one per value (panels of several).
    ``decimals``: one for all, or one per value (each metric's own): then only the means of one
    metric with the same decimals share their decimals."""
    metrics = list(metric) if isinstance(metric, (list, tuple)) else [metric] * len(values)
    each = isinstance(decimals, (list, tuple))
    places_of = list(decimals) if each else [decimals] * len(values)
    written = {k: number(*_mean_shown(m, v, d))
               for k, (m, v, d) in enumerate(zip(metrics, values, places_of)) if finite(v)}
    if not written:
        return [DASH for _ in values]
    most: dict = {}
    for k, text in written.items():
        group = (metrics[k], places_of[k]) if each else None
        most[group] = max(most.get(group, 0), len(text.partition(".")[2]))
    return [with_unit(number(shown(m, v, d)[0], most[(m, d) if each else None]), m.unit)
            if k in written else DASH for k, (m, v, d) in enumerate(zip(metrics, values, places_of))]


def _mean_shown(metric, v: float, decimals: int) -> tuple[float, int, int]:
    v, shifted = shown(metric, v, decimals)
    return (v, *mean_places(shifted))


SLOPE_DIGITS = 3


def slope_column(values) -> list[str]:
    """Slopes written in one column with one format: the decimals that give the largest slope
    :data:`SLOPE_DIGITS` significant digits ('−7.70' above '−0.22'); every slope in scientific
    notation when the largest is below 0.001 or at least a million ('−1.93e−07' above
    '1.36e−06', never '0.00000136'); a missing one reads :data:`DASH`."""
    sizes = [abs(v) for v in values if finite(v) and v != 0]
    if not sizes:
        return [slope(v) for v in values]
    top = max(sizes)
    if not 1e-3 <= top < 1e6:
        texts = [None if not finite(v) else f"{v:.{SLOPE_DIGITS - 1}e}" for v in values]
    else:
        places_ = max(SLOPE_DIGITS - 1 - math.floor(math.log10(top)), 0)
        texts = [None if not finite(v) else f"{v:.{places_}f}" for v in values]
    out = []
    for text in texts:
        if text is None:
            out.append(DASH)
            continue
        if text.startswith("-") and float(text) == 0:
            text = text[1:]  # -0.00 is 0.00
        out.append(text.replace("-", MINUS))
    return out


def difference_unit(metric) -> str:
    """What a difference of two values is counted in: ``points`` (percentage points) where values
    are written as percent (a unit of '%', or a fraction shown as percent) or are a score out of
    100 without a unit (Pass@1 in 0-100), the metric's own unit otherwise ('ms'), nothing for a
    plain number (0.2576 - 0.2132 is 0.0444, not '0.0444 points')."""
    unit = getattr(metric, "unit", "") or ""
    if unit == "%" or (not unit and tuple(getattr(metric, "range", None) or ()) == (0, 100)):
        return "points"
    return unit


def with_difference_unit(text: str, metric) -> str:
    """'3.8 points', '0.0444', '3.2 ms'."""
    unit = difference_unit(metric)
    return f"{text} {unit}" if unit else text


def change(metric, v: float, decimals: int) -> str:
    """A signed difference of two values in the metric's terms, with a real minus sign:
    '+3.8 points' (percent), '−0.0452' (a fraction), '+3.2 ms'."""
    size = difference(metric, abs(v), decimals)
    sign = MINUS if v < 0 and float(size) != 0 else "+"
    return with_difference_unit(sign + size, metric)


def mean_number(v: float, decimals: int) -> str:
    """A mean without its unit (tables whose header names the unit)."""
    return number(v, *mean_places(decimals))


def points(v: float, decimals: int) -> str:
    """A size of a difference, no sign and no unit: '3.8'."""
    return number(v, decimals)


def level(metric, v: float) -> str:
    """A threshold or level the user set or a rule names: '80%', '77.25%' (in the data's units;
    a metric written as percent multiplies it: 0.8 -> '80%')."""
    v = v * _scale(metric)[0]
    return with_unit(number(v, 0 if float(v).is_integer() else 2, 0), metric.unit)


def plain(v: float) -> str:
    """A rule's constant: '5', '2.5'."""
    return f"{v:g}"


def slope(v: float | None) -> str:
    """Three significant digits, positional, with a real minus sign: '−4.86', '−0.000308'."""
    if v is None:
        return DASH
    if v == 0:
        return "0"
    if not 1e-6 <= abs(v) < 1e6:
        text = f"{v:.2e}"
    elif abs(v) >= 100:
        text = f"{v:.1f}"
    else:
        text = np.format_float_positional(v, precision=3, unique=False, fractional=False,
                                          trim="k").rstrip(".")
    return text.replace("-", MINUS)


def r2(v: float | None) -> str:
    return DASH if v is None else f"{v:.2f}"


def spread(sd: float, decimals: int) -> str:
    """A standard deviation or error: at least one decimal ('1.2')."""
    return number(sd, max(places(decimals), 1))


def se_places(decimals: int) -> int:
    """A standard error's decimals: one more than the value's (at least two, at most
    :data:`MAX_DECIMALS`)."""
    return min(max(places(decimals), 1) + 1, MAX_DECIMALS)


# bidirectional controls: embeddings, overrides, isolates and marks. Shown raw, U+202E makes a
# label "\u202etxt.exe" read as "exe.txt"; a shown label has each written out instead
BIDI_CONTROLS = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def bidi_marked(text: str) -> str:
    """``text`` to show, its bidirectional controls written out visibly (``[U+202E]``): they
    can neither reorder what follows them nor hide in it. The label itself (data, downloads,
    filters) keeps them."""
    return BIDI_CONTROLS.sub(lambda m: f"[U+{ord(m.group()):04X}]", text)


def clip(text: str, limit: int = 60) -> str:
    """User input quoted in a message: at most ``limit`` characters, then '…'."""
    text = str(text)
    return text if len(text) <= limit else text[:limit] + "…"


def listing(items, limit: int = 20, more: str = "") -> str:
    """'a, b, c' — at most ``limit`` names, then 'and N more' (``more``: where to see them)."""
    items = [str(i) for i in items]
    shown = ", ".join(items[:limit])
    if len(items) <= limit:
        return shown
    return f"{shown} and {len(items) - limit} more" + (f" ({more})" if more else "")


FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")
# the first characters of the texts neutralise may change: a formula's, and the quote it adds
NEUTRALISED_PREFIXES = (*FORMULA_PREFIXES, "'")


def _formula_like(text: str) -> bool:
    if len(text) > 1 and text.startswith(FORMULA_PREFIXES):  # a lone "-" is a placeholder
        try:
            float(text)
            return False
        except ValueError:
            return True
    return False


def neutralise(text: str) -> str:
    """Make a cell safe to open in a spreadsheet: text starting like a formula gets a leading '.

    Numbers (including negative ones) are left alone: they are data, not formulas. So that
    :func:`unneutralise` gives every text back exactly, a text that already starts with quotes
    before a formula (``'=1+1``) gets one more (``''=1+1``), and no two texts are written alike.
    """
    if _formula_like(text.lstrip("'")):
        return "'" + text
    return text


def unneutralise(text: str) -> str:
    """The text :func:`neutralise` was given: ``unneutralise(neutralise(t)) == t`` for every t
    (how evalmaps reads back the CSV it wrote itself, ``evalmaps import -o``)."""
    if text.startswith("'") and _formula_like(text.lstrip("'")):
        return text[1:]
    return text


_CHUNK = re.compile(r"(\d+(?:\.\d+)?)([kmbt](?![a-z]))?|\D+", re.I)
SIZES = {"k": 1e3, "m": 1e6, "b": 1e9, "t": 1e12}  # 70m, 1.4b: model sizes as written


def natural_key(label: str) -> tuple:
    """A label's place in natural order: numbers inside it compare by value, model sizes by
    size (70m < 160m < 1b < 1.4b < 12b), text by its letters regardless of case. For sorting:
    ``sorted(labels, key=natural_key)``; equal keys keep their order (sorted is stable)."""
    key = []
    for match in _CHUNK.finditer(str(label)):
        number, size = match.group(1), match.group(2)
        if number is None:
            key.append((1, 0.0, match.group().casefold()))
        else:
            key.append((0, float(number) * SIZES.get((size or "").lower(), 1.0), ""))
    return tuple(key)
