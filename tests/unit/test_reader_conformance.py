"""The conformance suite (evalmaps.readers.testing) over every built-in reader, each with real
files (tests/fixtures/formats; ../shared/external when present, else that case is skipped) and
the small files the suite itself keeps of each format; a reader that does not conform refused by
register_reader; and a lab's reader, added at run time, detected, imported end to end and
passing the suite."""

from __future__ import annotations

import io
import json
import re
import sys
import types
import zipfile
from pathlib import Path

import pytest

from evalmaps import readers
from evalmaps.catalog.imports import figure_of, import_bytes
from evalmaps.readers.base import ImportFailed, Reader, hook
from evalmaps.readers.testing import ReaderConformance, Sample, built_in_samples

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "formats"
EXTERNAL = ROOT.parent / "shared" / "external"


def files(root: Path, *patterns: str) -> list[Sample]:
    """The files under ``root`` that match, each named by its path below ``root`` (a reader may
    read its model's name from a folder)."""
    found = sorted({p for pattern in patterns for p in root.glob(pattern) if p.is_file()})
    return [Sample(p.read_bytes(), p.relative_to(root).as_posix()) for p in found]


def zipped(folder: Path) -> Sample:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for path in sorted(folder.rglob("*.json")):
            z.writestr(path.relative_to(folder).as_posix(), path.read_bytes())
    return Sample(buf.getvalue(), f"{folder.name}.zip")


# the real files of each reader kept in the repository (tests/fixtures/formats)
FIXTURE_FILES = {
    "lighteval-details": lambda: files(FIXTURES / "lighteval-details", "details/**/*.parquet"),
    "lighteval": lambda: files(FIXTURES / "lighteval-details", "results/**/*.json"),
    "lm-eval": lambda: files(FIXTURES / "evalchemy", "*/*.json"),  # evalchemy writes lm-eval's
    "bigcode": lambda: files(FIXTURES / "bigcode", "*/*.json"),
    "zip": lambda: [zipped(FIXTURES / "bigcode"), zipped(FIXTURES / "swe-bench")],
    "livecodebench": lambda: files(FIXTURES / "livecodebench", "**/*.json"),
    "swe-bench": lambda: files(FIXTURES / "swe-bench", "**/results.json"),
    "opencompass": lambda: files(FIXTURES / "opencompass", "*/*.csv"),
}

# the real files of each reader in ../shared/external (read-only; absent on some machines)
EXTERNAL_FILES = {
    "lighteval": lambda: files(EXTERNAL / "lighteval", "open_llm_leaderboard/*/*.json",
                               "german_rag_eval/occiglot-7b-eu5/*.json"),
    "lm-eval": lambda: files(EXTERNAL / "lm-eval", "*.json"),
    "lm-eval-samples": lambda: files(EXTERNAL / "lm-eval-samples", "samples_*.jsonl"),
    "inspect": lambda: files(EXTERNAL / "inspect", "*_mj7khqpMM4GBCfVQozKgzB.eval", "mmlu-*.eval",
                             "*_popularity.json"),  # not the logs without scores
    "alpaca-eval": lambda: files(EXTERNAL / "alpaca-eval", "results/phi-2/*/annotations.json"),
    "helm": lambda: files(EXTERNAL / "helm", "*/stats.json"),
    "evalplus": lambda: files(EXTERNAL / "evalplus", "results.json"),
    "simple-evals": lambda: files(EXTERNAL / "simple-evals", "results/*/*.json"),
    "json-records": lambda: files(EXTERNAL / "needle-haystack", "original_results/*/*.json"),
    "csv": lambda: files(EXTERNAL / "meta-learning-logic", "*.csv"),
}


def _kept(name: str) -> list[Sample]:
    return [*built_in_samples()[name], *(FIXTURE_FILES[name]() if name in FIXTURE_FILES else [])]


def _external(name: str) -> list[Sample]:
    return EXTERNAL_FILES[name]() if EXTERNAL.is_dir() else []


def _class_name(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("-"))


# one class per built-in reader, with the files in the repository; one more per reader with files
# in ../shared/external (its tests skipped when they are absent)
for _name in readers.KNOWN_READERS:
    _reader = readers.reader(_name)
    globals()[f"TestBuiltIn{_class_name(_name)}"] = type(
        f"TestBuiltIn{_class_name(_name)}", (ReaderConformance,),
        {"reader": _reader, "samples": _kept(_name)})
    if _name in EXTERNAL_FILES:
        globals()[f"TestExternal{_class_name(_name)}"] = pytest.mark.external(type(
            f"TestExternal{_class_name(_name)}", (ReaderConformance,),
            {"reader": _reader, "samples": _external(_name)}))


def test_every_built_in_reader_is_run_with_real_files():
    assert set(built_in_samples()) == set(readers.KNOWN_READERS)
    for name in readers.KNOWN_READERS:
        assert _kept(name), name
        assert all(readers.detect(s.data) == name for s in _kept(name)), name


# --------------------------------------------------------------------------- register_reader

def test_a_reader_that_does_not_conform_is_refused_saying_what_is_missing():
    broken = types.SimpleNamespace(NAME="broken", sniff=lambda probe: False, TOOL="broken runs")
    with pytest.raises(TypeError) as info:
        readers.register_reader("broken", broken)
    assert str(info.value) == (
        f"{broken!r} cannot be registered as the reader 'broken': it has no DESCRIBES, no read "
        f"and TOOL without TOOL_FILES and layout (a reader of results has all three). A reader "
        f"needs NAME and DESCRIBES (texts), sniff(probe) and read(probe, file, options, "
        f"max_bytes): see evalmaps.readers.base.Reader.")
    assert "broken" not in readers.names()
    with pytest.raises(TypeError, match="it has a DESCRIBES that is not a non-empty text and a "
                                        "read that is not callable"):
        readers.register_reader("broken", types.SimpleNamespace(
            NAME="broken", DESCRIBES="", sniff=lambda probe: False, read=None))


def test_a_reader_is_registered_under_its_own_name_once_before_a_known_reader():
    with pytest.raises(ValueError, match="its NAME is what detect\\(\\) answers, so register it "
                                         "as 'lab-scores'"):
        readers.register_reader("other", LAB)
    with pytest.raises(ValueError, match="a reader called 'csv' is already registered"):
        readers.register_reader("csv", readers.reader("csv"))
    with pytest.raises(ValueError, match="there is no reader 'nope' to try 'lab-scores' before"):
        readers.register_reader("lab-scores", LAB, before="nope")
    with pytest.raises(KeyError, match="no reader called 'lab-scores' was added"):
        readers.unregister_reader("lab-scores")


# ------------------------------------------------------------------------------- a lab's reader

LAB_SOURCE = '''
"""A lab's own results: {"lab": <model>, "scores": {<task>: <score>, ...}}."""

from evalmaps.readers.base import ImportFailed, Reading, number, text_of

NAME = "lab-scores"
DESCRIBES = "our lab's score JSON"
TOOL = "lab scores"
TOOL_FILES = "lab score files"
FIRST_BYTES = (b"{",)


def sniff(probe):
    doc = probe.doc
    return isinstance(doc, dict) and isinstance(doc.get("lab"), str) \\
        and isinstance(doc.get("scores"), dict)


def read(probe, file, options=None, max_bytes=None):
    reading = Reading(NAME, file)
    for task, score in probe.doc["scores"].items():
        if number(score) is None:
            raise ImportFailed(f"the score of {task} is not a number.", file=file)
        reading.records.append({"model": probe.doc["lab"], "task": str(task),
                                "value": text_of(score), "se": ""})
    return reading


def layout(records, name, warnings):
    return ["model", "task"]
'''
LAB = types.ModuleType("mylab.scores")
exec(compile(LAB_SOURCE, "mylab/scores.py", "exec"), LAB.__dict__)
LAB_SAMPLES = [Sample(json.dumps({"lab": "m1", "scores": {"arc": 0.5, "gsm8k": 0.25}}).encode(),
                      "m1.json"),
               Sample(json.dumps({"lab": "m2", "scores": {"arc": 0.75}}, indent=2).encode(),
                      "runs/m2.json")]


class TestLabReader(ReaderConformance):
    reader = LAB
    samples = LAB_SAMPLES


@pytest.fixture
def lab():
    readers.register_reader("lab-scores", LAB)
    yield LAB
    readers.unregister_reader("lab-scores")


def test_a_lab_reader_registered_at_run_time_is_detected_and_imported(lab):
    assert isinstance(lab, Reader)
    assert readers.names()[-2:] == ["lab-scores", "csv"]
    assert readers.first_bytes("lab-scores") == (b"{",)
    assert readers.detect(LAB_SAMPLES[0].data) == "lab-scores"
    assert readers.detect(b"model,task,value\nm,t,1\n") == "csv"
    imported = import_bytes(LAB_SAMPLES[0].data, "m1.json")[0]
    assert imported.format == "lab-scores"
    assert (imported.spec["y"], imported.spec["x"]) == ("model", "task")
    assert imported.tidy.to_dict("list") == {"model": ["m1", "m1"], "task": ["arc", "gsm8k"],
                                             "value": ["0.5", "0.25"]}
    assert figure_of(imported).value(model="m1", task="gsm8k") == 0.25
    assert "our lab's score JSON" in readers.described()
    with pytest.raises(ImportFailed, match="the score of arc is not a number"):
        import_bytes(b'{"lab": "m", "scores": {"arc": "high"}}', "bad.json")[0]


def test_a_lab_reader_is_tried_before_the_reader_it_names_and_by_path(monkeypatch):
    monkeypatch.setitem(sys.modules, "mylab.scores", LAB)
    readers.register_reader("lab-scores", "mylab.scores", before="lm-eval",
                            first_bytes=b"{")
    try:
        order = readers.names()
        assert order.index("lab-scores") == order.index("lm-eval") - 1
        assert readers.first_bytes("lab-scores") == (b"{",)
        assert readers.reader("lab-scores") is LAB
    finally:
        readers.unregister_reader("lab-scores")
    assert "lab-scores" not in readers.names()
    assert readers.detect(LAB_SAMPLES[0].data) == readers.OTHER_JSON


def test_hooks_default_as_the_catalog_expects():
    csv = readers.reader("csv")
    assert hook(csv, "TABLE") is True and hook(LAB, "TABLE") is False
    assert hook(LAB, "metric_range")("arc") is None and hook(LAB, "order") is None
    assert hook(readers.reader("lm-eval"), "join_items") is not None
    with pytest.raises(KeyError, match="'colour' is no reader hook"):
        hook(LAB, "colour")


# the docs' example reader (docs/architecture.md) passes the suite too
def _docs_reader() -> types.ModuleType:
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    (code,) = [b for b in re.findall(r"```python\n(.*?)```", text, re.S) if 'NAME = "lab-json"' in b]
    module = types.ModuleType("mylab.evalmaps_reader")
    exec(compile(code, "docs/architecture.md", "exec"), module.__dict__)
    return module


class TestTheDocsExampleReader(ReaderConformance):
    reader = _docs_reader()
    samples = [Sample(json.dumps({"lab_results": [{"model": "m1", "task": "arc", "score": 0.5},
                                                  {"model": "m2", "task": "arc", "score": 0.75}]
                                  }).encode(), "lab.json")]


def _lab_but(**changed) -> types.ModuleType:
    module = types.ModuleType("mylab.broken")
    module.__dict__.update({k: v for k, v in LAB.__dict__.items() if not k.startswith("__")},
                           **changed)
    return module


def _fragile_read(probe, file, options=None, max_bytes=None):
    json.loads(probe.data)  # a ValueError on a file cut short
    return LAB.read(probe, file, options, max_bytes)


@pytest.mark.parametrize("changed, test, error", [
    # claims any JSON object, lm-eval's results files among them
    ({"sniff": lambda probe: isinstance(probe.doc, dict)},
     "test_sniff_claims_no_other_readers_file", AssertionError),
    # looks into the document without asking what it is
    ({"sniff": lambda probe: "lab" in probe.doc}, "test_sniff_answers_a_bool_for_any_bytes",
     TypeError),
    ({"sniff": lambda probe: probe.doc.get("lab") is not None},
     "test_sniff_answers_a_bool_for_any_json_document", AttributeError),
    # claims what it cannot read, and fails with another error than ImportFailed
    ({"sniff": lambda probe: probe.head[:1] == b"{", "read": _fragile_read},
     "test_a_file_cut_in_half_reads_or_is_refused_clearly", ValueError),
    # names a dimension its records do not have
    ({"layout": lambda records, name, warnings: ["model", "split", "task"]},
     "test_records_have_their_dimensions_and_a_number", AssertionError),
    ({"TOOL": ""}, "test_a_reader_of_results_names_its_files", AssertionError),
    ({"DESCRIBES": " "}, "test_its_name_and_description_are_texts", AssertionError),
])
def test_the_suite_fails_a_reader_that_breaks_the_contract(changed, test, error):
    suite = type("TestBroken", (ReaderConformance,), {"reader": _lab_but(**changed),
                                                      "samples": LAB_SAMPLES})()
    with pytest.raises(error):
        getattr(suite, test)()
