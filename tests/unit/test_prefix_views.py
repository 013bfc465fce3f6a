"""Labels that all start alike (imported results: 'EleutherAI/pythia-v1.1-70m', ...) are shown
without that start on Browse's axes, in the Rows and facet menus and in the cells grid; the
hover (the traces' labels), the notes and the table's caption give it once."""

from __future__ import annotations

import pytest

from components.controls import facet_dropdowns, label_options, rows_dropdown
from components.datatable import cells_grid
from evalmaps.analysis.slicing import views_for
from evalmaps.catalog.imports import figure_of, import_bytes
from evalmaps.figures.heatmap import heatmap_figure, left_margin, prefix_note
from evalmaps.readers.base import ImportOptions
from evalmaps.views.state import ViewState

PREFIX = "EleutherAI/pythia-v1.1-"
MODELS = ["70m", "160m", "1.4b"]
TASKS = ["hendrycksTest-anatomy", "hendrycksTest-astronomy"]


@pytest.fixture(scope="module")
def figure():
    rows = ["task,model,step,value"]
    for task in TASKS:
        for k, model in enumerate(MODELS):
            for step in (0, 1000, 2000):
                rows.append(f"{task},{PREFIX}{model},{step},{0.2 + k / 10 + step / 10**5:.4f}")
    options = ImportOptions(format="tidy", x="step", y="model", metric="acc", unit="",
                            metric_range=(0.0, 1.0))
    return figure_of(import_bytes("\n".join(rows).encode(), "pythia.csv", options)[0])


def first_view(figure):
    views, empty = views_for(figure, ViewState(figure.id))
    assert not empty
    return views[0]


def test_the_axis_shows_rows_without_their_shared_start(figure):
    fig = heatmap_figure(first_view(figure), None)
    trace, yaxis = fig["data"][0], fig["layout"]["yaxis"]
    assert trace["y"] == [PREFIX + m for m in MODELS]  # the hover's %{y}: the whole name
    assert "%{y}" in trace["hovertemplate"]
    assert (yaxis["tickmode"], yaxis["tickvals"], yaxis["ticktext"]) == (
        "array", trace["y"], MODELS)
    assert fig["layout"]["margin"]["l"] == left_margin(MODELS)  # room for '1.4b', not the name
    assert fig["layout"]["meta"]["evalmaps"]["prefix"] == {"x": "", "y": PREFIX}
    assert "labelalias" not in fig["layout"]["xaxis"]  # steps share nothing


def test_a_figure_without_a_shared_start_is_drawn_as_before(catalog):
    views, _ = views_for(catalog.figure("dynts-llama-vs-qwen"), ViewState("dynts-llama-vs-qwen"))
    fig = heatmap_figure(views[0], None)
    assert "ticktext" not in fig["layout"]["yaxis"]
    assert "prefix" not in fig["layout"]["meta"]["evalmaps"]
    assert prefix_note(catalog.figure("dynts-llama-vs-qwen").spec) is None


def test_columns_that_share_a_start_are_aliased_on_the_axis():
    from evalmaps.figures.heatmap import heatmap_layout

    layout = heatmap_layout(TASKS, ["a"], x_title="Task", y_title="Model", heading="",
                            height=300, prefixes=("hendrycksTest-", ""))
    assert layout["xaxis"]["labelalias"] == {"hendrycksTest-anatomy": "anatomy",
                                             "hendrycksTest-astronomy": "astronomy"}
    assert layout["xaxis"]["categoryarray"] == TASKS


def test_the_note_says_the_start_once(figure):
    assert prefix_note(figure.spec) == (
        f"Model labels are shown without “{PREFIX}”, the start they all share (the hover gives "
        f"each name whole).")


def test_menus_show_the_rest_and_keep_the_whole_name_as_value(figure):
    spec = figure.spec
    rows = rows_dropdown("browse-rows", spec.dims["model"], None)
    assert rows.options == [{"label": m, "value": PREFIX + m} for m in MODELS]
    assert rows.value == [PREFIX + m for m in MODELS]
    (task_menu,) = facet_dropdowns("browse-facet", figure, ViewState(figure.id))
    assert [o["label"] for o in task_menu.children[1].options] == ["anatomy", "astronomy"]
    assert [o["value"] for o in task_menu.children[1].options] == TASKS
    assert label_options(["R1-Llama", "R1-Qwen"]) == [
        {"label": "R1-Llama", "value": "R1-Llama"}, {"label": "R1-Qwen", "value": "R1-Qwen"}]


def test_the_grid_shows_the_rest_and_its_header_names_the_start(figure):
    grid = cells_grid("data-grid", figure.spec, [], figure.decimals)
    model = next(c for c in grid.columnDefs if c["field"] == "model")
    assert model["headerName"] == f"Model ({PREFIX}…)"
    formatter = model["valueFormatter"]["function"]
    assert f'startsWith("{PREFIX}")' in formatter and f"slice({len(PREFIX)})" in formatter
    step = next(c for c in grid.columnDefs if c["field"] == "step")
    assert step["headerName"] == "Step" and "valueFormatter" not in step
