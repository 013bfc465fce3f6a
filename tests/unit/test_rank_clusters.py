"""The ranking clustered (issue 39): ``cluster=COL`` on /api/rank, its CSV, the Python API and
the page's state. Each model's ``se_clustered`` against statsmodels' cluster-robust standard
error, its interval against scipy's t quantile, every pair against Compare's clustered cell
(the same p, interval and errors), the cluster bootstrap drawing whole clusters, and the
issue's properties (clusters of one item; every item duplicated)."""

from __future__ import annotations

import csv
import io
import math

import numpy as np
import pandas as pd
import pytest

from evalmaps.analysis import power
from evalmaps.analysis import rank as ranking
from evalmaps.analysis.paired import paired_cell
from evalmaps.core.figure import Catalog
from evalmaps.views.models import BadQuery
from evalmaps.views.rank import RankView
from evalmaps.views.state import parse_rank_state
from tests.items_fixture import item_scores, items_figure

sm = pytest.importorskip("statsmodels.api")
stats = pytest.importorskip("scipy.stats")

MODELS = ("m1", "m2", "m3")


def clustered_frame(seed: int = 3, n_items: int = 40, size: int = 5) -> pd.DataFrame:
    frame = item_scores(models=MODELS, n_items=n_items, seed=seed,
                        chance={"m1": 0.45, "m2": 0.6, "m3": 0.8})
    frame["cluster:src"] = "s" + (frame["item"].str[1:].astype(int) // size).astype(str)
    return frame


@pytest.fixture
def toy(tmp_path) -> Catalog:
    return Catalog([items_figure(tmp_path, "toy", clustered_frame(), models=MODELS)])


def answer(catalog: Catalog, **more) -> dict:
    query = {"figure": ["toy"], "by": ["model"], "cluster": ["src"], **more}
    return RankView.from_query(catalog, query).to_dict()


def sm_se(x, groups) -> float:
    fit = sm.OLS(np.asarray(x, dtype=float), np.ones(len(x))).fit(
        cov_type="cluster", cov_kwds={"groups": pd.factorize(np.asarray(groups))[0],
                                      "use_correction": False})
    return float(fit.bse[0])


def test_each_models_se_clustered_is_statsmodels_and_its_interval_uses_t(toy):
    frame = clustered_frame()
    body = answer(toy)
    assert body["cluster"] == "src" and len(body["cells"]) == 6
    for cell in body["cells"]:
        labels = cell["labels"]
        for m in cell["models"]:
            mine = frame[(frame["model"] == m["model"]) & (frame["level"] == labels["level"])
                         & (frame["task"] == labels["task"])]
            assert m["n_clusters"] == mine["cluster:src"].nunique() == 8
            assert m["se_clustered"] == pytest.approx(
                sm_se(mine["score"], mine["cluster:src"]), rel=1e-9)
            half = float(stats.t.ppf(0.975, 7)) * m["se_clustered"]
            if 0 <= m["mean"] - half and m["mean"] + half <= 1:  # else Wilson, within 0..1
                assert m["ci"] == pytest.approx([m["mean"] - half, m["mean"] + half], abs=1e-10)
            assert 0 <= m["ci"][0] <= m["mean"] <= m["ci"][1] <= 1


def test_every_pair_is_compares_clustered_cell(toy):
    figure = toy.figure("toy")
    body = answer(toy)
    for cell in body["cells"]:
        cells = figure.items.cells({"level": cell["labels"]["level"],
                                    "task": cell["labels"]["task"]}, ("model",), "src")
        for pair in cell["pairs"]:
            want = paired_cell(cells[(pair["a"],)], cells[(pair["b"],)])
            assert want.test == pair["test"] == "clustered"
            for name in ("p", "ci_low", "ci_high", "diff", "se_diff_clustered", "n_clusters",
                         "a_only", "b_only", "n"):
                assert pair[name] == getattr(want, name), name
    # Benjamini-Hochberg over every tested pair, as without clusters
    from statsmodels.stats.multitest import multipletests

    ps = [p["p"] for c in body["cells"] for p in c["pairs"]]
    adjusted = multipletests(ps, method="fdr_bh")[1]
    got = [p["p_adjusted"] for c in body["cells"] for p in c["pairs"]]
    np.testing.assert_allclose(got, adjusted, rtol=1e-12)


def test_the_pairs_test_is_statsmodels_t_test_with_clusters_minus_1_df(toy):
    frame = clustered_frame()
    body = answer(toy)
    cell = body["cells"][0]
    labels = cell["labels"]
    here = frame[(frame["level"] == labels["level"]) & (frame["task"] == labels["task"])]
    wide = here.pivot(index="item", columns="model", values="score")
    groups = here.drop_duplicates("item").set_index("item").loc[wide.index, "cluster:src"]
    for pair in cell["pairs"]:
        d = (wide[pair["b"]] - wide[pair["a"]]).to_numpy()
        fit = sm.OLS(d, np.ones(len(d))).fit(cov_type="cluster", use_t=True, cov_kwds={
            "groups": pd.factorize(groups.to_numpy())[0], "use_correction": False})
        assert pair["se_diff_clustered"] == pytest.approx(float(fit.bse[0]), rel=1e-9)
        assert pair["p"] == pytest.approx(float(fit.pvalues[0]), rel=1e-9)
        assert [pair["ci_low"], pair["ci_high"]] == pytest.approx(
            list(fit.conf_int(alpha=0.05)[0]), abs=1e-9)


def test_the_cluster_bootstrap_draws_whole_clusters():
    codes = np.array([0, 0, 1, 2, 2, 2, 3])
    counts = ranking.cluster_counts(codes, 4, seed=5, resamples=500)
    assert counts.shape == (500, 7)
    # items of one cluster are drawn together, and each resample draws 4 clusters
    assert (counts[:, 0] == counts[:, 1]).all() and (counts[:, 3] == counts[:, 5]).all()
    per_cluster = counts[:, [0, 2, 3, 6]]
    assert (per_cluster.sum(axis=1) == 4).all()
    assert set(np.unique(per_cluster)) <= {0, 1, 2, 3, 4}
    again = ranking.cluster_counts(codes, 4, seed=5, resamples=500)
    np.testing.assert_array_equal(counts, again)  # seeded
    # the weighted means are the means over the drawn items, counted with repeats
    scores = np.array([[1.0, 0, 1, 1, 0, 0, 1]])
    row = counts[0]
    drawn = np.repeat(scores[0], row.astype(int))
    assert ranking.weighted_means(scores, counts[:1])[0, 0] == pytest.approx(drawn.mean())


def test_clustered_cov_gives_each_se_and_each_differences_se():
    rng = np.random.default_rng(4)
    codes = rng.integers(0, 9, size=60)
    scores = (rng.random((3, 60)) < [[0.4], [0.6], [0.7]]).astype(float)
    cov = ranking.clustered_cov(scores, codes, 9)
    for j in range(3):
        assert math.sqrt(cov[j, j]) == pytest.approx(power.clustered_se(scores[j], codes)[0],
                                                     rel=1e-12)
    sds = ranking.difference_sds(cov)
    assert sds[0, 2] == pytest.approx(power.clustered_se(scores[2] - scores[0], codes)[0],
                                      rel=1e-9)


def test_rank_intervals_come_from_the_cluster_bootstrap_and_are_said(toy):
    body = answer(toy)
    plain = RankView.from_query(toy, {"figure": ["toy"], "by": ["model"]}).to_dict()
    assert "cluster bootstrap" in body["rank_interval"] and "clusters of src" in body["rank_interval"]
    assert "cluster bootstrap" in body["rank_set"] and "Student's t" in body["ci"]
    assert "cluster" not in plain["rank_interval"] and plain["cluster"] is None
    note = next(n for n in body["notes"] if n.startswith("Clustered by src"))
    assert "only 8 clusters: t with 7 df" in note and "resample clusters" in note
    # the same seed and the same items: the cluster bootstrap is a different resampling
    for cell in body["cells"]:
        for m in cell["models"]:
            assert m["rank_ci"] is not None and m["rank_set"] is not None
            assert m["rank_set"][0] <= m["rank"] <= m["rank_set"][1]
    # reproducible: the same query gives the same numbers
    assert answer(toy)["cells"] == body["cells"]


def test_one_item_clusters_and_duplicated_items(tmp_path):
    frame = clustered_frame()
    singles = frame.assign(**{"cluster:src": frame["item"]})
    one = Catalog([items_figure(tmp_path / "one", "toy", singles, models=MODELS)])
    body = answer(one)
    for cell in body["cells"]:
        for m in cell["models"]:
            n = m["n"]
            assert m["n_clusters"] == n
            assert m["se_clustered"] == pytest.approx(m["se"] * math.sqrt((n - 1) / n), abs=1e-12)
    twice = pd.concat([frame, frame.assign(item=frame["item"] + "-copy")], ignore_index=True)
    doubled = Catalog([items_figure(tmp_path / "two", "toy", twice, models=MODELS)])
    base = Catalog([items_figure(tmp_path / "base", "toy", frame, models=MODELS)])
    for a, b in zip(answer(base)["cells"], answer(doubled)["cells"]):
        for ma, mb in zip(a["models"], b["models"]):
            assert mb["se_clustered"] == pytest.approx(ma["se_clustered"], abs=1e-12)
        for pa, pb in zip(a["pairs"], b["pairs"]):
            assert pb["se_diff_clustered"] == pytest.approx(pa["se_diff_clustered"], abs=1e-12)
            assert pb["p"] == pytest.approx(pa["p"], rel=1e-9)


def test_swapping_the_models_order_keeps_every_pairs_errors(toy):
    body = answer(toy)
    swapped = answer(toy, model=["m3", "m1"])
    pairs = {(p["a"], p["b"]): p for c in body["cells"][:1] for p in c["pairs"]}
    (pair,) = swapped["cells"][0]["pairs"]
    same = pairs[(pair["a"], pair["b"])]
    assert pair["se_diff_clustered"] == same["se_diff_clustered"]
    assert pair["p"] == same["p"]
    m1 = paired_cell(*(toy.figure("toy").items.cells(
        {"level": "easy", "task": "t1"}, ("model",), "src")[(m,)] for m in ("m3", "m1")))
    assert m1.se_diff_clustered == pytest.approx(same["se_diff_clustered"], abs=1e-15)
    assert m1.p == pytest.approx(same["p"], rel=1e-12) and m1.diff == -same["diff"]


def test_a_bad_cluster_is_a_400_naming_the_columns(toy, tmp_path):
    with pytest.raises(BadQuery, match=r"no cluster column 'passage' \(they keep the cluster "
                                       r"column src\)\. Import them with --cluster passage"):
        answer(toy, cluster=["passage"])
    bare = Catalog([items_figure(tmp_path / "bare", "bare", clustered_frame(), models=MODELS,
                                 with_items=False)])
    with pytest.raises(BadQuery, match="has none. Leave cluster out"):
        RankView.from_query(bare, {"figure": ["bare"], "cluster": ["src"]})
    with pytest.raises(BadQuery, match="one cluster column"):
        answer(toy, cluster=["src", "src"])


def test_the_csvs_carry_the_clustered_columns(toy):
    view = RankView.from_query(toy, {"figure": ["toy"], "by": ["model"], "cluster": ["src"]})
    body = view.to_dict()
    rows = list(csv.DictReader(io.StringIO(view.models_csv())))
    models = [m for c in body["cells"] for m in c["models"]]
    assert [float(r["se_clustered"]) for r in rows] == [m["se_clustered"] for m in models]
    assert [int(r["n_clusters"]) for r in rows] == [m["n_clusters"] for m in models]
    pairs = list(csv.DictReader(io.StringIO(view.pairs_csv())))
    assert {r["test"] for r in pairs} == {"clustered"}
    assert all(r["se_diff_clustered"] and r["n_clusters"] == "8" for r in pairs)
    plain = RankView.from_query(toy, {"figure": ["toy"], "by": ["model"]})
    assert "se_clustered" not in plain.models_csv().splitlines()[0]
    # a pair opens in Compare clustered the same way
    assert body["cells"][0]["compare"].endswith("&cluster=src")


def test_the_page_keeps_cluster_in_its_url_and_drops_a_bad_one(toy):
    state = parse_rank_state({"figure": ["toy"], "by": ["model"], "cluster": ["src"]}, toy)
    assert state.cluster == "src" and state.to_query().endswith("&cluster=src")
    assert state.query()["cluster"] == ["src"]
    wrong = parse_rank_state({"figure": ["toy"], "cluster": ["passage"]}, toy)
    assert wrong.cluster is None and "not clustered" in wrong.problems[-1]


def test_a_cell_of_one_cluster_has_no_cluster_bootstrap(tmp_path):
    frame = clustered_frame()
    frame["cluster:src"] = np.where(frame["task"] == "t1", "all", frame["cluster:src"])
    catalog = Catalog([items_figure(tmp_path, "toy", frame, models=MODELS)])
    body = answer(catalog)
    for cell in body["cells"]:
        one = cell["labels"]["task"] == "t1"
        for m in cell["models"]:
            assert (m["rank_ci"] is None) == one and (m["se_clustered"] is None) == one
        for p in cell["pairs"]:
            assert (p["test"] == "clustered") != one
    note = next(n for n in body["notes"] if n.startswith("Clustered by src"))
    assert "2 cells have their common items in one cluster" in note
