"""evalmaps bundle (evalmaps/service/bundle.py): the site it writes, what it refuses, and that the
browser's numbers are the live app's, character for character.

The bundle's page scripts run in Node (tests/js/bundle_sandbox.js) on the data scripts of a real
bundle of the built-in figures; what they write (the tidy CSV, LaTeX and Markdown tables of the
panel shown, hover templates, colour ranges) is compared with what the live app's own code writes
for the same view (evalmaps.views.payloads, evalmaps.analysis.export, evalmaps.figures.heatmap).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import zipfile
from pathlib import Path
from urllib.parse import parse_qs

import pytest

from evalmaps.analysis import export as exporting
from evalmaps.analysis.slicing import view_ranges, views_for
from evalmaps.figures import heatmap
from evalmaps.service import bundle
from evalmaps.service.cli import main
from evalmaps.views import payloads
from evalmaps.views.state import parse_state

ROOT = Path(__file__).resolve().parents[2]
SANDBOX = ROOT / "tests" / "js" / "bundle_sandbox.js"
PAIR = ("dynts-llama-vs-qwen:r1-llama", "dynts-llama-vs-qwen:r1-qwen")
# views each figure is checked in: the default, and slices, orders, ranges, percent, log
FRAGMENTS = ["", "sort=mean", "sort=name&top=3", "color=fixed", "color=shared&pct=1",
             "zscale=log&color=shared"]
EXTRA = {
    "dynts-llama-vs-qwen": ["model=R1-Qwen&xmin=0.2&xmax=0.4&sort=col:0.3",
                            "rows=2000&rows=500&sort=mean"],
    "pythia-zero-shot": ["task=arc_easy&task=piqa&metric=acc&metric=acc_norm&sort=mean&top=4",
                         "task=arc_easy&xmin=1000&xmax=100000&pct=1&sort=col:143000",
                         "task=wsc&metric=acc&color=shared&pct=1&sort=name"],
    "acemath-training-progress": ["benchmark=Math%20500&benchmark=GSM8K&hide=1.5b&color=shared&sort=name"],
}


@pytest.fixture(scope="module")
def site(tmp_path_factory, catalog):
    out = tmp_path_factory.mktemp("bundle") / "site"
    bundle.write_site(catalog, out, pairs=[PAIR])
    return out


def node_answer(tmp_path, request: dict) -> dict:
    node = shutil.which("node")
    if not node:
        pytest.skip("`node` is not installed (Debian: apt-get install nodejs)")
    path = tmp_path / "request.json"
    path.write_text(json.dumps(request))
    done = subprocess.run([node, str(SANDBOX), str(path)], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_the_site_has_its_pages_scripts_and_data(site, catalog):
    names = {p.relative_to(site).as_posix() for p in site.rglob("*") if p.is_file()}
    expected = {"index.html", "assets/plotly.min.js", "assets/bundle.js", "assets/tables.js",
                "assets/bundle.css", "assets/evalmaps-format.js", "assets/evalmaps-keys.js",
                "assets/evalmaps-table.js", "assets/evalmaps-slice.js", "assets/evalmaps-hover.js",
                "assets/evalmaps-plotly-internals.js", "compare/1.html", "data/compare-1.js"}
    for fid in catalog.ids:
        expected |= {f"figures/{fid}.html", f"data/{fid}.js"}
    assert names == expected
    assert (site / "assets/plotly.min.js").read_bytes() == bundle.plotly_js().read_bytes()
    index = (site / "index.html").read_text()
    for figure in catalog:
        assert f'href="figures/{figure.id}.html"' in index
        assert f"{figure.n_cells:,}" in index
    assert index.count("ILLUSTRATIVE values, not results") == 1  # AceMath only
    # the index does not load any figure's cells; a figure page loads its own only
    assert "data/" not in index
    page = (site / "figures/dynts-llama-vs-qwen.html").read_text()
    assert page.count('src="../data/') == 1 and 'src="../data/dynts-llama-vs-qwen.js"' in page
    assert "http://" not in page and "https://" not in page


def test_the_built_in_figures_bundle_in_at_most_3_mb_without_plotly(site):
    total = sum(p.stat().st_size for p in site.rglob("*")
                if p.is_file() and p.name != "plotly.min.js")
    assert total <= 3_000_000, total


def test_no_page_refers_to_anything_outside_the_site(site):
    for path in site.rglob("*"):
        if path.suffix in (".html", ".css") or path.name in ("bundle.js", "tables.js"):
            text = path.read_text()
            assert "://" not in text.replace("http://www.w3.org", ""), path


@pytest.mark.parametrize("fid", ["dynts-llama-vs-qwen", "pythia-zero-shot",
                                 "acemath-training-progress", "core-generalization"])
def test_the_browsers_tables_csv_hovers_and_ranges_are_the_live_apps(site, catalog, tmp_path, fid):
    figure = catalog.figure(fid)
    fragments = FRAGMENTS + EXTRA.get(fid, [])
    got = node_answer(tmp_path, {"figure": fid, "file": str(site / f"data/{fid}.js"), "csv": True,
                                 "views": fragments})
    assert got["csv"] == payloads.cells_csv(figure, payloads.grid_cells(figure))
    for fragment, answer in zip(fragments, got["views"]):
        query = {"figure": fid, **parse_qs(fragment, keep_blank_values=True)}
        state = parse_state(query, catalog)
        assert not state.problems, (fragment, state.problems)
        views, empty = views_for(figure, state)
        assert empty is None
        panels = answer["panels"]
        shown = [v.panel.slug for v in views]
        assert [p["slug"] for p in panels] == shown, fragment
        ranges = view_ranges(figure.spec, views)
        for view, mine, zr in zip(views, panels, ranges):
            assert (mine["y"], mine["x"]) == (list(view.y_labels), list(view.x_labels)), fragment
            table = exporting.table_of_view(view)
            assert mine["latex"] == exporting.to_latex(table), fragment
            assert mine["markdown"] == exporting.to_markdown(table), fragment
            live = heatmap.panel_traces(view, zr[state.color])
            templates = {t["hovertemplate"] for t in live if "hovertemplate" in t}
            assert set(mine["templates"]) == templates, fragment
            assert [mine["zmin"], mine["zmax"]] == pytest.approx([live[0]["zmin"], live[0]["zmax"]])


def test_a_compare_page_holds_the_compare_api_answer(site, catalog):
    text = (site / "data/compare-1.js").read_text()
    body = text.split('add("compare-1",', 1)[1].rsplit(");", 1)[0]
    data = json.loads(body)
    assert data["api"] == json.loads(json.dumps(
        payloads.compare_payload(catalog, {"a": PAIR[0], "b": PAIR[1]})))


def test_the_command_writes_a_site_and_says_where(tmp_path, capsys):
    out = tmp_path / "site"
    assert main(["bundle", "--figure", "dynts-llama-vs-qwen", "-o", str(out)]) == 0
    assert (out / "figures/dynts-llama-vs-qwen.html").is_file()
    assert not (out / "figures/pythia-zero-shot.html").exists()
    # no --compare: the catalog's own comparison (R1-Llama against R1-Qwen), its figure bundled
    assert "wrote 1 figure pages and 1 compare pages" in capsys.readouterr().err
    assert (out / "compare/1.html").is_file()
    other = tmp_path / "other"
    assert main(["bundle", "--figure", "short-to-long", "-o", str(other)]) == 0
    assert "wrote 1 figure pages and 0 compare pages" in capsys.readouterr().err


@pytest.mark.parametrize("args, message", [
    (["--figure", "nope"], "--figure 'nope' is not a figure. Use one of: core-generalization"),
    (["--compare", "dynts-llama-vs-qwen:r1-llama", "nope:x"], "--compare dynts-llama-vs-qwen:r1-llama nope:x: "),
])
def test_a_bad_figure_or_pair_is_one_sentence_and_writes_nothing(tmp_path, capsys, args, message):
    out = tmp_path / "site"
    assert main(["bundle", *args, "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("evalmaps: " + message) and err.count("\n") == 1, err
    assert not out.exists()


def test_a_folder_that_is_not_empty_is_refused_unless_forced(tmp_path, capsys):
    out = tmp_path / "site"
    out.mkdir()
    (out / "mine.txt").write_text("keep")
    before = sorted(p.name for p in tmp_path.iterdir())
    assert main(["bundle", "--figure", "short-to-long", "-o", str(out)]) == 2
    assert "is not empty. Give a new or empty folder, or --force" in capsys.readouterr().err
    assert sorted(p.name for p in out.iterdir()) == ["mine.txt"]
    assert main(["bundle", "--figure", "short-to-long", "-o", str(out), "--force"]) == 0
    assert (out / "index.html").is_file() and (out / "mine.txt").read_text() == "keep"
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # nothing beside it
    file = tmp_path / "a-file"
    file.write_text("x")
    assert main(["bundle", "-o", str(file)]) == 2
    assert "is a file, and -o takes the folder" in capsys.readouterr().err


def test_the_zip_of_one_figure_is_the_same_site(catalog, tmp_path):
    data = bundle.site_zip(catalog, "short-to-long")
    out = tmp_path / "site"
    bundle.write_site(catalog, out, ["short-to-long"])
    with zipfile.ZipFile(__import__("io").BytesIO(data)) as archive:
        files = {n.split("/", 1)[1]: archive.read(n) for n in archive.namelist()}
        assert {n.split("/", 1)[0] for n in archive.namelist()} == {"short-to-long-site"}
    on_disk = {p.relative_to(out).as_posix(): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    assert files == on_disk


def test_the_data_pages_zip_is_the_site_of_the_figure_shown(client, catalog):
    """Through the real callback path (/_dash-update-component), as the browser asks for it."""
    import base64
    import io

    from tests.integration.dash_calls import call

    response = call(client, "data-bundle.data", {"data-bundle-button.n_clicks": 1},
                    {"data-rendered-figure.data": "short-to-long", "uploads.data": None})
    assert response.status_code == 200, response.get_data(as_text=True)[:300]
    got = response.get_json()["response"]["data-bundle"]["data"]
    assert got["filename"] == "short-to-long-site.zip" and got["base64"]
    zipped = base64.b64decode(got["content"])
    assert zipped == bundle.site_zip(catalog, "short-to-long")
    with zipfile.ZipFile(io.BytesIO(zipped)) as archive:
        assert "short-to-long-site/figures/short-to-long.html" in archive.namelist()


def test_a_paired_compare_page_has_the_compare_apis_power_sentence_and_map(catalog, client):
    """Issue 39: a bundled Compare of two figures with per-item records carries each paired
    cell's error bar and power sentence and its mde (the power map's colour), the numbers of
    /api/compare for the same pair, and the app's power map colours and title."""
    from components.compare import POWER_COLORSCALE, compare_figures

    a, b = "mmlu-pro:llama-2-7b", "mmlu-pro:llama-2-13b"
    (view,) = bundle.compare_pages(catalog, [(a, b)])
    data = bundle.compare_data(view, view.to_dict())
    api = client.get(f"/api/compare?a={a}&b={b}").json
    dims = api["dims"]
    scale = 100 if data["format"]["a"]["percent"] else 1
    places = data["power"]["places"]
    cells = data["power"]["cells"]
    assert len(cells) == len(api["cells"]) == 14
    for c in api["cells"]:
        p = c["paired"]
        mine = cells[f"{c[dims['y']['name']]}\u0000{c[dims['x']['name']]}"]
        assert mine["mde"] == pytest.approx(p["mde"] * scale, rel=1e-12)
        text = mine["text"]
        # the sentence's numbers are the API's, written at the page's decimals
        assert text.startswith(f"B − A = {fmt_signed(p['diff'] * scale, places)} ± "
                               f"{fmt_number(p['se_diff'] * scale, places)}")
        assert "(SE, not clustered);" in text
        assert f"the smallest difference these {p['n']:,} items detect is " \
               f"{fmt_number(p['mde'] * scale, places)}" in text
        if p["items_needed"] is not None:
            assert text.endswith(f"this one needs {p['items_needed']:,} items")
    mapped = compare_figures(view.alignment, "shared", True, power=True)[2]
    import plotly.colors

    app_scale = mapped["data"][0]["colorscale"]
    app_scale = plotly.colors.get_colorscale(app_scale) if isinstance(app_scale, str) else app_scale
    assert POWER_COLORSCALE == "YlOrRd"
    assert data["power"]["colorscale"] == [list(stop) for stop in app_scale]
    assert data["power"]["title"] == mapped["data"][0]["colorbar"]["title"]["text"]
    plain = bundle.compare_data(*(lambda v: (v, v.to_dict()))(
        bundle.compare_pages(catalog, [PAIR])[0]))
    assert plain["power"] is None  # no items: no power


def fmt_number(value: float, places: int) -> str:
    from evalmaps.core import text as fmt

    return fmt.number(value, places)


def fmt_signed(value: float, places: int) -> str:
    from evalmaps.core import text as fmt

    return fmt.signed(value, places)


@pytest.fixture()
def clustered(dash_app, tmp_path):
    """The app's catalog with one more figure: per-item records in 8 clusters of 5 items a
    cell (the column src), as ``evalmaps import --cluster src`` keeps them."""
    from tests.items_fixture import clustered_by_src, item_scores, items_figure, serving

    scores = clustered_by_src(item_scores(n_items=40, seed=11,
                                          chance={"small": 0.45, "large": 0.75}))
    with serving(dash_app, [items_figure(tmp_path / "items", "toy-items", scores)]) as catalog:
        yield catalog


def test_cluster_makes_the_compare_pages_the_clustered_compare_api_answer(clustered, client,
                                                                           tmp_path):
    """Issue 39: ``--cluster src`` bundles each Compare page as /api/compare?cluster=src answers
    it (clustered errors, tests and power) and its power sentences say the clustering."""
    a, b = "toy-items:small", "toy-items:large"
    out = tmp_path / "site"
    bundle.write_site(clustered, out, ["toy-items"], pairs=[(a, b)], cluster="src")
    text = (out / "data/compare-1.js").read_text()
    data = json.loads(text.split('add("compare-1",', 1)[1].rsplit(");", 1)[0])
    api = client.get(f"/api/compare?a={a}&b={b}&cluster=src").json
    plain = client.get(f"/api/compare?a={a}&b={b}").json
    assert "cluster=src" in api["url"] and data["api"] == api and data["api"] != plain
    paired = [c["paired"] for c in api["cells"]]
    assert paired and all(p["n_clusters"] == 8 and p["se_diff_clustered"] is not None
                          for p in paired)
    sentences = [cell["text"] for cell in data["power"]["cells"].values()]
    assert len(sentences) == len(paired)
    assert all("clustered by src" in s and "not clustered" not in s for s in sentences)
    # without --cluster the same pair is not clustered
    unclustered = bundle.compare_data(*(lambda v: (v, v.to_dict()))(
        bundle.compare_pages(clustered, [(a, b)])[0]))
    assert unclustered["api"] == plain
    assert all("(SE, not clustered)" in cell["text"]
               for cell in unclustered["power"]["cells"].values())


@pytest.mark.parametrize("args, side", [
    ([], "A (dynts-llama-vs-qwen:r1-llama) has no per-item records"),
    (["--figure", "mmlu-pro", "--compare", "mmlu-pro:llama-2-7b", "mmlu-pro:llama-2-13b"],
     "A (mmlu-pro:llama-2-7b) keeps no cluster column"),
])
def test_cluster_on_a_pair_whose_items_do_not_keep_it_is_one_sentence(tmp_path, capsys, args,
                                                                     side):
    out = tmp_path / "site"
    assert main(["bundle", *args, "--cluster", "src", "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("evalmaps: --cluster src: the Compare page of ") and err.count("\n") == 1
    assert f"cannot be clustered, as its {side}; " in err and err.count(". ") == 0, err
    assert not out.exists()

@pytest.mark.parametrize("pair", [PAIR, ("pythia-zero-shot:arc-easy-acc",
                                          "pythia-zero-shot:arc-easy-acc-norm"),
                                  ("mmlu-pro:llama-2-7b", "mmlu-pro:llama-2-13b")])
def test_a_compare_pages_hover_templates_are_the_live_maps(catalog, pair):
    """The site's Compare maps hover with the live maps' templates (issue 36 step 3): A's and
    B's are the live A and B maps' own, B − A's read the difference from a customdata column of
    their own (the site's power switch recolours z) and are otherwise the live map's, and each
    cell's column holds B − A in shown units."""
    import re

    from components.compare import compare_figures

    (view,) = bundle.compare_pages(catalog, [pair])
    data = bundle.compare_data(view, view.to_dict())["hover"]
    al = view.alignment
    live = compare_figures(al, "shared", True)

    def templates(figure):
        return {t["hovertemplate"] for t in figure["data"] if t.get("hovertemplate")}

    ny, nx = al.delta.shape
    for key, figure in zip(("a", "b", "delta"), live):
        mine = data[key]
        assert len(mine["which"]) == ny and {len(row) for row in mine["which"]} == {nx}
        used = {mine["templates"][k] for row in mine["which"] for k in row}
        if key == "delta":
            column = len(mine["customdata"][0][0]) - 1
            used = {re.sub(rf"%\{{customdata\[{column}\]", "%{z", t) for t in used}
            times = 100 if al.a.metric.percent else 1
            for i in range(ny):
                for j in range(nx):
                    got = mine["customdata"][i][j][column]
                    want = al.delta[i, j] * times
                    assert (got is None and want != want) or got == pytest.approx(want)
        # every live group's, and the present cells' where any cell takes it (a paired map's
        # cells may all be in groups)
        assert templates(figure) - {figure["data"][0]["hovertemplate"]} <= used <= \
            templates(figure), key
