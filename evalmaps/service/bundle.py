"""A static site of figures: ``evalmaps bundle -o SITE/`` (and the Data page's zip).

The site works from ``file://`` and from any static host, and nothing it loads comes from
outside it: plotly.js (the installed plotly package's own file), evalmaps' browser scripts
(the live app's number formatting, keyboard readout, table and Compare readout line,
``assets/evalmaps-*.js``, and the bundle's pages, ``evalmaps/_bundle/``), an index page, a page
per figure and a page per compared pair. Each figure's cells are a script of their own
(``data/<id>.js``), loaded when its page opens; it registers them with
``evalmapsBundle.add(id, {...})`` (a ``<script src>``: browsers refuse ``fetch()`` of
``file://`` URLs).

Everything a page writes that the live app writes from Python is worked out here, with the same
code: the hover templates (:func:`evalmaps.figures.hover.panel_hovers`, the live maps' own
wording), the theme (:func:`evalmaps.figures.theme.browser_theme`), the tidy CSV
(:func:`evalmaps.views.payloads.cells_csv`), the LaTeX and Markdown tables of each panel
(:mod:`evalmaps.analysis.export`) and the Compare pages (:class:`evalmaps.views.CompareView`).

Pure: no Dash, Plotly or Flask (plotly.js is found as a file of the installed package).
"""

from __future__ import annotations

import html
import importlib.util
import io
import json
import re
import shutil
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from evalmaps.analysis import compare as comparing
from evalmaps.analysis import export as exporting
from evalmaps.analysis import paired as paired_stats
from evalmaps.analysis import uncertainty
from evalmaps.analysis.slicing import fixed_range, is_fraction, slice_panel
from evalmaps.core import text as fmt
from evalmaps.core.errors import EvalmapsError
from evalmaps.core.figure import Catalog, Figure, Panel, slugify
from evalmaps.core.runfiles import SITE_ONLY_SCRIPTS, runfile
from evalmaps.figures import compare as figures_compare
from evalmaps.figures import heatmap, hover, theme
from evalmaps.views import CompareView
from evalmaps.views.source import source_items
from evalmaps.views.state import DEFAULT_COMPARE_COLOR, many_panels

SCRIPTS = Path(__file__).resolve().parents[1] / "_bundle"  # the bundle's own pages' code
# the live app's scripts the pages share, and those only they load
SHARED_SCRIPTS = ("evalmaps-format.js", "evalmaps-plotly-internals.js", "evalmaps-keys.js",
                  "evalmaps-table.js", "evalmaps-hover.js", *SITE_ONLY_SCRIPTS)
OWN_FILES = ("bundle.js", "tables.js", "bundle.css")
PLOTLY = "plotly.min.js"
# the pages load their own files only, and ask nothing of any server (PNG and SVG downloads
# are blob: and data: URLs made in the page)
CSP = "default-src 'self' 'unsafe-inline' blob: data:; connect-src 'none'"
PREVIEW_CELLS = 24  # a preview shows at most this many rows and columns of the first panel


class BundleError(EvalmapsError):
    """A bundle that cannot be made: an unknown figure or pair, an output folder refused."""


def plotly_js() -> Path:
    """plotly.js as the installed plotly package ships it (not imported: only its file)."""
    spec = importlib.util.find_spec("plotly")
    if spec is None or not spec.submodule_search_locations:
        raise BundleError("The plotly package is not installed, and the bundle takes plotly.js "
                          "from it. Install it with: pip install plotly.")
    path = Path(list(spec.submodule_search_locations)[0]) / "package_data" / PLOTLY
    if not path.is_file():
        raise BundleError(f"{path} is missing from the plotly package. Reinstall plotly.")
    return path


# --------------------------------------------------------------------------- checks

def check_output(out: Path, force: bool = False) -> None:
    """Refuse a file, or a folder that holds anything, unless ``force``."""
    if out.exists() and not out.is_dir():
        raise BundleError(f"{out} is a file, and -o takes the folder to write the site into. "
                          f"Give a new or empty folder.")
    if out.is_dir() and any(out.iterdir()) and not force:
        raise BundleError(f"{out} is not empty. Give a new or empty folder, or --force to write "
                          f"the site into it anyway.")


def pick_figures(catalog: Catalog, ids: list[str] | None) -> list[Figure]:
    """The figures named (all of them when none is), in the order given."""
    if not ids:
        return list(catalog)
    unknown = [i for i in ids if i not in catalog]
    if unknown:
        raise BundleError(f"--figure '{fmt.clip(unknown[0])}' is not a figure. Use one of: "
                          f"{fmt.listing(catalog.ids, 20)}.")
    return [catalog.figure(i) for i in dict.fromkeys(ids)]


def default_pairs(catalog: Catalog, figures: list[Figure]) -> list[tuple[str, str]]:
    """The catalog's own comparison, when the figures of both its panels are bundled."""
    pair = catalog.compare_pair
    ids = {f.id for f in figures}
    if pair and all(comparing.figure_of(ref) in ids for ref in pair):
        return [tuple(pair)]
    return []


def compare_pages(catalog: Catalog, pairs: list[tuple[str, str]],
                  cluster: str | None = None) -> list[CompareView]:
    """Each pair's view (its JSON is the ``/api/compare`` answer, with ``cluster=COL`` when
    ``cluster`` is given: its standard errors, tests and power clustered by the items' column),
    worked out now (a pair that cannot be compared, or whose items do not keep ``cluster``, is a
    :class:`BundleError` naming it)."""
    out = []
    for a, b in pairs:
        query = {"a": a, "b": b, **({"cluster": cluster} if cluster else {})}
        try:
            out.append(CompareView.of_catalog(catalog, query))
        except (EvalmapsError, ValueError) as exc:
            refusal = cluster_refusal(catalog, a, b, cluster) if cluster else None
            raise BundleError(refusal or f"--compare {fmt.clip(a)} {fmt.clip(b)}: {exc}") from None
    return out


def cluster_refusal(catalog: Catalog, a: str, b: str, cluster: str) -> str | None:
    """Why the Compare page of ``a`` and ``b`` cannot be clustered by ``cluster`` (one
    sentence), None when that is not why it cannot be made."""
    try:
        al = CompareView.of_catalog(catalog, {"a": a, "b": b}).alignment
    except (EvalmapsError, ValueError):
        return None  # the pair itself cannot be compared: said as such
    for name, side in (("A", al.a), ("B", al.b)):
        kept = side.items.clusters if side.items is not None else None
        if kept is None or cluster not in kept:
            has = ("has no per-item records" if kept is None else
                   f"keeps the cluster column{'s' * (len(kept) > 1)} {', '.join(kept)} only"
                   if kept else "keeps no cluster column")
            return (f"--cluster {fmt.clip(cluster)}: the Compare page of {fmt.clip(a)} and "
                    f"{fmt.clip(b)} cannot be clustered, as its {name} ({fmt.clip(side.ref)}) "
                    f"{has}; bundle pairs whose items were imported with --cluster "
                    f"{fmt.clip(cluster)}, or leave out --cluster.")
    return None


# --------------------------------------------------------------------------- templates

# --------------------------------------------------------------------------- figure data

def _numbers(grid: np.ndarray) -> list:
    """A grid row by row as a flat list, None where missing (exact: JSON keeps a float)."""
    flat = grid.ravel()
    return [None if v != v else (int(v) if v.is_integer() and abs(v) < 2**53 else v)
            for v in flat.tolist()]


def _metric(metric) -> dict:
    return {"name": metric.name, "unit": metric.unit, "label": metric.label,
            "range": list(metric.range) if metric.range else None,
            "higher": metric.higher_is_better, "fixed": fixed_range(metric)}


def hover_kinds(panel: Panel, grids: dict, suspect: np.ndarray) -> set[tuple[bool, ...]]:
    """The kinds of hover a panel's present cells take: which of its ``grids`` (sd, n, se) each
    has, and whether its se is suspect (as bundle.js reads them from the data, to pick each
    cell's template)."""
    present = np.isfinite(panel.z)
    if not present.any():
        return set()
    has = {name: np.isfinite(grids[name]) if name in grids else np.zeros(panel.z.shape, bool)
           for name in ("sd", "n", "se")}
    flags = np.stack([has["sd"], has["n"], has["se"], suspect & has["se"]], axis=-1)[present]
    return {tuple(bool(f) for f in row) for row in np.unique(flags, axis=0)}


def panel_data(figure: Figure, panel: Panel) -> dict:
    """A panel's grid (row by row), its sd, n and se, the pieces of its hover, and the texts
    its tables take from the server's code (caption, the suspect standard errors' note)."""
    spec = figure.spec
    metric = spec.metric_for(panel.facets)
    given = {name: grid for name, grid in (("sd", panel.sd), ("n", panel.n), ("se", panel.se))
             if grid is not None}
    grids = {name: grid for name, grid in given.items()
             if bool(np.isfinite(grid[np.isfinite(panel.z)]).any())}
    columns = {name: k for k, name in enumerate(grids)}
    fraction = is_fraction(metric, panel.z)
    decimals = figure.decimals_for(panel.facets)  # its metric's, in a figure of several
    suspect = uncertainty.suspect(panel.z, panel.se, metric)
    kinds = hover_kinds(panel, grids, suspect)

    def hovers(shown):
        return hover.panel_hovers(figure.spec, panel.facets, shown, decimals, columns, kinds)
    out = {"slug": panel.slug, "key": panel.key, "title": panel.title, "facets": panel.facets,
           "metric": _metric(metric), "fraction": fraction,
           "decimals": decimals,
           "z": _numbers(panel.z),
           "hover": hovers(metric),
           "extra": {name: _numbers(grid) for name, grid in given.items()},
           "has": list(given), "columns": list(grids),
           "caption": exporting._caption(exporting.table_of_view(slice_panel(figure, panel))),
           # a metric without a range has no suspect standard error, and no note of them
           "suspectNote": [uncertainty.suspect_note(metric, 1), uncertainty.suspect_note(metric, 999999)]
           if metric.range is not None else []}
    if fraction:
        shown = metric.as_percent()
        out["hoverPct"] = hovers(shown)
        out["metricPct"] = _metric(shown)
    if suspect.any():
        out["suspect"] = np.flatnonzero(suspect).tolist()
    return out


def _scale_stops(scale) -> list:
    """The source's own colour scale as explicit stops, or its name (resolved in the browser
    from the stops of plotly.js, which runs some names the other way: so named scales are
    given to the browser only where plotly.py's and plotly.js's agree)."""
    if isinstance(scale, str):
        return scale
    return [list(stop) for stop in scale]


def figure_data(figure: Figure) -> dict:
    """Everything a figure's page draws, as JSON: its dimensions, and per panel its grid, the
    hover pieces and its tables."""
    spec = figure.spec
    roles = {spec.x: "x", spec.y: "y", **{f: "facet" for f in spec.facets}}
    return {
        "id": spec.id, "title": spec.title, "provenance": spec.provenance,
        "illustrative": spec.illustrative, "notes": list(spec.notes),
        # the live card's rows (evalmaps.views.source): the paper and figure, not the seed's file
        "sourceRows": [[title, text + (f" · arXiv {arxiv}" if arxiv and text else
                                       f"arXiv {arxiv}" if arxiv else "")]
                       for title, text, arxiv in source_items(spec.source)],
        "x": spec.x, "y": spec.y, "facets": list(spec.facets),
        "dims": {d.name: {"title": d.title, "labels": list(d.labels), "numeric": d.numeric,
                          "numbers": list(d.numbers) if d.numeric else None,
                          "role": roles[d.name]} for d in spec.dims.values()},
        "metric": _metric(spec.metric), "zrange": list(spec.zrange) if spec.zrange else None,
        "colorscale": _scale_stops(spec.colorscale), "nCells": figure.n_cells,
        # a figure of many panels opens on its first (evalmaps.views.state.parse_state)
        "defaultFacets": ({f: [label] for f, label in next(iter(figure.panels.values())).facets.items()}
                          if many_panels(figure) else {}),
        "panels": [panel_data(figure, p) for p in figure.panels.values()],
        "theme": theme.browser_theme(), "limits": heatmap.browser_limits(),
    }


def _js(name: str, payload: dict) -> str:
    """A data script: ``evalmapsBundle.add(<name>, <payload>)``; '</' is written '<\\/' so the
    text can never end a script element."""
    body = json.dumps(payload, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    body = body.replace("</", "<\\/")
    return (f"window.evalmapsBundle=window.evalmapsBundle||{{pending:{{}},add:function(k,v)"
            f"{{this.pending[k]=v;}}}};\nwindow.evalmapsBundle.add({json.dumps(name)},{body});\n")


# --------------------------------------------------------------------------- pages

def _colour(t: float) -> str:
    """The uniform scale's stop nearest ``t`` (0-1): the previews' colours."""
    stops = theme.colorscale_of(theme.UNIFORM_SCALE)
    k = min(int(t * (len(stops) - 1) + 0.5), len(stops) - 1)
    return stops[k][1]


def preview_svg(figure: Figure) -> str:
    """A small picture of the figure's first panel: at most PREVIEW_CELLS rows and columns
    (evenly picked), gaps in the missing colour."""
    panel = next(iter(figure.panels.values()))
    z = panel.z
    rows = np.unique(np.linspace(0, z.shape[0] - 1, min(z.shape[0], PREVIEW_CELLS)).astype(int))
    cols = np.unique(np.linspace(0, z.shape[1] - 1, min(z.shape[1], PREVIEW_CELLS)).astype(int))
    grid = z[np.ix_(rows, cols)]
    present = grid[np.isfinite(grid)]
    lo, hi = (float(present.min()), float(present.max())) if present.size else (0.0, 1.0)
    better = figure.spec.metric_for(panel.facets).higher_is_better
    w, h = 120 / len(cols), 72 / len(rows)
    rects = []
    for i in range(len(rows)):
        for j in range(len(cols)):
            v = grid[i, j]
            if np.isfinite(v):
                t = 0.5 if hi == lo else (v - lo) / (hi - lo)
                colour = _colour(t if better else 1 - t)
            else:
                colour = theme.MISSING_COLOR
            rects.append(f'<rect x="{j * w:.2f}" y="{i * h:.2f}" width="{w + 0.05:.2f}" '
                         f'height="{h + 0.05:.2f}" fill="{colour}"/>')
    return (f'<svg class="preview" viewBox="0 0 120 72" preserveAspectRatio="none" role="img" '
            f'aria-label="Preview of {html.escape(panel.title)}">{"".join(rects)}</svg>')


def _page(title: str, body: str, scripts: list[str], depth: int = 0) -> str:
    up = "../" * depth
    tags = "\n".join(f'<script src="{up}{s}"></script>' for s in scripts)
    return f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="{CSP}">
<title>{html.escape(title)}</title>
<link rel="stylesheet" href="{up}assets/bundle.css">
</head>
<body>
{body}
{tags}
</body>
</html>
"""


def _source_text(spec) -> str:
    src = spec.source or {}
    return " · ".join(str(v) for k, v in src.items() if k in ("paper", "title", "name", "figure"))


def index_page(figures: list[Figure], compares: list[dict], names: dict[str, str]) -> str:
    rows = []
    for figure in figures:
        spec = figure.spec
        flag = (f'<span class="flag">{theme.ILLUSTRATIVE_LABEL}</span>'
                if spec.illustrative else "")
        rows.append(
            f'<li class="figure-card"><a href="figures/{names[spec.id]}.html">'
            f'{preview_svg(figure)}<span class="figure-title">{html.escape(spec.title)}</span></a>'
            f'{flag}<dl><dt>Source</dt><dd>{html.escape(_source_text(spec) or spec.provenance)}</dd>'
            f'<dt>Metric</dt><dd>{html.escape(spec.metric.label)}</dd>'
            f'<dt>Cells</dt><dd class="n-cells">{figure.n_cells:,}</dd>'
            f'<dt>Provenance</dt><dd>{html.escape(spec.provenance)}</dd></dl></li>')
    pairs = "".join(
        f'<li><a href="compare/{k}.html">{html.escape(_short(c["a"]))} vs '
        f'{html.escape(_short(c["b"]))}</a> ({html.escape(c["a"]["label"].split(" — ")[0])})</li>'
        for k, c in enumerate(compares, 1))
    body = (f'<header><h1>Figures</h1><p class="lead">{len(figures)} figure'
            f'{"" if len(figures) == 1 else "s"}, made with evalmaps: hover a map for its exact '
            f'values.</p></header><main><ul class="figure-list">{"".join(rows)}</ul>'
            + (f'<h2>Comparisons</h2><ul class="compare-list">{pairs}</ul>' if pairs else "")
            + "</main>")
    return _page("Figures", body, [])


def figure_page(figure: Figure, name: str) -> str:
    spec = figure.spec
    body = (f'<nav><a href="../index.html">All figures</a></nav>'
            f'<main id="bundle-figure" data-figure="{html.escape(spec.id)}">'
            f'<h1>{html.escape(spec.title)}</h1><p class="loading">Loading the cells…</p></main>')
    scripts = [f"assets/{PLOTLY}", *(f"assets/{s}" for s in SHARED_SCRIPTS), "assets/tables.js",
               "assets/bundle.js", f"data/{name}.js"]
    return _page(spec.title, body, scripts, depth=1)


def compare_page(payload: dict, k: int) -> str:
    title = f'{_short(payload["a"])} vs {_short(payload["b"])}'
    body = (f'<nav><a href="../index.html">All figures</a></nav>'
            f'<main id="bundle-compare" data-compare="compare-{k}"><h1>{html.escape(title)}</h1>'
            f'<p class="loading">Loading the cells…</p></main>')
    scripts = [f"assets/{PLOTLY}", *(f"assets/{s}" for s in SHARED_SCRIPTS), "assets/bundle.js",
               f"data/compare-{k}.js"]
    return _page(title, body, scripts, depth=1)


def _short(side: dict) -> str:
    """A side's name without its figure's title: 'R1-Llama'."""
    return side["label"].split(" — ")[-1]


def compare_data(view: CompareView, payload: dict) -> dict:
    """A Compare page's data: the /api/compare answer (``payload``, the view's JSON), and how its
    numbers are written."""
    al = view.alignment
    side = {}
    for key, p in (("a", al.a), ("b", al.b)):
        side[key] = {"decimals": p.decimals, "min": p.min_decimals, "unit": p.metric.unit,
                     "percent": p.metric.percent}
    lo, hi = comparing.color_range(al, DEFAULT_COMPARE_COLOR)
    paired = ({"places": comparing.paired_places(al), "unit": comparing.paired_unit(al),
               "tests": dict(zip(paired_stats.TESTS, comparing.PAIRED_NAMES)),
               "alpha": paired_stats.ALPHA} if al.paired else None)
    return {"api": payload, "theme": theme.browser_theme(), "limits": heatmap.browser_limits(),
            "short": [al.a.short, al.b.short], "range": [lo, hi], "paired": paired,
            "power": power_data(al),
            "hover": figures_compare.browser_hovers(al),  # the live maps' hover templates
            "readout": figures_compare.readouts(al),  # what the live readout's line reads
            "deltaRange": list(comparing.delta_range(al)),
            "format": {**side, "delta": [al.decimals, al.min_decimals],
                                       "higher": al.higher_is_better,
                                       "unit": al.a.metric.unit,
                                       "seDecimals": fmt.se_places(al.decimals)}}


# the app's power map's colours (components.compare: "YlOrRd" as plotly.py reads it, light at
# 0; plotly.js's own "YlOrRd" runs the other way), written out: a test compares them
POWER_COLORSCALE = [[k / 8, c] for k, c in enumerate((
    "rgb(255,255,204)", "rgb(255,237,160)", "rgb(254,217,118)", "rgb(254,178,76)",
    "rgb(253,141,60)", "rgb(252,78,42)", "rgb(227,26,28)", "rgb(189,0,38)", "rgb(128,0,38)"))]


def power_data(al) -> dict | None:
    """A Compare page's power (issue 39), as the app gives it: each paired cell's sentence
    (:func:`evalmaps.analysis.compare.power_text`: 'B − A = +4.1 ± 1.9 points (SE, ...); the
    smallest difference these 717 items detect is 5.3 points; ...', keyed by the cell's row and
    column labels joined by U+0000) and its mde in shown units, the power map's colour (the
    app's ``power=1``); None where no cell is paired."""
    if not al.paired:
        return None
    scale = al.a.metric.scale if al.a.metric.percent else 1
    cells = {}
    for (i, j), r in al.paired.items():
        text = comparing.power_text(al, r)
        if text is None:
            continue
        cells[f"{al.y.labels[i]}\u0000{al.x.labels[j]}"] = {"text": text, "mde": r.mde * scale}
    if not cells:
        return None
    unit = comparing.paired_unit(al).strip()
    return {"cells": cells, "places": comparing.paired_places(al),
            "colorscale": POWER_COLORSCALE, "title": "mde" + (f" ({unit})" if unit else "")}


# --------------------------------------------------------------------------- the site

@dataclass
class Written:
    out: Path
    figures: list[str] = field(default_factory=list)
    compares: int = 0
    bytes: int = 0


def file_names(figures: list[Figure]) -> dict[str, str]:
    """A safe file name per figure id (ids are already safe; slugged to be sure), unique."""
    names: dict[str, str] = {}
    for figure in figures:
        name = re.sub(r"[^A-Za-z0-9._-]+", "-", figure.id).strip(".-") or slugify(figure.id)
        while name in names.values():
            name += "_"
        names[figure.id] = name
    return names


def site_files(figures: list[Figure], compares: list[CompareView]):
    """(relative path, bytes or a source Path) of every file of the site."""
    names = file_names(figures)
    answers = [view.to_dict() for view in compares]
    yield "index.html", index_page(figures, answers, names).encode()
    yield f"assets/{PLOTLY}", plotly_js()
    for script in SHARED_SCRIPTS:
        yield f"assets/{script}", runfile("assets") / script
    for own in OWN_FILES:
        yield f"assets/{own}", SCRIPTS / own
    for figure in figures:
        name = names[figure.id]
        yield f"figures/{name}.html", figure_page(figure, name).encode()
        yield f"data/{name}.js", _js(figure.id, figure_data(figure)).encode()
    for k, (view, payload) in enumerate(zip(compares, answers), 1):
        yield f"compare/{k}.html", compare_page(payload, k).encode()
        yield f"data/compare-{k}.js", _js(f"compare-{k}", compare_data(view, payload)).encode()


def write_site(catalog: Catalog, out: Path, figure_ids: list[str] | None = None,
               pairs: list[tuple[str, str]] | None = None, force: bool = False,
               cluster: str | None = None) -> Written:
    """Write the site into ``out`` (created; refused when it holds anything, unless ``force``).
    Nothing is written outside it. ``pairs`` None: the catalog's own comparison (its "compare":
    R1-Llama against R1-Qwen for the built-in figures) when both its figures are bundled.
    ``cluster``: every Compare page clustered by the items' column (``/api/compare?cluster=``);
    a pair whose items do not keep it is refused."""
    out = Path(out)
    check_output(out, force)
    figures = pick_figures(catalog, figure_ids)
    if pairs is None:
        pairs = default_pairs(catalog, figures)
    compares = compare_pages(catalog, list(pairs), cluster)
    root = out.resolve()
    written = Written(out, [f.id for f in figures], len(compares))
    try:
        out.mkdir(parents=True, exist_ok=True)
        for rel, content in site_files(figures, compares):
            target = (root / rel).resolve()
            if root not in target.parents:  # file names come from ids: never outside
                raise BundleError(f"'{rel}' would be written outside {out}.")
            target.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, Path):
                shutil.copyfile(content, target)
            else:
                target.write_bytes(content)
            written.bytes += target.stat().st_size
    except OSError as exc:
        raise BundleError(f"{out}: cannot write the site ({exc.strerror or exc}). Check that "
                          f"the folder is writable.") from None
    return written


def site_zip(catalog: Catalog, figure_id: str) -> bytes:
    """The site of one figure as a zip (the Data page's download), its files under one folder
    named after the figure."""
    figures = pick_figures(catalog, [figure_id])
    top = file_names(figures)[figure_id] + "-site"
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as archive:
        for rel, content in site_files(figures, []):
            data = content.read_bytes() if isinstance(content, Path) else content
            # a fixed date: the same figure always zips to the same bytes
            info = zipfile.ZipInfo(f"{top}/{rel}", date_time=(1980, 1, 1, 0, 0, 0))
            archive.writestr(info, data, compress_type=zipfile.ZIP_DEFLATED)
    return buf.getvalue()
