"""The shared MMLU-Pro outputs (../shared/external/mmlu-pro: one zip per model, 12,032 questions,
14 categories; ``src``, the source data set a question came from, is its cluster) imported with
``--cluster src``, and clustered by ``src`` within each category: on /api/compare, /api/cells and
the Compare page, against statsmodels' cluster-robust standard error of a mean (OLS on a
constant, ``cov_type="cluster"``) computed here from the zips themselves, not from evalmaps'
records. Skipped when the folder is absent."""

from __future__ import annotations

import json
import math
import zipfile
from pathlib import Path
from urllib.parse import quote

import numpy as np
import pandas as pd
import pytest

from evalmaps.analysis import power
from evalmaps.catalog.folders import load_folder
from evalmaps.core.figure import Catalog
from evalmaps.service import cli
from tests.items_fixture import serving

ROOT = Path(__file__).resolve().parents[2]
FOLDER = ROOT.parent / "shared" / "external" / "mmlu-pro" / "eval_results"
A, B = "model_outputs_Llama-2-7b-hf_5shots", "model_outputs_Llama-2-13b-hf_5shots"

pytestmark = pytest.mark.skipif(not FOLDER.is_dir(),
                                reason=f"{FOLDER} is absent: tests of real outputs skipped")
sm = pytest.importorskip("statsmodels.api")
stats = pytest.importorskip("scipy.stats")


def raw(model: str) -> pd.DataFrame:
    """A model's questions straight from its zip: id, category, src and whether it is right
    (``pred == answer``; a null pred is wrong), as the README defines it."""
    with zipfile.ZipFile(FOLDER / f"{model}.zip") as z:
        (name,) = z.namelist()
        records = json.loads(z.read(name))
    frame = pd.DataFrame({"id": [str(r["question_id"]) for r in records],
                          "category": [r["category"] for r in records],
                          "src": [r["src"] for r in records],
                          "right": [float(r["pred"] is not None and r["pred"] == r["answer"])
                                    for r in records]})
    return frame.set_index("id")


def statsmodels_se(x, groups, correction: bool) -> float:
    """The cluster-robust standard error of the mean of ``x`` (OLS of x on a constant)."""
    fit = sm.OLS(np.asarray(x, dtype=float), np.ones(len(x))).fit(
        cov_type="cluster", cov_kwds={"groups": pd.factorize(np.asarray(groups))[0],
                                      "use_correction": correction})
    return float(fit.bse[0])


@pytest.fixture(scope="module")
def catalog(tmp_path_factory) -> Catalog:
    """The two Llama-2 zips imported as one figure with ``evalmaps import ... --cluster src``
    and served from the written folder, as ``evalmaps serve --data`` serves it."""
    folder = tmp_path_factory.mktemp("mmlu")
    out = folder / "mmlu.csv"
    assert cli.main(["import", str(FOLDER / f"{A}.zip"), str(FOLDER / f"{B}.zip"),
                     "--item", "question_id", "--correct", "pred=answer", "--set",
                     "model={file}", "--cluster", "src", "-o", str(out)]) == 0
    (figure,) = load_folder(folder)
    assert figure.items is not None and figure.items.clusters == ("src",)
    return Catalog([figure])


@pytest.fixture(scope="module")
def sides() -> tuple[pd.DataFrame, pd.DataFrame]:
    return raw(A), raw(B)


@pytest.fixture()
def served(dash_app, catalog):
    with serving(dash_app, catalog):
        yield dash_app.server.test_client()


def compare_json(client, fid: str, cluster: str | None = "src") -> dict:
    panels = client.get(f"/api/figures/{fid}").get_json()["panels"]
    keys = {p["title"]: p["key"] for p in panels}
    query = f"a={quote(keys[A])}&b={quote(keys[B])}"
    response = client.get(f"/api/compare?{query}" + (f"&cluster={cluster}" if cluster else ""))
    assert response.status_code == 200, response.data[:300]
    return response.get_json()


def test_compare_clusters_by_src_as_statsmodels_does(served, catalog, sides):
    fid = next(iter(catalog)).id
    body = compare_json(served, fid)
    a, b = sides
    common = a.index.intersection(b.index)
    cells = {c["category"]: c["paired"] for c in body["cells"]}
    assert len(cells) == 14
    for category, paired in cells.items():
        ids = common[a.loc[common, "category"] == category]
        d = b.loc[ids, "right"].to_numpy() - a.loc[ids, "right"].to_numpy()
        groups = a.loc[ids, "src"].to_numpy()
        g = len(set(groups))
        assert (paired["n"], paired["n_clusters"]) == (len(ids), g)
        plain = statsmodels_se(d, groups, correction=False)
        assert paired["se_diff_clustered"] == pytest.approx(plain, rel=1e-9)
        # statsmodels' default small-sample correction multiplies the variance by
        # G / (G - 1) * (N - 1) / (N - K) with K = 1 regressor: the SE by sqrt(G / (G - 1))
        corrected = statsmodels_se(d, groups, correction=True)
        assert corrected == pytest.approx(paired["se_diff_clustered"] * math.sqrt(g / (g - 1)),
                                          rel=1e-9)
        for side, frame in (("a", a), ("b", b)):
            x = frame.loc[ids, "right"].to_numpy()
            assert paired[f"{side}_se_clustered"] == pytest.approx(
                statsmodels_se(x, groups, correction=False), rel=1e-9)
            assert paired[f"{side}_se"] == pytest.approx(
                float(np.std(x, ddof=1) / math.sqrt(len(x))), rel=1e-9)
        assert paired["se_diff"] == pytest.approx(float(np.std(d, ddof=1) / math.sqrt(len(d))),
                                                  rel=1e-9)
        # Student's t with G - 1 df (statsmodels' use_t: df_resid_inference = G - 1), as
        # scipy gives its quantiles: biology's 4 sources give t with 3 df
        t975, t80 = stats.t.ppf(0.975, g - 1), stats.t.ppf(0.8, g - 1)
        assert paired["mde"] == pytest.approx((t975 + t80) * plain, rel=1e-9)
        # the test and its interval agree: the Wald test on the clustered SE
        assert paired["test"] == "clustered"
        fit = sm.OLS(d, np.ones(len(d))).fit(cov_type="cluster", use_t=True, cov_kwds={
            "groups": pd.factorize(groups)[0], "use_correction": False})
        assert fit.df_resid_inference == g - 1
        assert paired["p"] == pytest.approx(float(fit.pvalues[0]), rel=1e-6, abs=1e-15)
        assert paired["ci_low"] == pytest.approx(float(fit.conf_int(alpha=0.05)[0][0]),
                                                 abs=1e-9)
        assert paired["ci_low"] == pytest.approx(d.mean() - t975 * plain, abs=1e-9)
        assert (paired["ci_low"] > 0 or paired["ci_high"] < 0) == (paired["p"] < 0.05)
    assert body["url"].endswith("cluster=src")


def test_without_cluster_the_tests_are_unclustered_and_the_same_se(served, catalog):
    fid = next(iter(catalog)).id
    plain = {c["category"]: c["paired"] for c in compare_json(served, fid, None)["cells"]}
    clustered = {c["category"]: c["paired"] for c in compare_json(served, fid)["cells"]}
    for category, p in plain.items():
        assert p["test"] == "mcnemar" and p["se_diff_clustered"] is None
        assert p["n_clusters"] is None
        assert p["se_diff"] == clustered[category]["se_diff"]


def test_cells_carry_each_cells_own_clustered_se(served, catalog, sides):
    fid = next(iter(catalog)).id
    cells = served.get(f"/api/figures/{fid}/cells?cluster=src").get_json()["cells"]
    frames = dict(zip((A, B), sides))
    assert len(cells) == 28
    for cell in cells:
        frame = frames[cell["model"]]
        mine = frame[frame["category"] == cell["category"]]
        assert cell["n_clusters"] == mine["src"].nunique()
        assert cell["se_clustered"] == pytest.approx(
            statsmodels_se(mine["right"], mine["src"], correction=False), rel=1e-9)
        assert cell["se"] == pytest.approx(
            float(np.std(mine["right"], ddof=1) / math.sqrt(len(mine))), rel=1e-9)


def test_a_cluster_column_the_items_lack_is_a_400_naming_it(served, catalog):
    fid = next(iter(catalog)).id
    panels = served.get(f"/api/figures/{fid}").get_json()["panels"]
    keys = [p["key"] for p in panels]
    response = served.get(f"/api/compare?a={quote(keys[0])}&b={quote(keys[1])}&cluster=passage")
    assert response.status_code == 400
    assert response.get_json()["error"] == (
        "A's items have no cluster column 'passage' (its items keep the cluster column src). "
        "Import them with --cluster passage, or leave cluster out.")
    cells = served.get(f"/api/figures/{fid}/cells?cluster=passage")
    assert cells.status_code == 400 and "no cluster column 'passage'" in cells.get_json()["error"]


def test_few_sources_are_said_and_tested_with_t(served, catalog, sides):
    """Biology's questions come from few sources: its clustered cell is tested with Student's t
    at G − 1 df, and Compare's words say so ("only G clusters: t with G − 1 df")."""
    from dataclasses import replace

    from evalmaps.analysis.compare import compare, power_text

    fid = next(iter(catalog)).id
    cells = {c["category"]: c["paired"] for c in compare_json(served, fid)["cells"]}
    a, _ = sides
    g = a[a["category"] == "biology"]["src"].nunique()
    assert g < power.FEW_CLUSTERS and cells["biology"]["n_clusters"] == g
    panels = served.get(f"/api/figures/{fid}").get_json()["panels"]
    keys = {p["title"]: p["key"] for p in panels}
    al = compare(catalog, keys[A], keys[B], cluster="src")
    result = next(r for (i, j), r in al.paired.items()
                  if "biology" in (al.y.labels[i], al.x.labels[j]))
    assert result.n_clusters == g
    words = power_text(replace(al, a=al.a.as_percent(), b=al.b.as_percent()), result)
    assert f"(SE, clustered by src, only {g} clusters: t with {g - 1} df);" in words
    half = (cells["biology"]["ci_high"] - cells["biology"]["ci_low"]) / 2
    assert half == pytest.approx(stats.t.ppf(0.975, g - 1) * cells["biology"]["se_diff_clustered"],
                                 rel=1e-9)


def test_the_ranking_clusters_by_src_as_statsmodels_does(served, catalog, sides):
    """/api/rank?cluster=src on the real outputs: each model's clustered SE is statsmodels'
    from the zips, each pair is /api/compare's clustered cell."""
    fid = next(iter(catalog)).id
    body = served.get(f"/api/rank?figure={fid}&cluster=src").get_json()
    assert body["cluster"] == "src" and "cluster bootstrap" in body["rank_interval"]
    compared = {c["category"]: c["paired"] for c in compare_json(served, fid)["cells"]}
    frames = dict(zip((A, B), sides))
    assert len(body["cells"]) == 14
    for cell in body["cells"]:
        category = cell["labels"]["category"]
        for m in cell["models"]:
            frame = frames[m["model"]]
            mine = frame[frame["category"] == category]
            assert m["n_clusters"] == mine["src"].nunique()
            assert m["se_clustered"] == pytest.approx(
                statsmodels_se(mine["right"], mine["src"], correction=False), rel=1e-9)
        (pair,) = cell["pairs"]
        want = compared[category]
        swap = pair["a"] != A  # the ranking's order is natural; compare's is A then B
        assert pair["test"] == want["test"] == "clustered"
        assert pair["se_diff_clustered"] == pytest.approx(want["se_diff_clustered"], rel=1e-12)
        assert pair["p"] == pytest.approx(want["p"], rel=1e-9)
        assert pair["diff"] == pytest.approx(-want["diff"] if swap else want["diff"], abs=1e-12)
