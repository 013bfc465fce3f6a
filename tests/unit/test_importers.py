"""The importer: tidy / wide / matrix tables -> a validated figure, or one clear ImportFailed.

Every bad input is built as bytes in the test. Each message must name the file (and the row or
column where one is to blame), say what to do, and stay within two sentences.
"""

from __future__ import annotations

import csv
import io
import math
import re
import string
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evalmaps.catalog.imported import Imported
from evalmaps.catalog.imports import figure_of, import_bytes
from evalmaps.core.errors import DataError
from evalmaps.readers.base import DEFAULT_MAX_BYTES, ImportFailed, ImportOptions

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


# --------------------------------------------------------------------------- helpers

def load(name: str, mapping: ImportOptions | None = None) -> Imported:
    return import_bytes((FIXTURES / name).read_bytes(), name, mapping)[0]


def sentences(text: str) -> int:
    """Sentences in a message: a full stop, ! or ? at the end or before a capitalised word."""
    return len(re.findall(r"[.!?](?=\s+[A-Z'\"(]|\s*$)", text.strip()))


def refused(data: bytes, name: str, mapping: ImportOptions | None = None, **kwargs) -> ImportFailed:
    with pytest.raises(ImportFailed) as info:
        import_bytes(data, name, mapping, **kwargs)[0]
    err = info.value
    assert isinstance(err, DataError)
    message = str(err)
    assert "Traceback" not in message and "\n" not in message
    assert message.startswith(name), message  # the file comes first: "<file>[, row N]: ..."
    assert err.file == name
    assert 1 <= sentences(message.split(": ", 1)[1]) <= 2, message
    return err


def says(message: str, *words: str) -> None:
    """The message holds every one of ``words`` (case-insensitive)."""
    low = message.lower()
    missing = [w for w in words if w.lower() not in low]
    assert not missing, f"{missing} not in: {message}"


def cell(imported: Imported, **coords: str):
    """The tidy row of one cell (all dims given) as a dict of strings."""
    t = imported.tidy
    mask = np.ones(len(t), dtype=bool)
    for dim, label in coords.items():
        mask &= (t[dim] == label).to_numpy()
    rows = t[mask]
    assert len(rows) == 1, (coords, rows)
    return rows.iloc[0].to_dict()


# --------------------------------------------------------------------------- the fixtures

def test_tidy_small():
    imp = load("tidy_small.csv")
    assert imp.format == "tidy"
    assert (imp.spec["x"], imp.spec["y"]) == ("length", "type")
    assert imp.facets == ["model"]
    assert imp.replicate is None and imp.replicates == 1
    assert imp.dims == {"model": ["m1", "m2"], "type": ["a", "b"], "length": ["1", "2"]}
    assert imp.n_cells == 5  # m1,b,2 is empty: not a cell
    assert imp.warnings == []
    assert imp.spec["provenance"] == "imported" and imp.spec["id"] == "import-tidy-small"
    fig = figure_of(imp)
    assert fig.n_cells == 5
    assert fig.value(model="m1", type="a", length="1") == 91.5
    assert fig.value(model="m1", type="a", length="2") == 85.0
    assert fig.value(model="m1", type="b", length="1") == 77.25
    assert fig.value(model="m1", type="b", length="2") is None
    assert fig.value(model="m2", type="a", length="1") == 60.0
    assert fig.value(model="m2", type="a", length="2") is None
    assert fig.value(model="m2", type="b", length="2") == 55.5
    assert fig.decimals == 2
    assert set(fig.panels) == {"m1", "m2"}


def test_wide_small():
    imp = load("wide_small.csv")
    assert imp.format == "wide"
    assert (imp.spec["x"], imp.spec["y"]) == ("len", "type")
    assert imp.facets == ["model", "ft_type"]  # accuracy is a per-run measure, not a facet
    assert imp.replicate == "seed" and imp.replicates == 3
    assert imp.dims == {"model": ["tiny-a", "tiny-b", "gpt-x"], "ft_type": ["lora", "api"],
                        "type": ["1", "2"], "len": ["1", "2", "3"]}
    # tiny-a 6 of 6 cells (type 2 len 3 empty in every seed), tiny-b 6, gpt-x 4
    assert imp.n_cells == 5 + 6 + 4
    assert any("accuracy" in w and "not used" in w for w in imp.warnings), imp.warnings
    assert all("'seed'" not in w for w in imp.warnings)  # the replicate column is no facet

    a = cell(imp, model="tiny-a", ft_type="lora", type="1", len="1")
    assert float(a["value"]) == 90.0 and float(a["sd"]) == 2.0 and a["n"] == "3"
    b = cell(imp, model="tiny-b", ft_type="lora", type="1", len="1")
    assert float(b["value"]) == 61.0 and math.isclose(float(b["sd"]), math.sqrt(2)) and b["n"] == "2"
    g = cell(imp, model="gpt-x", ft_type="api", type="1", len="1")  # seed "-": one replicate
    assert float(g["value"]) == 75.0 and g["sd"] == "" and g["n"] == "1"

    fig = figure_of(imp)
    assert fig.n_cells == 15
    assert fig.value(model="tiny-a", ft_type="lora", type="1", len="1") == 90.0
    assert fig.value(model="tiny-a", ft_type="lora", type="2", len="3") is None
    assert fig.value(model="tiny-b", ft_type="lora", type="2", len="3") == 59.5
    assert fig.value(model="gpt-x", ft_type="api", type="2", len="1") == 80.0
    assert fig.value(model="gpt-x", ft_type="api", type="2", len="2") is None
    row = fig.cells[(fig.cells["model"] == "tiny-a") & (fig.cells["type"] == "1")
                    & (fig.cells["len"] == "1")].iloc[0]
    assert (row["value"], row["sd"], row["n"]) == (90.0, 2.0, 3.0)
    assert any("mean over the 'seed' replicates" in n for n in fig.spec.notes)


def test_matrix_small():
    imp = load("matrix_small.csv")
    assert imp.format == "matrix"
    assert (imp.spec["x"], imp.spec["y"]) == ("column", "size")
    assert imp.facets == [] and imp.replicate is None
    assert imp.dims == {"size": ["500", "1000"], "column": ["0.1", "0.2", "0.3"]}
    assert imp.n_cells == 6
    fig = figure_of(imp)
    assert fig.value(size="1000", column="0.2") == 52.7
    assert fig.value(size="500", column="0.1") == 49.8
    assert fig.value(size="1000", column="0.3") == 51.0
    assert fig.decimals == 1


# --------------------------------------------------------------------------- overrides

def test_format_override_tidy_on_a_wide_file_is_a_clear_error():
    err = refused((FIXTURES / "wide_small.csv").read_bytes(), "wide_small.csv",
                  ImportOptions(format="tidy"))
    says(str(err), "'value' column")


def test_format_override_wide_on_a_tidy_file_is_a_clear_error():
    err = refused((FIXTURES / "tidy_small.csv").read_bytes(), "tidy_small.csv",
                  ImportOptions(format="wide"))
    says(str(err), "type_3_len_15", "choose another format")


def test_format_override_matrix_on_a_tidy_file_is_a_clear_error():
    err = refused((FIXTURES / "tidy_small.csv").read_bytes(), "tidy_small.csv",
                  ImportOptions(format="matrix"))
    says(str(err), "value")


def test_format_override_tidy_on_a_tidy_file_is_the_same_as_auto():
    assert load("tidy_small.csv", ImportOptions(format="tidy")).tidy.equals(load("tidy_small.csv").tidy)


def test_xy_override_swaps_axes():
    imp = load("tidy_small.csv", ImportOptions(x="type", y="length"))
    assert (imp.spec["x"], imp.spec["y"]) == ("type", "length")
    assert imp.facets == ["model"]
    fig = figure_of(imp)
    assert (fig.spec.x, fig.spec.y) == ("type", "length")
    assert fig.value(model="m1", type="b", length="1") == 77.25
    panel = fig.panel("m1")
    assert panel.z.shape == (2, 2)  # rows: length 1, 2; columns: type a, b
    assert panel.z[0, 1] == 77.25 and panel.z[1, 0] == 85.0


def test_x_only_override_picks_y_from_the_rest():
    imp = load("tidy_small.csv", ImportOptions(x="model"))
    assert imp.spec["x"] == "model" and imp.spec["y"] == "length"
    assert imp.facets == ["type"]


def test_xy_override_on_a_wide_file():
    imp = load("wide_small.csv", ImportOptions(x="type", y="len"))
    assert (imp.spec["x"], imp.spec["y"]) == ("type", "len")
    assert figure_of(imp).value(model="tiny-a", ft_type="lora", type="1", len="1") == 90.0


def test_xy_override_naming_no_dimension_is_a_clear_error():
    err = refused((FIXTURES / "tidy_small.csv").read_bytes(), "tidy_small.csv", ImportOptions(x="size"))
    says(str(err), "'size'", "model, type, length")


def test_xy_override_same_dimension_twice_is_an_error():
    err = refused((FIXTURES / "tidy_small.csv").read_bytes(), "tidy_small.csv",
                  ImportOptions(x="type", y="type"))
    says(str(err), "different")


def test_replicate_override_names_a_column_to_average():
    data = b"model,type,run_id,value\nm,a,r1,10\nm,a,r2,20\nm,b,r1,30\n"
    imp = import_bytes(data, "runs.csv", ImportOptions(replicate="run_id"))[0]
    assert imp.replicate == "run_id" and imp.replicates == 2
    assert imp.facets == [] and (imp.spec["x"], imp.spec["y"]) == ("type", "model")
    fig = figure_of(imp)
    assert fig.value(model="m", type="a") == 15.0
    assert fig.value(model="m", type="b") == 30.0
    assert cell(imp, model="m", type="a")["n"] == "2"


def test_replicate_auto_detects_a_seed_column_in_a_tidy_file():
    data = b"model,type,seed,value\nm,a,1,10\nm,a,2,20\n"
    imp = import_bytes(data, "seeds.csv")[0]
    assert imp.replicate == "seed" and figure_of(imp).value(model="m", type="a") == 15.0


def test_replicate_none_keeps_the_seed_column_as_a_dimension():
    data = b"model,type,seed,value\nm,a,1,10\nm,a,2,20\n"
    imp = import_bytes(data, "seeds.csv", ImportOptions(replicate=""))[0]
    assert imp.replicate is None and imp.replicates == 1
    assert imp.spec["x"] == "seed" and imp.n_cells == 2
    assert figure_of(imp).value(model="m", type="a", seed="2") == 20.0


def test_replicate_none_on_a_wide_file_makes_seed_a_facet():
    imp = load("wide_small.csv", ImportOptions(replicate=""))
    assert imp.replicate is None and "seed" in imp.facets
    assert figure_of(imp).value(model="tiny-a", seed="2", ft_type="lora", type="1", len="1") == 92.0
    assert any("'seed'" in w and "'-'" in w for w in imp.warnings)  # gpt-x's "-" seed


def test_replicate_none_with_conflicting_duplicates_suggests_a_replicate_column():
    data = b"model,type,value\nm,a,10\nm,a,20\nm,b,30\n"
    err = refused(data, "dups.csv", ImportOptions(replicate=""))
    says(str(err), "model m", "type a", "more than once", "replicate", "seed")


def test_replicate_override_naming_no_column_names_the_file():
    err = refused((FIXTURES / "tidy_small.csv").read_bytes(), "tidy_small.csv",
                  ImportOptions(replicate="nope"))
    says(str(err), "'nope'")


def test_replicate_override_naming_no_column_is_an_import_error():
    with pytest.raises(ImportFailed, match="'nope' is not in the file"):
        load("tidy_small.csv", ImportOptions(replicate="nope"))


def test_unknown_format_is_refused():
    err = refused((FIXTURES / "tidy_small.csv").read_bytes(), "tidy_small.csv",
                  ImportOptions(format="json"))
    says(str(err), "json", "tidy", "wide", "matrix")


# --------------------------------------------------------------------------- bad inputs

def test_empty_file():
    err = refused(b"", "empty.csv")
    says(str(err), "empty", "header row")


def test_whitespace_only_file_is_empty():
    err = refused(b"  \n\r\n\t\n", "blank.csv")
    says(str(err), "empty")


def test_bom_only_file_is_empty():
    err = refused(b"\xef\xbb\xbf", "bom.csv")
    says(str(err), "empty")


def test_header_only():
    err = refused(b"model,type,value\n", "header.csv")
    says(str(err), "no data rows", "add")


def test_binary_file():
    err = refused(b"PK\x03\x04\x00\x00model,type,value\x00\n", "sheet.csv")
    says(str(err), "binary", "export it as csv")


def test_non_utf8_file():
    err = refused(b"model,type,value\ncaf\xe9,a,1\n", "latin1.csv")
    says(str(err), "not utf-8", "save it", "utf-8 encoding")


def test_wrong_delimiter():
    err = refused(b"model|type|value\nm|a|1\nm|b|2\n", "pipes.csv")
    says(str(err), "'|'", "commas")


def test_one_column_file():
    err = refused(b"value\n1\n2\n", "one.csv")
    says(str(err), "one column", "separated by commas")


def test_semicolon_and_tab_files_are_read_with_a_warning():
    semi = import_bytes(b"model;type;value\nm;a;1.5\n", "semi.csv")[0]
    assert figure_of(semi).value(model="m", type="a") == 1.5
    assert any("semicolon" in w for w in semi.warnings)
    tab = import_bytes(b"model\ttype\tvalue\nm\ta\t2.5\n", "tab.csv")[0]
    assert figure_of(tab).value(model="m", type="a") == 2.5
    assert any("tab" in w for w in tab.warnings)


def test_ragged_rows_name_the_row():
    data = b"model,type,value\nm,a,1\nm,b,2,3\nm,c,4\n"
    err = refused(data, "ragged.csv")
    assert err.row == 3  # header = row 1
    assert str(err).startswith("ragged.csv, row 3: ")
    says(str(err), "4 fields", "header has 3", "fix the row")


def test_short_row_names_the_row():
    err = refused(b"model,type,value\nm,a,1\nm,b,2\nm,c\n", "short.csv")
    assert err.row == 4
    says(str(err), "2 fields")


def test_ragged_row_after_a_blank_line_names_the_row_as_shown():
    data = b"model,type,value\n\nm,a,1\nm,b,2,3\n"  # the bad row is line 4 in any editor
    err = refused(data, "gap.csv")
    assert err.row == 4


def test_empty_column_name():
    err = refused(b"model,,value\nm,a,1\n", "noname.csv")
    says(str(err), "empty or repeated column name", "give every column")


def test_repeated_column_name():
    err = refused(b"model,type,type,value\nm,a,b,1\n", "twice.csv")
    says(str(err), "'type'", "give every column")


def test_no_value_column_with_format_tidy():
    err = refused(b"model,type,score\nm,a,1\n", "noval.csv", ImportOptions(format="tidy"))
    says(str(err), "no 'value' column")


def test_unrecognised_format():
    err = refused(b"model,type,score\nm,a,high\n", "what.csv")
    says(str(err), "not recognised", "choose the format")


def test_tidy_needs_two_dimensions():
    err = refused(b"model,value\nm,1\n", "onedim.csv", ImportOptions(format="tidy"))
    says(str(err), "two dimension columns")


def test_non_numeric_value():
    err = refused(b"model,type,value\nm,a,1\nm,b,abc\n", "abc.csv")
    says(str(err), "'abc'", "not a finite number", "model m", "type b", "write a number")


def test_non_numeric_value_in_a_wide_file():
    data = b"model,type_1_len_1,type_1_len_2\nm,50,n/a\n"
    err = refused(data, "wide_bad.csv")
    says(str(err), "'n/a'", "len 2", "write a number")


def test_infinite_value():
    err = refused(b"model,type,value\nm,a,inf\n", "inf.csv")
    says(str(err), "'inf'", "not a finite number", "model m", "type a")


def test_nan_value():
    err = refused(b"model,type,value\nm,a,NaN\n", "nan.csv")
    says(str(err), "'NaN'", "not a finite number")


def test_value_outside_the_metric_range():
    err = refused(b"model,type,value\nm,a,50\nm,b,101\n", "range.csv")
    says(str(err), "101", "model m", "type b", "0 to 100", "fix the number")


def test_negative_value_outside_the_default_range():
    err = refused(b"model,type,value\nm,a,-1\n", "neg.csv")
    says(str(err), "-1", "0 to 100")


def test_metric_range_none_accepts_any_finite_number():
    imp = import_bytes(b"model,type,value\nm,a,101\nm,b,-3.5\n", "free.csv",
                       ImportOptions(metric_range=None))[0]
    fig = figure_of(imp)
    assert fig.value(model="m", type="a") == 101.0 and fig.value(model="m", type="b") == -3.5


def test_a_replicate_outside_the_metric_range_is_refused():
    data = b"model,seed,type_1_len_1,type_1_len_2\nm,1,101,50\nm,2,99,50\n"
    err = refused(data, "seeds_range.csv")
    says(str(err), "101")


def test_duplicate_cells_with_conflicting_values():
    err = refused(b"model,type,length,value\nm,a,1,10\nm,a,2,20\nm,a,1,11\n", "clash.csv")
    says(str(err), "model m", "type a", "length 1", "more than once", "keep one row per cell",
         "replicate")


def test_duplicate_cells_with_identical_values_are_merged_with_a_warning():
    imp = import_bytes(b"model,type,value\nm,a,10\nm,a,10\nm,b,20\n", "same.csv")[0]
    assert imp.n_cells == 2
    assert any("merged" in w for w in imp.warnings)


def test_a_repeated_replicate_row_is_not_counted_twice():
    data = (b"model,seed,type_1_len_1,type_1_len_2\n"
            b"m,1,10,50\nm,1,10,50\nm,2,40,60\n")  # seed 1 pasted twice, as in results_core.csv
    imp = import_bytes(data, "repeat.csv")[0]
    c = cell(imp, model="m", type="1", len="1")
    assert c["n"] == "2" and float(c["value"]) == 25.0


def test_cell_columns_that_follow_two_patterns():
    data = b"model,type_1_len_0,type_1_len_1,kind_2_size_3,kind_2_size_4\nm,1,2,3,4\n"
    err = refused(data, "mixed.csv")
    says(str(err), "more than one pattern", "type_1_len_0", "kind_2_size_3", "rename")


def test_matrix_row_without_a_label():
    err = refused(b"size,0.1,0.2\n500,1,2\n,3,4\n", "nolabel.csv")
    assert err.row == 3
    says(str(err), "no label", "give every row a label")


def test_file_holding_no_values():
    err = refused(b"model,type,value\nm,a,\nm,b,\n", "novalues.csv")
    says(str(err), "no values", "fill in")


def test_file_over_the_size_limit():
    data = b"model,type,value\n" + b"m,a,1\n" * 30
    assert len(data) > 100
    err = refused(data, "big.csv", max_bytes=100)
    says(str(err), "limit", "split it")
    # exactly at the limit is fine
    assert import_bytes(data[:100].rsplit(b"\n", 1)[0] + b"\n", "edge.csv", max_bytes=100)[0]


def _stated_mb(message: str) -> tuple[float, float]:
    size, limit = re.search(r"the file is ([\d.]+) MB, over the ([\d.]+) MB limit", message).groups()
    return float(size), float(limit)


@pytest.mark.parametrize("size, limit", [(180, 100), (DEFAULT_MAX_BYTES + 1, DEFAULT_MAX_BYTES)])
def test_size_limit_message_shows_the_file_over_the_limit(size, limit):
    data = (b"model,type,value\n" + b"m,a,1\n" * (size // 6 + 1))[:size]
    err = refused(data, "big.csv", max_bytes=limit)
    shown_size, shown_limit = _stated_mb(str(err))
    assert shown_size > shown_limit, str(err)


# --------------------------------------------------------------------------- labels as text

SCRIPT = "<script>alert(1)</script>"


def test_html_labels_are_imported_unchanged_as_text():
    data = f'model,type,value\n{SCRIPT},a,10\n"<b>bold</b> & co",a,20\n'.encode()
    imp = import_bytes(data, "html.csv")[0]
    assert imp.dims["model"] == [SCRIPT, "<b>bold</b> & co"]
    fig = figure_of(imp)
    assert fig.spec.dims["model"].labels == (SCRIPT, "<b>bold</b> & co")
    assert fig.value(model=SCRIPT, type="a") == 10.0
    assert SCRIPT in imp.to_csv()  # escaping is the UI's job, not the importer's


def test_html_in_a_file_name_and_column_name_stays_text():
    imp = import_bytes(f"model,{SCRIPT},value\nm,a,1\n".encode(), "x.csv")[0]
    assert figure_of(imp).value(model="m", **{SCRIPT: "a"}) == 1.0


def test_formula_like_labels_are_neutralised_in_csv_and_numbers_stay_numbers():
    data = (b"model,type,value\n"
            b"=HYPERLINK(\"http://x\"),+a,1\n"
            b"@SUM(A1),-cmd,2\n"
            b"-1,-2.5,3\n"
            b"plain,1e3,4\n")
    imp = import_bytes(data, "formula.csv")[0]
    # the import itself keeps the text as given
    assert imp.dims["model"] == ['=HYPERLINK("http://x")', "@SUM(A1)", "-1", "plain"]
    assert figure_of(imp).value(model="@SUM(A1)", type="-cmd") == 2.0
    rows = list(csv.DictReader(io.StringIO(imp.to_csv())))
    assert [r["model"] for r in rows] == ["'=HYPERLINK(\"http://x\")", "'@SUM(A1)", "-1", "plain"]
    assert [r["type"] for r in rows] == ["'+a", "'-cmd", "-2.5", "1e3"]
    assert [r["value"] for r in rows] == ["1", "2", "3", "4"]


def test_negative_values_stay_numbers_in_csv():
    imp = import_bytes(b"model,type,value\nm,a,-5\nm,b,-0.25\n", "neg.csv",
                       ImportOptions(metric_range=None))[0]
    rows = list(csv.DictReader(io.StringIO(imp.to_csv())))
    assert [r["value"] for r in rows] == ["-5", "-0.25"]


def test_to_csv_of_a_wide_import_round_trips_through_the_tidy_importer():
    imp = load("wide_small.csv")
    again = import_bytes(imp.to_csv().encode(), "again.csv", ImportOptions(format="tidy"))[0]
    assert again.format == "tidy"
    fig, fig2 = figure_of(imp), figure_of(again)
    assert fig2.n_cells == fig.n_cells
    for row in fig.cells.itertuples(index=False):
        coords = {d: getattr(row, d) for d in fig.spec.dim_names}
        assert fig2.value(**coords) == fig.value(**coords)


# --------------------------------------------------------------------------- property

LABEL = st.text(alphabet=string.ascii_letters + string.digits + " .-_+<>&'", min_size=1,
                max_size=8).map(str.strip).filter(bool)
VALUE = st.floats(min_value=0, max_value=100, allow_nan=False, allow_infinity=False)
DIMS = st.sampled_from([("model", "type"), ("size", "ratio"), ("Row label", "Col label")])


@st.composite
def tidy_tables(draw):
    dims = draw(DIMS)
    cells = draw(st.dictionaries(st.tuples(LABEL, LABEL), VALUE, min_size=1, max_size=12))
    return dims, cells


@settings(max_examples=120, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(tidy_tables())
def test_any_small_tidy_table_round_trips_exactly(table):
    (ydim, xdim), cells = table
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow([ydim, xdim, "value"])
    for (ylab, xlab), value in cells.items():
        writer.writerow([ylab, xlab, repr(value)])
    imp = import_bytes(buf.getvalue().encode(), "random.csv")[0]
    assert imp.format == "tidy"
    assert (imp.spec["y"], imp.spec["x"]) == (ydim, xdim)
    assert imp.n_cells == len(cells)
    fig = figure_of(imp)
    assert fig.n_cells == len(cells)
    for (ylab, xlab), value in cells.items():
        assert fig.value(**{ydim: ylab, xdim: xlab}) == value


def test_tidy_sd_and_n_columns_are_kept():
    imp = import_bytes(b"model,type,value,sd,n\nm,a,50,2.5,3\nm,b,60,1.0,4\n", "withsd.csv")[0]
    c = cell(imp, model="m", type="a")
    assert (c.get("sd"), c.get("n")) == ("2.5", "3")
    row = figure_of(imp).cells.iloc[0]
    assert (row["sd"], row["n"]) == (2.5, 3.0)


def test_tidy_se_column_is_kept_as_a_grid_and_in_the_cells_api():
    from evalmaps.views.payloads import grid_cells

    imp = import_bytes(b"model,type,value,se\nm,a,50,2.5\nm,b,60,\n", "withse.csv")[0]
    assert list(imp.dims) == ["model", "type"]
    fig = figure_of(imp)
    assert [(r["type"], r["value"], r["se"]) for _, r in fig.cells.iterrows()][0] == ("a", 50.0, 2.5)
    assert grid_cells(fig) == [{"model": "m", "type": "a", "value": 50.0, "se": 2.5},
                               {"model": "m", "type": "b", "value": 60.0, "se": None}]


def test_tidy_sd_and_n_columns_are_not_dimensions():
    imp = import_bytes(b"model,type,value,sd,n\nm,a,50,2.5,3\nm,b,60,1.0,4\n", "withsd.csv")[0]
    assert list(imp.dims) == ["model", "type"] and imp.n_cells == 2
    assert figure_of(imp).value(model="m", type="b") == 60.0


def test_unclosed_quote_in_a_small_file_is_a_ragged_row():
    err = refused(b'model,type,value\n"m,a,1\nm,b,2\n', "quote.csv")
    assert err.row == 2


def test_unclosed_quote_in_a_large_file_is_an_import_error():
    rows = ["model,type,value", '"m0,a,1'] + [f"m{i},a,1" for i in range(1, 20000)]
    err = refused(("\n".join(rows) + "\n").encode(), "quote.csv")
    says(str(err), "quote")


# ---------------------------------------------------------------- control characters (issue 11)

def test_a_nul_byte_after_the_first_8_kb_is_refused_naming_row_and_column():
    rows = [f"m{i % 3},t{i % 7},{i % 50},{i % 90}.5" for i in range(1000)]
    rows[900] = "m1,t\x00x,3,50"
    data = ("model,type,len,value\n" + "\n".join(rows) + "\n").encode("utf-8")
    assert data.index(b"\x00") > 8192
    err = refused(data, "runs.csv", ImportOptions(format="tidy"))
    assert (err.row, err.column) == (902, "type")
    assert str(err) == ("runs.csv, row 902, column 'type': the label 't\\x00x' holds the control "
                        "character U+0000. Labels may not hold control characters (NUL, tab, line "
                        "break, ...); remove it.")


@pytest.mark.parametrize("label, code", [("a\tb", "0009"), ("a\nb", "000A"), ("a\x7fb", "007F"),
                                         ("a\x85b", "0085"), ("a\x1bb", "001B")])
def test_a_control_character_inside_a_label_is_refused(label, code):
    data = f'model,type,len,value\nm1,a,1,5\nm1,"{label}",2,6\n'.encode("utf-8")
    err = refused(data, "runs.csv")
    assert (err.row, err.column) == (3, "type")
    says(str(err), f"U+{code}", "remove it")


def test_control_characters_around_a_label_are_stripped_like_spaces():
    imported = import_bytes(b'model,type,len,value\nm1,"\ta\t",1,5\nm1," b\x1f",2,6\n', "t.csv")[0]
    assert imported.dims["type"] == ["a", "b"]


def test_a_control_character_in_a_column_name_is_refused():
    err = refused(b"model,ty\x01pe,len,value\nm1,a,1,5\n", "runs.csv")
    assert (err.row, err.column) == (1, None)
    says(str(err), "column name", "ty\\x01pe", "U+0001")


def test_a_control_character_in_a_matrix_header_label_is_refused():
    err = refused(b'size,"0.1\x02",0.2\n1,5,6\n', "m.csv", ImportOptions(format="matrix"))
    says(str(err), "column name", "U+0002")


# ------------------------------------------------------------- auto-detection (issue 11)

MIXED = b"model,type_1_len_1,type_1_size_2,window_3_ratio_0.1\nm,1,2,3\n"
MIXED_MESSAGE = ("mixed.csv: the columns type_1_len_1, type_1_size_2, window_3_ratio_0.1 look like "
                 "cell columns but follow different patterns (type_<type>_len_<len>, "
                 "type_<type>_size_<size>, window_<window>_ratio_<ratio>). Rename them to one "
                 "pattern such as type_<type>_len_<len>, or choose the matrix format to read them "
                 "as plain columns.")


@pytest.mark.parametrize("fmt", ["auto", "wide"])
def test_cell_columns_in_different_patterns_are_named_not_read_as_a_matrix(fmt):
    # before: auto read a 1 x 3 matrix without a word; wide said no cell columns were found
    err = refused(MIXED, "mixed.csv", ImportOptions(format=fmt))
    assert str(err) == MIXED_MESSAGE


def test_cell_columns_in_different_patterns_import_as_a_matrix_when_asked():
    imp = import_bytes(MIXED, "mixed.csv", ImportOptions(format="matrix"))[0]
    assert imp.to_csv() == ("model,column,value\nm,type_1_len_1,1\nm,type_1_size_2,2\n"
                            "m,window_3_ratio_0.1,3\n")


def test_a_lone_wide_cell_column_is_named():
    err = refused(b"model,type_1_len_1\nm,1\n", "one.csv", ImportOptions(format="wide"))
    assert str(err) == ("one.csv: only one cell column (type_1_len_1) was found; a wide results "
                        "table has one column per cell, like type_3_len_15 and type_3_len_16. "
                        "Choose another format.")


SEEDS = b"model,seed,accuracy\na,1,50\na,2,52\nb,1,60\nb,2,61.5\nc,1,70\n"


@pytest.mark.parametrize("fmt", ["auto", "matrix"])
def test_replicate_rows_of_one_metric_are_averaged(fmt):
    # before: a matrix with 'seed' and 'accuracy' as its columns (and a clash per model)
    imp = import_bytes(SEEDS, "seeds.csv", ImportOptions(format=fmt))[0]
    assert (imp.format, imp.spec["y"], imp.spec["x"], imp.replicate, imp.replicates) == \
        ("matrix", "model", "metric", "seed", 2)
    assert imp.to_csv() == ("model,metric,value,sd,n\n"
                            f"a,accuracy,51.0,{math.sqrt(2)!r},2\n"
                            f"b,accuracy,60.75,{math.sqrt(1.125)!r},2\n"
                            "c,accuracy,70.0,,1\n")
    fig = figure_of(imp)
    assert fig.value(model="b", metric="accuracy") == 60.75
    assert imp.spec["notes"][1] == "Each value is the mean over the 'seed' replicates (sd and n kept)."


def test_several_metrics_per_replicate_row_and_no_replicate_when_asked():
    data = b"model,run,accuracy,f1\na,1,50,40\na,2,52,42\n"
    imp = import_bytes(data, "runs.csv")[0]
    assert imp.to_csv() == ("model,metric,value,sd,n\n"
                            f"a,accuracy,51.0,{math.sqrt(2)!r},2\n"
                            f"a,f1,41.0,{math.sqrt(2)!r},2\n")
    # --replicate '': the old reading, where the seed is a column like any other
    err = refused(data, "runs.csv", ImportOptions(replicate=""))
    says(str(err), "given more than once with different values")
    plain = import_bytes(b"model,seed,accuracy\na,1,50\nb,2,60\n", "p.csv",
                         ImportOptions(replicate=""))[0]
    assert plain.to_csv() == "model,column,value\na,seed,1\nb,seed,2\na,accuracy,50\nb,accuracy,60\n"


def test_the_format_is_detected_with_the_replicate_column_chosen():
    """A text seed column is a matrix's replicate column; with none chosen ('') it is a column
    like any other, and a matrix's columns after the first must be numbers: not recognised."""
    data = b"model,seed,accuracy\na,s1,50\na,s2,52\n"
    assert import_bytes(data, "runs.csv")[0].to_csv() == (
        f"model,metric,value,sd,n\na,accuracy,51.0,{math.sqrt(2)!r},2\n")
    err = refused(data, "runs.csv", ImportOptions(replicate=""))
    assert str(err) == ("runs.csv: the format is not recognised: there is no 'value' column "
                        "(tidy), no cell columns like type_3_len_15 (wide), the columns after the "
                        "first are not all numbers (matrix), and no column names each row once "
                        "beside columns of scores (leaderboard). If each row is one cell, "
                        "rename its score column ('accuracy') to 'value'; else choose the "
                        "format, or reshape the file.")


def test_a_long_table_with_a_score_column_of_its_own_name_is_told_to_rename_it():
    """model,task,step,solved: one row per cell, but its score is not called 'value'. The
    refusal names the column to rename, and the renamed file reads as that advice says."""
    data = b"model,task,step,solved\nm1,t1,1,4\nm1,t1,2,7\nm2,t1,1,6\nm2,t1,2,3\n"
    assert str(refused(data, "counts.csv")) == (
        "counts.csv: the format is not recognised: there is no 'value' column (tidy), no cell "
        "columns like type_3_len_15 (wide), the columns after the first are not all numbers "
        "(matrix), and no column names each row once beside columns of scores (leaderboard). "
        "If each row is one cell, rename its score column ('solved') to 'value'; else choose "
        "the format, or reshape the file.")
    renamed = data.replace(b"solved", b"value", 1)
    assert import_bytes(renamed, "counts.csv")[0].to_csv() == (
        "model,task,step,value\nm1,t1,1,4\nm1,t1,2,7\nm2,t1,1,6\nm2,t1,2,3\n")
    # no column of numbers: nothing to rename, the plain advice
    assert str(refused(b"model,task,note\nm1,t1,x\nm2,t1,y\n", "t.csv")).endswith(
        "(leaderboard). Choose the format, or reshape the file.")
