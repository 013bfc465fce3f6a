"""The paired grids kept by version (issue 36, step 5): asked again, a grid is not made again;
records written anew (a new version) are a new grid, with the new file's numbers."""

from __future__ import annotations

from evalmaps.analysis import compare as comparing
from evalmaps.analysis import paired as paired_stats
from evalmaps.catalog.items import ItemRecords, records_version
from evalmaps.core.figure import Catalog
from tests.items_fixture import item_scores, items_figure


def _paired(catalog, k=1):
    al = comparing.align(*comparing.resolve_pair(catalog, "toy:small", "toy:large"))
    return comparing.with_paired(al, k).paired


def test_a_grid_is_made_once_per_version_and_question(tmp_path, monkeypatch):
    comparing.PAIRED_KEPT.clear()
    made = []
    real = paired_stats.paired_grid

    def counted(*args, **kwargs):
        made.append(args[3])  # k
        return real(*args, **kwargs)

    monkeypatch.setattr(paired_stats, "paired_grid", counted)
    figure = items_figure(tmp_path / "toy", "toy", item_scores(n_items=30, samples=3, seed=4))
    catalog = Catalog([figure])
    first = _paired(catalog)
    assert _paired(catalog) == first and made == [1]  # kept
    at_2 = _paired(catalog, 2)
    assert made == [1, 2] and at_2 != first  # another question: made
    version = records_version(figure.items)
    # the records written anew (other scores): a new version, a new grid with its numbers
    figure.items = ItemRecords.write(tmp_path / "toy", figure.spec.dim_names,
                                     item_scores(n_items=30, samples=3, seed=5))
    assert records_version(figure.items) != version
    again = _paired(catalog)
    assert made == [1, 2, 1] and again != first
    comparing.PAIRED_KEPT.clear()
    monkeypatch.setattr(paired_stats, "paired_grid", real)
    assert _paired(catalog) == again  # what was kept is what a fresh grid gives
