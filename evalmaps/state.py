"""View state <-> query string. Every control's state lives in the URL, so a copied URL reopens
the same view. Defaults are left out of the query, so URLs stay short.

Query keys: ``figure``; one key per facet dimension (repeated for several labels); ``rows``
(repeated; an empty ``rows=`` means none); ``xmin``/``xmax``; ``color`` (figure|fixed|shared);
``labels`` (on|off). Pages may add their own keys (``extra``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from urllib.parse import urlencode

from evalmaps.model import Catalog, Figure
from evalmaps.slicing import COLOR_MODES

# A figure with more panels than this opens on its first panel (first label of every facet):
# a published table can have fifty; nobody reads fifty heatmaps at once.
MAX_DEFAULT_PANELS = 8


def many_panels(figure: Figure) -> bool:
    return len(figure.panels) > MAX_DEFAULT_PANELS


def as_list(value: str | list[str] | tuple[str, ...] | None) -> list[str] | None:
    if value is None:
        return None
    return [value] if isinstance(value, str) else list(value)


def first(value: str | list[str] | None) -> str | None:
    values = as_list(value)
    return values[0] if values else None


@dataclass(frozen=True)
class ViewState:
    figure: str
    facets: dict[str, tuple[str, ...]] = field(default_factory=dict)  # only narrowed; () = none
    rows: tuple[str, ...] | None = None  # None = all rows
    x_range: tuple[float, float] | None = None  # None = the whole x axis
    color: str = "figure"
    labels: bool = True
    problems: tuple[str, ...] = ()  # what was dropped from the query, to tell the user

    def facet_selection(self, figure: Figure) -> dict[str, list[str]]:
        spec = figure.spec
        return {f: list(self.facets.get(f, spec.dims[f].labels)) for f in spec.facets}

    def to_query(self, extra: Mapping[str, str | list[str]] | None = None) -> str:
        pairs: list[tuple[str, str]] = [("figure", self.figure)]
        for dim, labels in self.facets.items():
            pairs += [(dim, label) for label in labels] if labels else [(dim, "")]
        if self.rows is not None:
            pairs += [("rows", r) for r in self.rows] if self.rows else [("rows", "")]
        if self.x_range is not None:
            pairs += [("xmin", f"{self.x_range[0]:g}"), ("xmax", f"{self.x_range[1]:g}")]
        if self.color != "figure":
            pairs.append(("color", self.color))
        if not self.labels:
            pairs.append(("labels", "off"))
        for key, value in (extra or {}).items():
            pairs += [(key, v) for v in as_list(value) or []]
        return "?" + urlencode(pairs)


def _number(text: str | None) -> float | None:
    try:
        return float(text) if text not in (None, "") else None
    except ValueError:
        return None


def parse_state(query: Mapping[str, str | list[str]], catalog: Catalog,
                default_figure: str | None = None) -> ViewState:
    """Read a view state from query parameters, keeping only what fits the figure.

    Unknown figures, labels and values are dropped (and listed in ``problems``), never an error:
    an old or hand-edited URL still opens a view.
    """
    problems: list[str] = []
    fid = first(query.get("figure")) or default_figure or catalog.ids[0]
    if fid not in catalog:
        problems.append(f"There is no figure '{fid}'; showing '{catalog.ids[0]}' instead.")
        fid = catalog.ids[0]
    figure = catalog.figure(fid)
    spec = figure.spec

    facets: dict[str, tuple[str, ...]] = {}
    big = many_panels(figure)
    if big and not any(dim in query for dim in spec.facets):
        facets = _first_panel(figure)
    for dim in spec.facets:
        wanted = as_list(query.get(dim))
        if wanted is None:
            continue
        known = [label for label in spec.dims[dim].labels if label in set(wanted)]
        unknown = [w for w in wanted if w not in spec.dims[dim].labels and w != ""]
        if unknown:
            problems.append(f"Unknown {spec.dims[dim].title.lower()} {', '.join(unknown)} ignored.")
        if known and (big or len(known) < len(spec.dims[dim].labels)):
            facets[dim] = tuple(known)
        elif not known and not unknown:  # an explicit empty selection ("model=")
            facets[dim] = ()

    rows = None
    wanted_rows = as_list(query.get("rows"))
    if wanted_rows is not None:
        ylabels = spec.dims[spec.y].labels
        unknown = [w for w in wanted_rows if w not in ylabels and w != ""]
        if unknown:
            problems.append(f"Unknown {spec.dims[spec.y].title.lower()} row(s) "
                            f"{', '.join(unknown)} ignored.")
        rows = tuple(label for label in ylabels if label in set(wanted_rows))
        if len(rows) == len(ylabels):
            rows = None

    x_range = None
    xdim = spec.dims[spec.x]
    bounds = {}
    for key in ("xmin", "xmax"):
        text = first(query.get(key))
        bounds[key] = _number(text)
        if text not in (None, "") and bounds[key] is None:
            problems.append(f"{key}={text} is not a number; ignored.")
    lo, hi = bounds["xmin"], bounds["xmax"]
    if xdim.numeric and (lo is not None or hi is not None):
        full = (min(xdim.numbers), max(xdim.numbers))
        if lo is not None and hi is not None and lo > hi:
            lo, hi = hi, lo
        lo = full[0] if lo is None else max(lo, full[0])
        hi = full[1] if hi is None else min(hi, full[1])
        if lo > hi:
            problems.append(f"The {xdim.title.lower()} range lies outside the axis "
                            f"({full[0]:g} to {full[1]:g}); showing all of it.")
        elif (lo, hi) != full:
            x_range = (lo, hi)

    color = first(query.get("color")) or "figure"
    if color not in COLOR_MODES:
        problems.append(f"Colour mode '{color}' is unknown; using the figure's own range.")
        color = "figure"
    labels = (first(query.get("labels")) or "on") != "off"
    return ViewState(fid, facets, rows, x_range, color, labels, tuple(problems))


def _first_panel(figure: Figure) -> dict[str, tuple[str, ...]]:
    """The facet labels of a figure's first panel (the default view of a many-panel figure)."""
    first_panel = next(iter(figure.panels.values()))
    return {dim: (label,) for dim, label in first_panel.facets.items()}


def state_from_controls(figure: Figure, facet_values: dict[str, list[str] | None],
                        rows: list[str] | None, x_range: list[float] | None, color: str | None,
                        labels: bool | None) -> ViewState:
    """Normalise control values into a state (full selections collapse to the default)."""
    spec = figure.spec
    facets = {}
    big = many_panels(figure)  # its full selections are explicit: the default is one panel
    for dim in spec.facets:
        chosen = facet_values.get(dim)
        if chosen is not None and (big or set(chosen) != set(spec.dims[dim].labels)):
            facets[dim] = tuple(label for label in spec.dims[dim].labels if label in set(chosen))
    state = ViewState(figure.id, facets, color=color or "figure",
                      labels=True if labels is None else bool(labels))
    if rows is not None:
        ylabels = spec.dims[spec.y].labels
        kept = tuple(label for label in ylabels if label in set(rows))
        state = replace(state, rows=None if len(kept) == len(ylabels) else kept)
    xdim = spec.dims[spec.x]
    if x_range and xdim.numeric:
        full = (min(xdim.numbers), max(xdim.numbers))
        lo, hi = float(min(x_range)), float(max(x_range))
        if (lo, hi) != full:
            state = replace(state, x_range=(lo, hi))
    return state
