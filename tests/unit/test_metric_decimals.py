"""Decimals per metric: in a figure of several metrics each one is written with its own
decimals (a count such as AlpacaEval's n_total 805 with none, a win rate with the figure's
four), everywhere a number is written: hover, tables, Trends, Compare, the Data page's grid and
the static bundle. The CSV download keeps exact values (it writes the cells' own numbers)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from components.datatable import cells_grid
from components.trends import stats_rows
from evalmaps.analysis import export
from evalmaps.analysis.compare import compare, sentences
from evalmaps.analysis.slicing import slice_panel
from evalmaps.analysis.trends import analyse
from evalmaps.catalog.imports import figure_of, import_bytes
from evalmaps.catalog.load import load_catalog
from evalmaps.core import text as fmt
from evalmaps.core.errors import DataError
from evalmaps.core.figure import Catalog
from evalmaps.figures.hover import hover_template
from evalmaps.service.bundle import panel_data
from tests.unit.test_metric_display import ENTRY, write_mixed

ROOT = Path(__file__).resolve().parents[2]
ALPACA = (ROOT.parent / "shared" / "external" / "alpaca-eval" / "data_AlpacaEval"
          / "alpaca_eval_gpt4_leaderboard.csv")
ROWS = ["gpt4_1106_preview", "gpt4_0314", "claude"]


@pytest.fixture(scope="module")
def alpaca():
    if not ALPACA.exists():
        pytest.skip(f"{ALPACA} is absent: tests of real tool output skipped")
    return figure_of(import_bytes(ALPACA.read_bytes(), ALPACA.name)[0])


def panel(figure, metric: str):
    return next(p for p in figure.panels.values() if p.facets["metric"] == metric)


def test_each_alpaca_eval_metric_has_its_own_decimals(alpaca):
    assert alpaca.decimals == 4  # the win rates write 14 decimals: at most 4 are shown
    assert {label: alpaca.decimals_for({"metric": label})
            for label in alpaca.spec.dims["metric"].labels} == {
        "win_rate": 4, "n_wins": 0, "n_wins_base": 0, "n_draws": 0, "n_total": 0,
        "avg_length": 0, "discrete_win_rate": 4, "length_controlled_winrate": 4}


def test_a_count_is_written_whole_in_hover_table_and_bundle(alpaca):
    counts = slice_panel(alpaca, panel(alpaca, "n_total"), rows=ROWS)
    rates = slice_panel(alpaca, panel(alpaca, "win_rate"), rows=ROWS)
    assert (counts.decimals, rates.decimals) == (0, 4)
    assert hover_template(counts) == ("Model %{y} · Mode %{x} · n_total %{z:.0f}<br>Metric n_total",
                                      "Model %{y} · Mode %{x} · n_total not reported<br>Metric "
                                      "n_total")
    assert export.to_markdown(export.table_of_view(counts)) == (
        "**alpaca\\_eval\\_gpt4\\_leaderboard.csv — n\\_total.**\n\n"
        "| Model \\\\ Mode | minimal | community | verified |\n| :-- | --: | --: | --: |\n"
        "| gpt4\\_1106\\_preview | **804** |  |  |\n| gpt4\\_0314 |  |  | **805** |\n"
        "| claude |  |  | **805** |\n\n"
        "Bold: the best value of each column (highest). Empty: not reported by the source. "
        "Provenance: imported.\n")
    assert export.to_markdown(export.table_of_view(rates)).split("\n")[4:7] == [
        "| gpt4\\_1106\\_preview | **97.6990** ± 0.5105 |  |  |",
        "| gpt4\\_0314 |  |  | **94.7826** ± 0.7490 |",
        "| claude |  |  | 91.5528 ± 0.9808 |"]
    # the static bundle: each panel's decimals and hover, as the server writes them
    shown = {m: panel_data(alpaca, panel(alpaca, m)) for m in ("n_total", "win_rate")}
    assert {m: (d["decimals"], d["hover"]["value"]) for m, d in shown.items()} == {
        "n_total": (0, "%{z:.0f}"), "win_rate": (4, "%{z:.4f}%")}
    assert shown["n_total"]["suspectNote"] == []  # no range: no standard error is suspect


def test_trends_and_compare_write_each_metric_with_its_decimals(alpaca):
    views = [slice_panel(alpaca, panel(alpaca, m), rows=ROWS) for m in ("n_total", "win_rate")]
    trends = analyse(views)
    assert [(r["panel"], r["line_text"], r["mean_text"], r["min_text"])
            for r in stats_rows(trends)] == [
        ("n_total", "gpt4_1106_preview", "804", "804 at minimal"),
        ("n_total", "gpt4_0314", "805", "805 at verified"),
        ("n_total", "claude", "805", "805 at verified"),
        ("win_rate", "gpt4_1106_preview", "97.6990%", "97.6990% at minimal"),
        ("win_rate", "gpt4_0314", "94.7826%", "94.7826% at verified"),
        ("win_rate", "claude", "91.5528%", "91.5528% at verified")]
    assert trends.observations[1] == (
        "Highest n_total: 805 at model gpt4_0314 at mode verified (n_total) and model claude at "
        "mode verified (n_total); lowest: 804 at model gpt4_1106_preview, mode minimal "
        "(n_total). Highest win_rate: 97.6990% at model gpt4_1106_preview, mode minimal "
        "(win_rate); lowest: 91.5528% at model claude, mode verified (win_rate).")
    al = compare(Catalog([alpaca]), f"{alpaca.id}:n-wins", f"{alpaca.id}:n-total")
    assert (al.a.decimals, al.b.decimals) == (0, 0)
    assert sentences(al)[:2] == [
        "n_total is higher than n_wins in 102 of 102 cells, by 191.4 on average over cells.",
        "The largest gain is +805 at Model text_davinci_003 · Mode minimal; n_total is never "
        "lower."]


def test_the_data_grid_formats_each_metric_with_its_decimals(alpaca):
    places = {label: alpaca.decimals_for({"metric": label})
              for label in alpaca.spec.dims["metric"].labels}
    grid = cells_grid("g", alpaca.spec, [], alpaca.decimals, ("se",), places)
    formatters = {c["field"]: c["valueFormatter"]["function"] for c in grid.columnDefs
                  if "valueFormatter" in c and c["field"] in ("value", "se")}
    counts = " || ".join(f"(params.data[\"metric\"] + '') === \"{m}\""
                         for m in ("n_wins", "n_wins_base", "n_draws", "n_total", "avg_length"))
    assert formatters == {
        "value": f"params.value == null ? '' : ({counts}) ? d3.format('.0f')(params.value) : "
                 f"d3.format('.4f')(params.value)",
        "se": f"params.value == null ? '' : ({counts}) ? d3.format('.1f')(params.value) : "
              f"d3.format('.4f')(params.value)"}  # 4 + 1, at most 4
    one = cells_grid("g", alpaca.spec, [], alpaca.decimals)  # no per-metric decimals given
    assert [c["valueFormatter"]["function"] for c in one.columnDefs if c["field"] == "value"] \
        == ["params.value == null ? '' : d3.format('.4f')(params.value)"]


def test_a_catalog_entry_gives_a_metric_its_decimals(tmp_path):
    labels = json.loads(json.dumps(ENTRY["metrics"]["labels"]))
    labels["perplexity"]["decimals"] = 1
    write_mixed(tmp_path / "given", metrics={"dim": "metric", "labels": labels})
    figure = load_catalog(tmp_path / "given").figure("mixed")
    assert figure.decimals == 2  # acc writes '0.25'
    assert [figure.decimals_for({"metric": m, "run": "r1"}) for m in ("acc", "perplexity")] \
        == [2, 1]
    view = slice_panel(figure, next(iter(figure.panels.values())))
    assert view.decimals == 2 and view.panel.facets == {"metric": "acc", "run": "r1"}
    # found from the values where the entry gives none: perplexity's are whole numbers
    write_mixed(tmp_path / "found")
    found = load_catalog(tmp_path / "found").figure("mixed")
    assert [found.decimals_for({"metric": m}) for m in ("acc", "perplexity")] == [2, 0]
    # a figure whose entry gives its decimals keeps them for each metric without its own
    write_mixed(tmp_path / "figure", decimals=3)
    fixed = load_catalog(tmp_path / "figure").figure("mixed")
    assert [fixed.decimals_for({"metric": m}) for m in ("acc", "perplexity")] == [3, 3]


def test_a_metric_s_decimals_must_be_a_whole_number_in_range(tmp_path):
    labels = json.loads(json.dumps(ENTRY["metrics"]["labels"]))
    labels["acc"]["decimals"] = 2.5
    write_mixed(tmp_path, metrics={"dim": "metric", "labels": labels})
    with pytest.raises(DataError) as err:
        load_catalog(tmp_path)
    assert "\"metrics.labels['acc'].decimals\" must be a whole number from 0 to 4." in str(err.value)


def test_a_column_of_means_shares_decimals_within_each_metric():
    from evalmaps.core.figure import Metric

    rate, count = Metric("win_rate", "%"), Metric("n_total")
    # worked by hand: rates of 2 decimals: their means take 2 to 4 ('97.50', '91.55'), so both
    # take 2; counts: their means take 0 to 2 ('805', '804.5'), so both take 1 (with one
    # count of decimals for the column, '805.00')
    assert fmt.mean_column([rate, rate, count, count], [97.5, 91.55, 805.0, 804.5],
                           [2, 2, 0, 0]) == ["97.50%", "91.55%", "805.0", "804.5"]


def test_the_static_bundle_writes_each_metric_as_the_live_app(alpaca, tmp_path):
    from urllib.parse import parse_qs

    from evalmaps.analysis.slicing import view_ranges, views_for
    from evalmaps.figures import heatmap
    from evalmaps.service import bundle
    from evalmaps.views.state import parse_state
    from tests.unit.test_bundle import node_answer

    catalog = Catalog([alpaca])
    bundle.write_site(catalog, tmp_path / "site")
    fragments = ["metric=n_total", "metric=win_rate&metric=n_wins"]
    got = node_answer(tmp_path, {"figure": alpaca.id, "views": fragments,
                                 "file": str(tmp_path / "site" / f"data/{alpaca.id}.js")})
    templates = {}
    for fragment, answer in zip(fragments, got["views"]):
        state = parse_state({"figure": alpaca.id, **parse_qs(fragment)}, catalog)
        views, _ = views_for(alpaca, state)
        ranges = view_ranges(alpaca.spec, views)
        for view, mine, zr in zip(views, answer["panels"], ranges):
            table = export.table_of_view(view)
            assert mine["markdown"] == export.to_markdown(table)
            live = heatmap.panel_traces(view, zr[state.color])
            assert set(mine["templates"]) == {t["hovertemplate"] for t in live
                                              if "hovertemplate" in t}
            templates[view.panel.facets["metric"]] = sorted(mine["templates"])[0]
    assert [m for m in templates] == ["n_total", "win_rate", "n_wins"]
    assert "n_total %{z:.0f}" in templates["n_total"]
    assert "n_wins %{z:.0f}" in templates["n_wins"]
    assert "win_rate %{z:.4f}%" in templates["win_rate"]


def test_a_narrow_count_is_ticked_at_whole_numbers_and_the_rest_as_plotly_picks(alpaca):
    """n_total runs from 795 to 805: Plotly could tick its colour bar at values no count takes.
    A whole-number metric over a narrow range is ticked at each unit; wide or fractional ones are
    left to Plotly, and a fraction shown as percent keeps percent ticks."""
    from evalmaps.figures.heatmap import panel_traces, scale_ticks

    def colorbar(metric):
        view = slice_panel(alpaca, panel(alpaca, metric))
        return {k: v for k, v in panel_traces(view, None)[0]["colorbar"].items()
                if k in ("dtick", "tick0", "tickformat")}

    values = panel(alpaca, "n_total").z
    assert (float(values[values == values].min()), float(values[values == values].max())) == (
        795.0, 805.0)
    assert colorbar("n_total") == {"dtick": 1, "tick0": 0}
    assert colorbar("avg_length") == {}  # whole numbers, but over hundreds
    assert colorbar("win_rate") == {}
    # a page that may switch to a wide colour range is left to Plotly too
    assert scale_ticks(False, 0, [(804, 805), (0, 1000)]) == {}
    assert scale_ticks(False, 0, [(804, 805), None]) == {"dtick": 1, "tick0": 0}
    assert scale_ticks(True, 0, [(0, 1)]) == {"tickformat": ".4~%"}
    assert scale_ticks(False, 1, [(0, 5)]) == {}
