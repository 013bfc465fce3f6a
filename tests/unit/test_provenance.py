"""The provenance card says where a figure comes from: the paper (with its arXiv link) and the
figure, the repository and files of published results, the file and tool of an import; never
the project's own file name of the description it was transcribed from."""

from __future__ import annotations

from components.provenance import source_card, source_rows


def texts(component) -> str:
    """Every string in a component tree, joined."""
    out = []

    def walk(node):
        if isinstance(node, str):
            out.append(node)
        elif isinstance(node, (list, tuple)):
            for child in node:
                walk(child)
        elif node is not None and hasattr(node, "children"):
            walk(node.children)

    walk(component)
    return " ".join(out)


def links(component) -> list[str]:
    found = []

    def walk(node):
        if isinstance(node, (list, tuple)):
            for child in node:
                walk(child)
        elif node is not None and hasattr(node, "children"):
            if getattr(node, "href", None):
                found.append(node.href)
            walk(node.children)

    walk(component)
    return found


def test_a_transcribed_figure_shows_its_paper_and_figure_not_the_description_file(catalog):
    spec = catalog.figure("dynts-llama-vs-qwen").spec
    card = source_card(spec)
    text = texts(card)
    assert "Paper DynTS" in text and "arXiv 2601.18383" in text
    assert "Figure R1-Llama vs R1-Qwen Pass@1 heatmaps" in text
    assert "004_fbaaa6e9d3bbf8c3.txt" not in text and "Description" not in text
    assert links(card) == ["https://arxiv.org/abs/2601.18383"]


def test_published_results_show_their_repository_and_files(catalog):
    rows = dict(source_rows(catalog.figure("pythia-zero-shot").spec.source))
    assert list(rows) == ["Paper", "Repository", "Files"]
    assert rows["Repository"] == "EleutherAI/pythia, evals/pythia-v1 (Apache-2.0)"


def test_an_import_shows_its_file_and_tool():
    assert source_rows({"file": "results.json", "tool": "lm-evaluation-harness results"}) == [
        ("File", "results.json"), ("Tool", "lm-evaluation-harness results")]


def test_odd_sources_are_shown_as_text():
    rows = source_rows({"arxiv": "not an id", "doi": "10.1/x", "seed": "x.txt", "paper": ""})
    assert rows == [("Paper", "arXiv not an id"), ("Doi", "10.1/x")]
    assert source_rows({}) == [] and source_rows(None) == []


def test_the_static_bundles_card_lists_what_the_live_card_lists(catalog):
    """One home for the source's rows (evalmaps.views.source): the bundle's card has the live
    card's titles, and neither shows the description's file name."""
    from evalmaps.service.bundle import figure_data

    for figure in catalog:
        rows = figure_data(figure)["sourceRows"]
        assert [title for title, _ in rows] == [title for title, _ in source_rows(figure.spec.source)]
        seed = (figure.spec.source or {}).get("seed")
        assert not seed or not any(seed in text for _, text in rows), figure.id
    dynts = dict(figure_data(catalog.figure("dynts-llama-vs-qwen"))["sourceRows"])
    assert dynts["Paper"] == "DynTS · arXiv 2601.18383"
