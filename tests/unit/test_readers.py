"""The readers' registry: one ordered table, lazy imports, entry points, and the example reader
of docs/architecture.md working as the docs say."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import types
from pathlib import Path

import pytest

from evalmaps import readers
from evalmaps.catalog.imports import figure_of, import_bytes
from evalmaps.readers.base import ImportFailed, Probe

ROOT = Path(__file__).resolve().parents[2]
ARCHITECTURE = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")


def test_every_reader_in_the_table_has_the_protocol():
    for name in readers.KNOWN_READERS:
        module = readers.reader(name)
        assert module.NAME == name
        assert isinstance(module.DESCRIBES, str) and module.DESCRIBES
        assert callable(module.sniff) and callable(module.read)
        if hasattr(module, "layout"):  # a reader of results
            assert module.TOOL and module.TOOL_FILES


def test_csv_is_tried_last_and_the_order_is_the_tables():
    assert readers.names() == list(readers.KNOWN_READERS)
    assert readers.names()[-1] == "csv"


def test_the_formats_read_are_named_in_one_sentence():
    assert readers.described() == (
        "a CSV, Parquet or JSON Lines table, lighteval details (details_*.parquet), "
        "lighteval results JSON, lm-evaluation-harness results JSON, lm-evaluation-"
        "harness per-sample records (samples_*.jsonl), bigcode-evaluation-harness results"
        " JSON, an Inspect log (.eval or .json), LiveCodeBench graded generations "
        "(*_eval_all.json), AlpacaEval judgements (annotations.json), a HELM run's "
        "stats.json, the EvalPlus leaderboard's "
        "results.json, EvalPerf results JSON, SWE-bench results (results/results.json), "
        "simple-evals results JSON, JSON records of "
        "scores (a list, or one object per file), or an OpenCompass summary CSV")


def test_importing_the_package_imports_no_reader():
    code = ("import sys, evalmaps.readers as r; "
            "print(sorted(m for m in sys.modules if m.startswith('evalmaps.readers.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                         check=True).stdout
    # the protocol's module and the CSV engine it uses, and no reader
    assert out.strip() == "['evalmaps.readers.base', 'evalmaps.readers.fastcsv']"


@pytest.mark.parametrize("data, name", [
    (b"PAR1....", "parquet"),
    (json.dumps({"results": {"arc": {"acc,none": 0.5}}, "versions": {}}).encode(), "lm-eval"),
    (json.dumps({"eval": {"model": "m", "task": "t"}, "results": {}}).encode(), "inspect"),
    (b'[{"model": "m"}]', "jsonl"),
    (b"model,task,value\nm,t,1\n", "csv"),
    (b'{"name": "x", "deps": {"a": 1}}', readers.OTHER_JSON),
])
def test_detect_names_the_reader(data, name):
    assert readers.detect(data) == name
    assert readers.detect(Probe(data)) == name


def test_an_unknown_reader_is_a_clear_key_error():
    with pytest.raises(KeyError, match="no reader is called 'nope'; the readers are lighteval-details, parquet"):
        readers.reader("nope")


def docs_example() -> str:
    blocks = re.findall(r"```python\n(.*?)```", ARCHITECTURE, re.S)
    (code,) = [b for b in blocks if 'NAME = "lab-json"' in b]
    return code


@pytest.fixture
def lab_reader(monkeypatch):
    """The docs' example, registered as an entry point would register it."""
    module = types.ModuleType("mylab.evalmaps_reader")
    exec(compile(docs_example(), "docs/architecture.md", "exec"), module.__dict__)
    monkeypatch.setitem(sys.modules, "mylab.evalmaps_reader", module)
    monkeypatch.setattr(readers, "_entry_points", lambda: {"lab-json": "mylab.evalmaps_reader"})
    monkeypatch.setattr(readers, "_order", None)
    monkeypatch.setattr(readers, "_loaded", {})
    monkeypatch.setattr(readers, "_extra", {})
    return module


def test_the_docs_example_reader_reads_its_format(lab_reader):
    assert readers.names() == [*[n for n in readers.KNOWN_READERS if n != "csv"], "lab-json",
                               "csv"]
    doc = {"lab_results": [{"model": "m1", "task": "arc", "score": 0.5},
                           {"model": "m2", "task": "arc", "score": 0.75},
                           {"model": "m1", "task": "gsm8k", "score": 0.25}]}
    data = json.dumps(doc).encode()
    assert readers.detect(data) == "lab-json"
    imported = import_bytes(data, "lab.json")[0]
    assert imported.format == "lab-json"
    assert (imported.spec["y"], imported.spec["x"]) == ("model", "task")
    assert imported.tidy.to_dict("list") == {"model": ["m1", "m2", "m1"],
                                             "task": ["arc", "arc", "gsm8k"],
                                             "value": ["0.5", "0.75", "0.25"]}
    figure = figure_of(imported)
    assert figure.value(model="m2", task="arc") == 0.75
    assert "our lab's results JSON" in readers.described()
    with pytest.raises(ImportFailed, match="each entry needs a model, a task and a numeric score"):
        import_bytes(json.dumps({"lab_results": [{"model": "m"}]}).encode(), "bad.json")[0]


def test_reading_a_csv_imports_only_the_readers_of_text():
    """FIRST_BYTES: readers whose files cannot start as a CSV does are not asked, nor imported."""
    code = ("import sys; from evalmaps import readers; print(readers.detect(b'a,b,value\\n1,2,3\\n')); "
            "print(sorted(m.rsplit('.', 1)[1] for m in sys.modules "
            "if m.startswith('evalmaps.readers.') and m.rsplit('.', 1)[1] not in "
            "('base', 'fastcsv', 'table', 'leaderboard')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                         check=True).stdout.split("\n")
    assert out[:2] == ["csv", "['csvfile', 'opencompass']"]
    for name, starts in readers.FIRST_BYTES.items():
        assert name in readers.KNOWN_READERS and all(isinstance(s, bytes) for s in starts)
