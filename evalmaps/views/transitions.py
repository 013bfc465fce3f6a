"""Compare's page transitions: from the state the page shows and what the user did (a figure,
'Compare', an axis or another dimension's menu, swap, a mean, a side's menu) to the state it
shows next, as pure functions of the catalog and :class:`~evalmaps.views.state.CompareState`
(no Dash). ``layouts/compare.py``'s sync callback reads the event from Dash, calls one of these,
and renders the state it gets (:class:`~evalmaps.views.models.CompareView`).

``showing``: what the page's controls show, by name (``a``, ``b``, ``color``, ``show_values``,
``scale``, ``pct``, ``k``, ``ydim``, ``xdim``, ``rest`` and ``rest_ids``: the other dimensions'
menus' values and ids; ``ticks``: the axis labels the maps were drawn with, which no control
sets: ``all`` stays while the controls change). A :class:`Move` is the next state, whether the
controls must be written (they show something else) and what to tell the user;
:class:`Unchanged`: nothing to do.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from evalmaps.analysis.compare import (
    CompareError,
    compatible,
    default_pair,
    figure_of,
    first_panel,
    is_derived,
    is_label_ref,
    label_grid,
    label_ref,
    mean_ref,
    parse_label_ref,
    resolve,
)
from evalmaps.core.errors import EvalmapsError
from evalmaps.core.figure import Catalog
from evalmaps.core.problems import Problems
from evalmaps.views.state import (
    DEFAULT_COMPARE_COLOR,
    DEFAULT_SCALE,
    SCALES,
    CompareState,
    compare_clusters,
    compare_items_kept,
    compare_max_k,
    grid_state,
    label_figure,
)

BY_PANELS = ""  # the compare-by menu's value for panels (a dimension's name is never empty)
AVERAGED = "mean"  # a rest menu's value for 'averaged over'; a label is '=<label>'
GRID = ("ydim", "xdim", "fixed", "averaged")
NO_GRID = {"ydim": None, "xdim": None, "fixed": (), "averaged": ()}


class Unchanged(Exception):
    """The event changes nothing the page shows (the page answers nothing)."""


@dataclass(frozen=True)
class Move:
    """The state a page shows after an event; ``controls``: its menus must be written (they
    show another state); ``problems``: what to tell the user."""

    state: CompareState
    controls: bool = False
    problems: tuple[str, ...] = ()


def rest_choices(ids: Sequence[dict], values: Sequence[str]) -> tuple[dict[str, str], list[str]]:
    """The rest menus' values as :func:`evalmaps.analysis.compare.label_grid` takes them:
    (fixed {dim: label}, averaged [dim])."""
    fixed, averaged = {}, []
    for menu_id, value in zip(ids if isinstance(ids, list) else [],
                              values if isinstance(values, list) else []):
        if not (isinstance(menu_id, dict) and isinstance(menu_id.get("dim"), str)):
            continue  # not one of the page's menus
        if value == AVERAGED:
            averaged.append(menu_id["dim"])
        elif isinstance(value, str) and value.startswith("="):
            fixed[menu_id["dim"]] = value[1:]
    return fixed, averaged


def shown_state(catalog: Catalog, showing: Mapping, default: tuple[str, str]) -> CompareState:
    """The state the page's controls show (two labels of a dimension: with their grid's menus;
    a menu that does not fit the grid is left out)."""
    color, show_values, scale = showing["color"], showing["show_values"], showing["scale"]
    state = CompareState(showing["a"] or default[0], showing["b"] or default[1],
                         color or DEFAULT_COMPARE_COLOR,
                         True if show_values is None else bool(show_values),
                         scale=scale if scale in SCALES else DEFAULT_SCALE,
                         pct=bool(showing["pct"]))
    k = showing.get("k")
    if isinstance(k, int) and 1 < k <= compare_max_k(catalog, state.a, state.b):
        state = replace(state, k=k)
    cluster = showing.get("cluster")
    if cluster and cluster in compare_clusters(catalog, state.a, state.b):
        state = replace(state, cluster=cluster)
    if showing.get("power") and compare_items_kept(catalog, state):
        state = replace(state, power=True)
    if showing.get("ticks") == "all":
        state = replace(state, ticks="all")
    if not (state.labels and is_label_ref(state.b)):
        return state
    fixed, averaged = rest_choices(showing["rest_ids"] or [], showing["rest"] or [])
    try:
        figure, dim, _ = parse_label_ref(catalog, state.a)
        grid = label_grid(figure.spec, dim, y=showing["ydim"], x=showing["xdim"] or None,
                          fixed=fixed, averaged=averaged, problems=Problems())
    except CompareError:
        return state
    state = grid_state(state, grid, figure.spec)
    return replace(state, power=False) if state.averaged else state


def same_view(state: CompareState, shown: CompareState, showing: Mapping) -> bool:
    """Whether ``state`` (the address's) is what the page shows (``shown``, read from
    ``showing``), but for the style controls (colour range, values in cells, scale), which the
    browser restyles."""
    return ((state.a, state.b) == (showing["a"], showing["b"])
            and state.pct == bool(showing["pct"]) and state.k == shown.k
            and state.cluster == shown.cluster and state.power == shown.power
            and state.ticks == shown.ticks
            and all(getattr(state, key) == getattr(shown, key) for key in GRID))


def ticks_kept(catalog: Catalog, state: CompareState) -> CompareState:
    """``state`` with its axis labels as its page can draw them: ``ticks=all`` is dropped where
    A and B are labels of a figure with a dimension named ``ticks`` (there, the key is its
    label: :func:`~evalmaps.views.state.read_ticks`)."""
    figure = label_figure(catalog, state)
    if state.ticks != "auto" and figure is not None and "ticks" in figure.spec.dims:
        return replace(state, ticks="auto")
    return state


def labels_state(catalog: Catalog, state: CompareState, figure_id: str, dim: str) -> CompareState:
    """A and B as two labels of ``dim`` in a figure, picked when 'Compare' names it (or A's
    figure changes): where A and B were panels of that figure, their labels of ``dim`` (else
    the first two; B the label after A's) and A's other facets fixed as A showed them; the
    default axes."""
    spec = catalog.figure(figure_id).spec
    labels = spec.dims[dim].labels
    picked: list[str] = []
    fixed: dict[str, str] = {}
    for ref in (state.a, state.b):
        if is_label_ref(ref) or is_derived(ref) or figure_of(ref) != figure_id:
            continue
        try:
            facets = catalog.panel(ref).facets
        except EvalmapsError:
            continue
        if dim in facets and facets[dim] not in picked:
            picked.append(facets[dim])
        fixed = fixed or {f: label for f, label in facets.items() if f != dim}
    if not picked:
        picked.append(labels[0])
    if len(picked) == 1:
        picked.append(labels[(labels.index(picked[0]) + 1) % len(labels)])
    grid = label_grid(spec, dim, fixed=fixed, problems=Problems())
    return grid_state(replace(state, a=label_ref(figure_id, dim, picked[0]),
                              b=label_ref(figure_id, dim, picked[1])), grid, spec)


def panels_state(catalog: Catalog, state: CompareState) -> CompareState:
    """A and B as panels again: where two labels of a facet are compared on the figure's own
    axes with nothing averaged, the two panels shown; else the figure's first two."""
    try:
        figure, dim, a_label = parse_label_ref(catalog, state.a)
        _, _, b_label = parse_label_ref(catalog, state.b)
        grid = label_grid(figure.spec, dim, **state.grid_args())
    except CompareError:
        return replace(state, **dict(zip("ab", default_pair(catalog))), **NO_GRID)
    spec = figure.spec
    pair = default_pair(catalog, figure.id)
    if dim in spec.facets and (grid.y, grid.x) == (spec.y, spec.x) and not grid.averaged:
        keys = []
        for label in (a_label, b_label):
            facets = {**dict(grid.fixed), dim: label}
            keys.append(next((p.key for p in figure.panels.values()
                              if all(p.facets[f] == facets[f] for f in spec.facets)), None))
        if all(keys):
            pair = tuple(keys)
    return replace(state, a=pair[0], b=pair[1], **NO_GRID)


# --------------------------------------------------------------------------- events

def figure_picked(catalog: Catalog, state: CompareState, side: str, figure_id: str) -> Move:
    """A side's figure menu (``side``: "a" or "b"): that figure's first panel that fits the
    other side (A's: the figure's own pair where B shares no cell with it); two labels of a
    dimension: the same dimension's labels in the figure, where it has more than one, else its
    pair of panels (B's figure is A's)."""
    if figure_id not in catalog or figure_id == figure_of(getattr(state, side)):
        raise Unchanged
    if state.labels:
        dim = parse_label_ref(catalog, state.a)[1]
        if side == "b":
            raise Unchanged  # B's figure is A's
        dims = catalog.figure(figure_id).spec.dims
        if dim in dims and len(dims[dim].labels) > 1:
            return Move(labels_state(catalog, replace(state, fixed=(), averaged=()), figure_id,
                                     dim), controls=True)
        pair = default_pair(catalog, figure_id)
        return Move(replace(state, a=pair[0], b=pair[1], **NO_GRID), controls=True)
    try:
        other = resolve(catalog, state.b if side == "a" else state.a)
    except CompareError:
        other = None
    state = replace(state, **{side: first_panel(catalog, figure_id, other)})
    if side == "a" and (other is None or not compatible(resolve(catalog, state.a), other)):
        pair = default_pair(catalog, figure_id)  # B shares no cell: a pair of its own
        state = replace(state, a=pair[0], b=pair[1])
    return Move(state, controls=True)


def by_picked(catalog: Catalog, state: CompareState, by: str) -> Move:
    """'Compare': panels (:data:`BY_PANELS`), or two labels of a dimension of A's figure."""
    figure_id = figure_of(state.a)
    if by == (parse_label_ref(catalog, state.a)[1] if state.labels else BY_PANELS):
        raise Unchanged
    if by == BY_PANELS:
        return Move(panels_state(catalog, state), controls=True)
    if figure_id in catalog and by in catalog.figure(figure_id).spec.dims:
        return Move(labels_state(catalog, state, figure_id, by), controls=True)
    raise Unchanged


def axis_picked(catalog: Catalog, state: CompareState, before: CompareState, showing: Mapping,
                which: str) -> Move:
    """The grid after its rows (``which``: "ydim") or columns ("xdim") were picked in
    ``showing``; ``before``: the state the page showed (its address's). Picking the other
    axis's dimension swaps the two."""
    if not state.labels:
        raise Unchanged
    figure, dim, _ = parse_label_ref(catalog, state.a)
    spec = figure.spec
    old = label_grid(spec, dim, **before.grid_args(), problems=Problems()) if before.labels and \
        before.a.partition(":")[0] == figure.id else label_grid(spec, dim)
    if which == "ydim":
        y = showing["ydim"] if isinstance(showing["ydim"], str) else old.y
        x = old.x if y != old.x else (old.y or None)
    else:
        x = showing["xdim"] or old.x
        y = old.y if x != old.y else old.x
    fixed, averaged = rest_choices(showing["rest_ids"] or [], showing["rest"] or [])
    grid = label_grid(spec, dim, y=y, x=x, fixed=fixed, averaged=averaged, problems=Problems())
    return Move(grid_state(state, grid, spec), controls=True)


def swapped(state: CompareState) -> Move:
    """Swap: A is B and B is A."""
    return Move(replace(state, a=state.b, b=state.a), controls=True)


def mean_used(catalog: Catalog, state: CompareState, side: str,
              mean_keys: Sequence[str] | None) -> Move:
    """'Use as A' or 'Use as B' (``side``) of the mean menu's panels: their mean as that side;
    fewer than two panels, or panels that do not make a mean, leave the state and say why."""
    try:
        if not mean_keys or len(mean_keys) < 2:
            raise CompareError("Pick at least two panels in the mean menu, then use their "
                               "mean as A or B.")
        ref = mean_ref(list(mean_keys))
        resolve(catalog, ref, side.upper())
    except EvalmapsError as exc:
        return Move(state, problems=(str(exc),))
    return Move(replace(state, **{side: ref}), controls=True)


def menu_picked(catalog: Catalog, state: CompareState, default: tuple[str, str]) -> Move:
    """A side's menu: a value that names nothing (an upload gone) falls back to the default
    pair's, and says so; a side that fell back to a panel while the other is a label: the
    default pair."""
    problems: tuple[str, ...] = ()
    controls = False
    for side in ("a", "b"):
        ref = getattr(state, side)
        try:
            if is_label_ref(ref):
                parse_label_ref(catalog, ref, side.upper())
            else:
                resolve(catalog, ref, side.upper())
        except CompareError as exc:
            problems += (str(exc),)
            state, controls = replace(state, **{side: default["ab".index(side)]}), True
    if state.labels != is_label_ref(state.b):  # one side fell back to a panel
        state = replace(state, a=default[0], b=default[1], **NO_GRID)
    return Move(state, controls, problems)
