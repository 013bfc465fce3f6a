"""Clustered standard errors of per-item records (issue 39): ``--cluster COL`` on import, the
records' ``cluster:COL`` column, a cell's paired comparison clustered by it (hand-worked cases,
statsmodels, and the issue's properties), and the errors a bad cluster column gets."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalmaps.analysis import power
from evalmaps.analysis.paired import (
    clustered_test,
    common_clusters,
    paired_cell,
    paired_values,
    with_error_bars,
)
from evalmaps.catalog.item_shaping import import_items
from evalmaps.catalog.items import ItemRecords, ItemScores
from evalmaps.readers.base import ImportFailed, ImportOptions, OptionError


def scores(ids, totals, clusters=None, n=None) -> ItemScores:
    ids = np.array(ids, dtype=object)
    order = np.argsort(ids, kind="stable")
    totals = np.asarray(totals, dtype=np.float64)[order]
    n = np.ones(len(ids), dtype=np.int64) if n is None else np.asarray(n, dtype=np.int64)[order]
    clusters = None if clusters is None else np.asarray(clusters, dtype=object)[order]
    binary = bool(np.isin(totals / n, (0.0, 1.0)).all())
    return ItemScores(ids[order], n, totals, binary, clusters)


def t_power(clusters: int) -> float:
    """mde / se over ``clusters`` clusters, from scipy: t_0.975 + t_0.8 at clusters - 1 df."""
    from scipy import stats

    return float(stats.t.ppf(0.975, clusters - 1) + stats.t.ppf(0.8, clusters - 1))


# --------------------------------------------------------------------------- one cell

def test_a_paired_cell_hand_worked():
    # differences d = b - a over 6 items in clusters {q0, q1}, {q2}, {q3, q4, q5}:
    # a = 0 1 0 0 1 0, b = 1 1 1 0 1 1 -> d = 1 0 1 0 0 1, mean 0.5
    # cluster sums of (d - 0.5): 0, 0.5, -0.5 -> se_diff_clustered = sqrt(0.5) / 6
    ids = [f"q{i}" for i in range(6)]
    groups = ["p1", "p1", "p2", "p3", "p3", "p3"]
    a = scores(ids, [0, 1, 0, 0, 1, 0], groups)
    b = scores(ids, [1, 1, 1, 0, 1, 1], groups)
    r = paired_cell(a, b)
    assert (r.n, r.n_clusters, r.diff) == (6, 3, 0.5)
    assert r.se_diff == pytest.approx(math.sqrt(0.3 / 6))  # s² of 1 0 1 0 0 1 is 0.3
    assert r.se_diff_clustered == pytest.approx(math.sqrt(0.5) / 6)
    # A: mean 1/3, cluster sums of (a - 1/3): 1/3, -1/3, 0 -> sqrt(2/9) / 6
    assert r.a_se_clustered == pytest.approx(math.sqrt(2 / 9) / 6)
    # 3 clusters: Student's t with 2 df, whose distribution function has a closed form,
    # F(t) = 1/2 + t / (2 sqrt(2 + t²)): its q quantile is (2q - 1) / sqrt(2 q (1 - q))
    se_c = math.sqrt(0.5) / 6
    t975, t80 = 0.95 / math.sqrt(2 * 0.975 * 0.025), 0.6 / math.sqrt(2 * 0.8 * 0.2)
    assert t975 == pytest.approx(4.302653, abs=1e-6)
    assert r.mde == pytest.approx((t975 + t80) * se_c, rel=1e-9)
    # the test is the Wald test on the clustered SE with t at 2 df: p = 1 - t / sqrt(2 + t²)
    assert r.test == "clustered"
    stat = 0.5 / se_c
    assert r.p == pytest.approx(1 - stat / math.sqrt(2 + stat * stat), rel=1e-9)
    assert (r.ci_low, r.ci_high) == pytest.approx((0.5 - t975 * se_c, 0.5 + t975 * se_c),
                                                  rel=1e-9)


def test_without_clusters_the_cell_is_as_before():
    ids = [f"q{i}" for i in range(8)]
    a, b = scores(ids, [0, 1, 0, 0, 1, 0, 1, 0]), scores(ids, [1, 1, 1, 0, 1, 1, 0, 1])
    r = paired_cell(a, b)
    assert r.test == "mcnemar" and r.se_diff_clustered is None and r.n_clusters is None
    assert r.a_se_clustered is None and r.b_se_clustered is None


def test_a_cell_of_one_cluster_keeps_its_unclustered_test():
    ids = [f"q{i}" for i in range(8)]
    one = ["only"] * 8
    r = paired_cell(scores(ids, [0, 1, 0, 0, 1, 0, 1, 0], one),
                    scores(ids, [1, 1, 1, 0, 1, 1, 0, 1], one))
    assert r.test == "mcnemar" and r.n_clusters == 1 and r.se_diff_clustered is None
    assert r.mde == pytest.approx(power.POWER_FACTOR * r.se_diff)  # the normal's: no clusters


def test_too_few_items_are_not_tested_even_clustered():
    ids = ["q1", "q2", "q3"]
    r = paired_cell(scores(ids, [0, 1, 0], ["x", "y", "z"]), scores(ids, [1, 1, 1], ["x", "y", "z"]))
    assert r.test == "none" and r.p is None and r.se_diff_clustered is not None


def test_common_clusters_merge_where_the_sides_disagree():
    same = common_clusters(["p", "p", "q"], ["p", "p", "q"])
    assert list(same) == ["p", "p", "q"]
    # A puts items 0 and 1 together, B items 1 and 2: one cluster of the three, item 3 alone
    merged = common_clusters(["p", "p", "q", "r"], ["u", "v", "v", "w"])
    assert merged[0] == merged[1] == merged[2] != merged[3]


def test_the_clustered_test_against_statsmodels():
    sm = pytest.importorskip("statsmodels.api")
    rng = np.random.default_rng(5)
    groups = np.repeat(np.arange(30), rng.integers(1, 9, size=30))
    effect = rng.normal(0, 0.3, size=30)[groups]
    a = (rng.random(len(groups)) < 0.5).astype(float)
    b = (rng.random(len(groups)) < np.clip(0.55 + effect, 0, 1)).astype(float)
    r = clustered_test(with_error_bars(paired_values(a, b), a, b, groups.astype(str)))
    fit = sm.OLS(b - a, np.ones(len(a))).fit(cov_type="cluster", cov_kwds={
        "groups": groups, "use_correction": False})
    assert r.se_diff_clustered == pytest.approx(float(fit.bse[0]), rel=1e-9)
    assert r.n_clusters == 30
    # statsmodels' t-test of the constant (use_t=True: t with groups - 1 df) is the same test
    t_fit = sm.OLS(b - a, np.ones(len(a))).fit(cov_type="cluster", use_t=True, cov_kwds={
        "groups": groups, "use_correction": False})
    assert t_fit.df_resid_inference == 29
    assert r.p == pytest.approx(float(t_fit.pvalues[0]), rel=1e-9)
    low, high = t_fit.conf_int(alpha=0.05)[0]
    assert (r.ci_low, r.ci_high) == pytest.approx((low, high), abs=1e-9)
    # and wider than the normal's (use_t=False): 30 clusters are not infinitely many
    z_low, _ = fit.conf_int(alpha=0.05)[0]
    assert low < z_low and r.p > float(fit.pvalues[0])


# --------------------------------------------------------------------------- properties

cells = st.integers(6, 40).flatmap(lambda n: st.tuples(
    st.lists(st.sampled_from([0.0, 0.5, 1.0]), min_size=n, max_size=n),
    st.lists(st.sampled_from([0.0, 0.5, 1.0]), min_size=n, max_size=n),
    st.lists(st.integers(0, 5), min_size=n, max_size=n)))


@settings(max_examples=60, deadline=None)
@given(cells)
def test_swapping_a_and_b_keeps_the_errors_and_the_mde(cell):
    a, b, groups = cell
    ids = [f"q{i:02d}" for i in range(len(a))]
    labels = [f"c{g}" for g in groups]
    ab = paired_cell(scores(ids, a, labels), scores(ids, b, labels))
    ba = paired_cell(scores(ids, b, labels), scores(ids, a, labels))
    for name in ("se_diff", "se_diff_clustered", "mde", "n_clusters", "items_needed", "p", "test"):
        assert getattr(ab, name) == pytest.approx(getattr(ba, name), abs=1e-12), name
    assert (ab.a_se_clustered, ab.b_se_clustered) == (ba.b_se_clustered, ba.a_se_clustered)
    if ab.ci_low is not None:
        assert ab.ci_low == pytest.approx(-ba.ci_high, abs=1e-9)


@settings(max_examples=60, deadline=None)
@given(cells)
def test_clusters_of_one_item_give_se_times_root_of_n_minus_1_over_n(cell):
    a, b, _ = cell
    n = len(a)
    ids = [f"q{i:02d}" for i in range(n)]
    r = paired_cell(scores(ids, a, ids), scores(ids, b, ids))
    assert r.n_clusters == n
    assert r.se_diff_clustered == pytest.approx(r.se_diff * math.sqrt((n - 1) / n), abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(cells, st.integers(2, 3))
def test_duplicating_every_item_leaves_the_clustered_errors_unchanged(cell, times):
    a, b, groups = cell
    ids = [f"q{i:02d}" for i in range(len(a))]
    labels = [f"c{g}" for g in groups]
    once = paired_cell(scores(ids, a, labels), scores(ids, b, labels))
    copies = [f"{i}-{t}" for t in range(times) for i in ids]
    again = paired_cell(scores(copies, a * times, labels * times),
                        scores(copies, b * times, labels * times))
    for name in ("se_diff_clustered", "a_se_clustered", "b_se_clustered"):
        one, two = getattr(once, name), getattr(again, name)
        assert (one is None) == (two is None)
        if one is not None:
            assert two == pytest.approx(one, abs=1e-12), name


@settings(max_examples=60, deadline=None)
@given(cells)
def test_the_clustered_interval_leaves_out_0_exactly_when_p_is_below_5_percent(cell):
    a, b, groups = cell
    ids = [f"q{i:02d}" for i in range(len(a))]
    labels = [f"c{g}" for g in groups]
    r = paired_cell(scores(ids, a, labels), scores(ids, b, labels))
    if r.test == "clustered" and abs(abs(r.diff) / r.se_diff_clustered
                                     - power.critical(r.n_clusters)) > 1e-6:
        assert (r.ci_low > 0 or r.ci_high < 0) == (r.p < 0.05)


# --------------------------------------------------------------------------- records

def test_records_keep_the_cluster_and_give_it_per_item(tmp_path):
    frame = pd.DataFrame({"model": ["m"] * 4, "task": ["t"] * 4, "item": ["b", "a", "a", "c"],
                          "sample": [0, 0, 1, 0], "score": [1.0, 0.0, 1.0, 1.0],
                          "cluster:src": ["y", "x", "x", "y"]})
    records = ItemRecords.write(tmp_path, ["model", "task"], frame)
    assert records.clusters == ("src",)
    cell = records.cells({"model": "m"}, ("task",), "src")[("t",)]
    assert list(cell.items) == ["a", "b", "c"] and list(cell.clusters) == ["x", "y", "y"]
    assert list(cell.on(np.array(["c"], dtype=object)).clusters) == ["y"]
    assert records.cells({"model": "m"}, ("task",))[("t",)].clusters is None
    with pytest.raises(KeyError):
        records.cells({"model": "m"}, ("task",), "passage")


TABLE = pd.DataFrame({"model": ["m"] * 4, "category": ["law", "law", "math", "math"],
                      "question_id": ["1", "2", "3", "4"], "src": ["a", "b", "a", "c"],
                      "answer": ["A", "B", "C", "D"], "pred": ["A", "C", "C", "D"]})


def items_of(frame: pd.DataFrame, cluster: str | None):
    options = ImportOptions(item="question_id", correct=("pred", "answer"), cluster=cluster)
    return import_items(frame, "t.csv", options, [])


def test_import_keeps_the_cluster_column_out_of_the_dimensions():
    records, dims, _ = items_of(TABLE, "src")
    assert "src" not in dims and list(records["cluster:src"]) == ["a", "b", "a", "c"]
    plain, plain_dims, _ = items_of(TABLE.drop(columns="src"), None)
    assert plain_dims == dims and "cluster:src" not in plain


@pytest.mark.parametrize("frame, cluster, message", [
    (TABLE, "passage", "--cluster names the column 'passage', which the table does not have"),
    (TABLE.assign(src=["a", "", "a", "c"]), "src", "the cluster column 'src' is empty"),
    (TABLE, "question_id", "--cluster names the column 'question_id', which holds the items'"),
    (pd.concat([TABLE, TABLE.assign(src=["z", "b", "a", "c"], **{"sample": 1})]).assign(
        sample=[0] * 4 + [1] * 4), "src", "item '1' is in more than one cluster of 'src'"),
])
def test_a_bad_cluster_column_is_one_sentence_naming_it(frame, cluster, message):
    with pytest.raises(ImportFailed) as failed:
        items_of(frame, cluster)
    assert message in str(failed.value)


def test_the_option_is_parsed_once_for_the_cli_and_serve():
    assert ImportOptions.from_words(["--item", "id", "--cluster", "src"]).cluster == "src"
    assert ImportOptions.parse(cluster=" src ").cluster == "src"
    with pytest.raises(OptionError, match="--cluster takes the name of the column"):
        ImportOptions.parse(cluster=" ")


# --------------------------------------------------------------------------- the page's state

def test_the_compare_page_reads_cluster_leniently(tmp_path):
    from evalmaps.core.figure import Catalog
    from evalmaps.views.state import parse_compare_state
    from tests.items_fixture import item_scores, items_figure

    frame = item_scores(n_items=12)
    frame["cluster:src"] = "s" + (frame["item"].str[1:].astype(int) % 3).astype(str)
    catalog = Catalog([items_figure(tmp_path, "toy", frame)])
    query = {"a": ["toy:small"], "b": ["toy:large"]}
    state = parse_compare_state({**query, "cluster": ["src"]}, catalog)
    assert state.cluster == "src" and not state.problems
    assert state.to_query().endswith("&cluster=src")
    wrong = parse_compare_state({**query, "cluster": ["passage"]}, catalog)
    assert wrong.cluster is None
    assert wrong.problems == ("cluster=passage: the standard errors can be clustered only by a "
                              "column both sides' per-item records keep (an import's --cluster "
                              "COL): here src; not clustered.",)


# --------------------------------------------------------------------------- Compare's words

@pytest.fixture()
def toy(tmp_path):
    from evalmaps.core.figure import Catalog
    from tests.items_fixture import item_scores, items_figure

    frame = item_scores(n_items=40, seed=3)
    frame["cluster:src"] = "s" + (frame["item"].str[1:].astype(int) // 5).astype(str)
    return Catalog([items_figure(tmp_path, "toy", frame)])


def test_the_power_sentence_is_the_issues(toy):
    from dataclasses import replace

    from evalmaps.analysis.compare import align, power_text, resolve_pair, with_paired

    a, b = resolve_pair(toy, "toy:small", "toy:large")
    al = with_paired(align(a.as_percent(), b.as_percent()), cluster="src")
    result = replace(next(iter(al.paired.values())), n=717, diff=0.041, se_diff=0.02,
                     se_diff_clustered=0.019, n_clusters=48, mde=0.053, items_needed=1210)
    assert power_text(al, result) == (
        "B − A = +4.1 ± 1.9 points (SE, clustered by src, 48 clusters); the smallest difference "
        "these 717 items detect is 5.3 points, too few to detect a difference of 1 point; this "
        "one needs 1,210 items")
    sharp = replace(result, n=120_000, se_diff_clustered=0.003, mde=0.0084, items_needed=5020)
    assert power_text(al, sharp) == (
        "B − A = +4.1 ± 0.3 points (SE, clustered by src, 48 clusters); the smallest difference "
        "these 120,000 items detect is 0.8 points; this one needs 5,020 items")
    plain = with_paired(align(a, b))  # a fraction, not clustered
    r = replace(next(iter(plain.paired.values())), diff=0.0, items_needed=None, mde=0.2, se_diff=0.07)
    assert power_text(plain, r) == (
        "B − A = 0.000 ± 0.070 (SE, not clustered); the smallest difference these 40 items "
        "detect is 0.200, too few to detect a difference of 0.01; B and A do not differ on "
        "these items")


def test_the_hover_writes_the_power_sentence_from_the_cells_numbers(toy):
    from evalmaps.analysis.compare import compare
    from evalmaps.figures.compare import delta_hovers

    al = compare(toy, "toy:small", "toy:large", cluster="src")
    _, special, data = delta_hovers(al)
    for (i, j), r in al.paired.items():
        (group,) = [g for g in special if g.mask[i, j]]
        # 8 clusters of 5 items: few, so the hover names t's degrees of freedom
        assert r.n_clusters == 8
        assert "(SE, clustered by src, only 8 clusters: t with 7 df);" in group.hovertemplate
        assert data[i, j, 11] == pytest.approx(r.se_diff_clustered)
        assert data[i, j, 12] == pytest.approx(r.mde)
        assert (data[i, j, 13], data[i, j, 14]) == (r.items_needed, r.n_clusters)
        assert data[i, j, 12] == pytest.approx(t_power(8) * data[i, j, 11])
        # what the cell's hover says is the sentence, a line at a time
        lines = group.hovertemplate.split("<br>")
        start = lines.index(next(line for line in lines if line.startswith("B − A = ")))
        words = " ".join(lines[start:])
        for k, v in ((5, f"{r.diff:+.3f}"), (11, f"{r.se_diff_clustered:.3f}"),
                     (12, f"{r.mde:.3f}")):
            words = words.replace(f"%{{customdata[{k}]:{'+' if k == 5 else ''}.3f}}", v)
        for k, v in ((13, r.items_needed), (14, r.n_clusters), (4, r.n)):
            words = words.replace(f"%{{customdata[{k}]:,.0f}}", f"{v:,}")
        from evalmaps.analysis.compare import power_text
        assert words == power_text(al, r)


# --------------------------------------------------------------------------- the power map

def test_the_power_map_colours_each_cell_by_its_mde_and_hovers_b_minus_a(toy):
    from evalmaps.analysis.compare import compare
    from evalmaps.figures.compare import POWER_COLORSCALE, compare_figures, mde_grid

    al = compare(toy, "toy:small", "toy:large", cluster="src")
    grid = mde_grid(al)
    for (i, j), r in al.paired.items():
        assert grid[i, j] == r.mde == pytest.approx(t_power(r.n_clusters) * r.se_diff_clustered)
    _, _, plain = compare_figures(al, "shared", True)
    _, _, mapped = compare_figures(al, "shared", True, power=True)
    assert mapped["data"][0]["colorbar"]["title"]["text"] == "mde"
    assert mapped["data"][0]["colorscale"] != plain["data"][0]["colorscale"]
    assert mapped["data"][0]["zmin"] == 0 and mapped["data"][0]["zmax"] == pytest.approx(
        float(np.nanmax(grid)))
    assert POWER_COLORSCALE and "zmid" not in mapped["data"][0]
    hovers = [t["hovertemplate"] for t in mapped["data"] if "hovertemplate" in t]
    # the hover reads B − A from its own column, never the mde the cell is coloured by
    assert all("B − A %{z" not in h for h in hovers)
    assert any("B − A %{customdata[15]:+.3f}" in h for h in hovers)
    assert len(mapped["layout"]["shapes"]) == len(plain["layout"]["shapes"])


def test_power_is_in_the_url_and_refused_where_no_items_are_kept(toy):
    from evalmaps.views.state import parse_compare_state

    query = {"a": ["toy:small"], "b": ["toy:large"]}
    state = parse_compare_state({**query, "power": ["1"]}, toy)
    assert state.power and state.to_query().endswith("&power=1") and not state.problems
    mean = parse_compare_state({"a": ["mean(toy:small,toy:large)"], "b": ["toy:large"],
                                "power": ["1"]}, toy)
    assert not mean.power
    assert mean.problems[-1].startswith("power=1 colours B − A by the smallest difference")


# --------------------------------------------------------------------------- tables for papers

def test_a_table_gives_value_pm_the_items_se_with_n_and_clusters(tmp_path):
    import re

    from evalmaps.views import BrowseView, payloads
    from tests.items_fixture import item_scores, items_figure

    frame = item_scores(n_items=40, seed=8)
    frame = frame[~((frame["model"] == "small") & (frame["task"] == "t1")
                    & (frame["item"] == "q000"))]  # one cell of 39 items: n differs
    frame["cluster:src"] = "c" + (frame["item"].str[1:].astype(int) // 5).astype(str)
    figure = items_figure(tmp_path, "toy", frame)
    query = {"model": ["small"], "cluster": ["src"]}
    text = payloads.table_payload(figure, query, "markdown")[0]
    cells = BrowseView.of_figure(figure, query).to_dict()["cells"]
    rows = [line for line in text.splitlines() if line.startswith("| easy") or
            line.startswith("| hard")]
    shown = [c for row in rows for c in row.strip("| ").split(" | ")[1:]]
    assert len(shown) == len(cells) == 6
    for said, cell in zip(shown, cells):
        value, se, n, g = re.fullmatch(r"\**([\d.]+)\** ± ([\d.]+) \((\d+); (\d+)\)", said).groups()
        assert float(se) == pytest.approx(cell["se_clustered"], abs=5e-5)  # 4 decimals
        assert (int(g), float(value)) == (cell["n_clusters"], pytest.approx(cell["value"],
                                                                             abs=5e-5))
        assert int(n) == (39 if cell["task"] == "t1" else 40)
    assert "clustered by src (without a small-sample correction)" in text
    assert "In parentheses: each cell's items (n) and clusters of src." in text
    plain = payloads.table_payload(figure, {"model": ["large"]}, "latex")[0]
    assert r"$\pm$ one standard error of the mean over the cell's items" in plain
    assert "n = 40 items a cell." in plain


# --------------------------------------------------------------------------- Browse and Trends

def test_trends_intervals_are_the_clustered_se_when_asked(toy):
    from scipy import stats

    from evalmaps.views import BrowseView, TrendsView
    from evalmaps.views.models import BadQuery

    query = {"figure": ["toy"], "model": ["small"], "cluster": ["src"]}
    trends = TrendsView.from_query(toy, query).to_dict()
    cells = {(c["level"], c["task"]): c for c in BrowseView.from_query(toy, query).to_dict()["cells"]}
    assert trends["cluster"] == "src"
    for line in trends["lines"]:
        for point in line["points"]:
            cell = cells[(line["line"], point["at"])]
            # Student's t at n_clusters - 1 df (8 clusters: 2.365, not 1.96)
            half = stats.t.ppf(0.975, cell["n_clusters"] - 1) * cell["se_clustered"]
            if 0 <= cell["value"] - half and cell["value"] + half <= 1:  # else a Wilson interval
                assert (point["lo"], point["hi"]) == pytest.approx(
                    (cell["value"] - half, cell["value"] + half), abs=1e-12)
    plain = TrendsView.from_query(toy, {"figure": ["toy"], "model": ["small"]}).to_dict()
    assert "cluster" not in plain and plain["lines"][0]["points"] != trends["lines"][0]["points"]
    with pytest.raises(BadQuery, match="no cluster column 'passage'"):
        TrendsView.from_query(toy, {**query, "cluster": ["passage"]})


def test_browse_hovers_the_items_se_clustered_when_asked(toy):
    from evalmaps.analysis.slicing import views_for
    from evalmaps.analysis.uncertainty import item_errors, with_item_se
    from evalmaps.views.state import parse_state

    figure = toy.figure("toy")
    state = parse_state({"figure": ["toy"], "cluster": ["src"]}, toy)
    assert state.cluster == "src" and state.to_query().endswith("cluster=src")
    views, _ = views_for(figure, state)
    shown = with_item_se(figure, views, 1, "src")
    for view, with_se in zip(views, shown):
        want = item_errors(figure.items, dict(view.panel.facets), ("level", "task"),
                           view.y_labels, view.x_labels, 1, "src")["se_clustered"]
        np.testing.assert_allclose(with_se.se, want)
    wrong = parse_state({"figure": ["toy"], "cluster": ["passage"]}, toy)
    assert wrong.cluster is None and "not clustered" in wrong.problems[-1]


def test_the_standard_errors_menu_offers_the_figures_columns_and_writes_the_url(toy, tmp_path):
    from components.controls import cluster_control, cluster_search, menu_cluster
    from tests.items_fixture import item_scores, items_figure

    col = cluster_control("browse", toy.figure("toy"), "src")
    menu = col.children.children[1]
    assert [o["value"] for o in menu.options] == ["", "src"] and menu.value == "src"
    assert col.style is None
    bare = items_figure(tmp_path / "bare", "bare", item_scores(n_items=8, seed=1))
    hidden = cluster_control("trends", bare, None)
    assert hidden.style == {"display": "none"} and hidden.children.children[1].value == ""
    assert cluster_search("?figure=toy&model=small", "src") == "?figure=toy&model=small&cluster=src"
    assert cluster_search("?figure=toy&cluster=src&model=a+b", "") == "?figure=toy&model=a+b"
    assert cluster_search(None, "src") == "?cluster=src" and cluster_search("?cluster=x", None) == ""
    assert menu_cluster("?figure=toy&cluster=src", menu.options) == "src"
    assert menu_cluster("?figure=toy&cluster=passage", menu.options) == ""
