"""The conformance suite of a reader (:class:`evalmaps.readers.base.Reader`), as pytest classes a
lab subclasses in its own tests (as fsspec's ``fsspec.tests.abstract`` suites are)::

    from evalmaps.readers.testing import ReaderConformance, Sample

    import mylab.evalmaps_reader


    class TestMyReader(ReaderConformance):
        reader = mylab.evalmaps_reader
        samples = [Sample(open("tests/data/run1.json", "rb").read(), "run1.json")]

Each test checks one thing the catalog relies on: the protocol's members; ``sniff`` claims every
sample, never raises whatever the bytes (random bytes and random JSON documents, with
hypothesis), is quick, and claims none of the built-in readers' files it could take from them
(``foreign``: by default one small file of each built-in format, :func:`built_in_samples`);
``read`` of each sample gives records, per-item records, a table or an archive's files, the same
twice; every record has the dimensions ``layout`` names and a number for its value; a sample cut
in half, if claimed, reads or raises :class:`~evalmaps.readers.base.ImportFailed` (or its base
:class:`~evalmaps.core.errors.DataError`, which the table readers raise: the catalog reports
either as the file's clear message; never another error); a reader of
results has ``TOOL`` and ``TOOL_FILES``; and :func:`evalmaps.readers.detect` picks the reader for
its samples (a reader that is not built in is registered for the test, and taken away after).

Needs pytest and hypothesis (evalmaps' test dependencies); evalmaps itself never imports this
module.
"""

from __future__ import annotations

import io
import json
import math
import time
import zipfile
from dataclasses import dataclass
from functools import lru_cache

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evalmaps import readers
from evalmaps.core.errors import DataError
from evalmaps.readers.base import Probe, Reader, Reading, hook, nonconformance

SNIFF_SECONDS = 1.0  # the most one sniff may take, on a sample or on 4 MB of text
FUZZ = settings(max_examples=60, deadline=None,
                suppress_health_check=[HealthCheck.differing_executors,
                                       HealthCheck.function_scoped_fixture])
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner,
                                                                max_size=4),
    max_leaves=20)


@dataclass(frozen=True)
class Sample:
    """One file of a reader's format: its bytes and its name (some formats are known by both)."""

    data: bytes
    name: str


class ReaderConformance:
    """The tests every reader passes. Subclass it (``class TestMyReader(ReaderConformance)``),
    set ``reader`` and ``samples`` (files as the tool writes them, each with its records); set
    ``foreign`` to the files the reader must not claim, if the built-in ones are not the right
    ones."""

    reader: Reader
    samples: list[Sample] = []
    foreign: list[Sample] | None = None  # None: the built-in readers' (built_in_samples)

    # ------------------------------------------------------------------------------ helpers

    def _samples(self) -> list[Sample]:
        if not self.samples:
            pytest.skip(f"no sample of the reader {getattr(self.reader, 'NAME', '?')!r} here")
        return list(self.samples)

    def _foreign(self) -> list[tuple[str, Sample]]:
        if self.foreign is not None:
            return [("foreign", s) for s in self.foreign]
        name = self.reader.NAME
        own = {name, hook(self.reader, "READS_AS")}
        order = list(readers.KNOWN_READERS)
        # a built-in reader can take only the files of the readers tried after it
        after = order[order.index(name) + 1:] if name in order else order
        return [(n, s) for n, found in built_in_samples().items() if n in after and n not in own
                for s in found]

    def _read(self, sample: Sample) -> Reading:
        return self.reader.read(Probe(sample.data), sample.name, None)

    @pytest.fixture
    def detecting(self):
        """The reader as :func:`evalmaps.readers.detect` sees it: registered for the test when it
        is not already one of the readers."""
        name = self.reader.NAME
        added = name not in readers.names()
        if added:
            readers.register_reader(name, self.reader)
        try:
            yield name
        finally:
            if added:
                readers.unregister_reader(name)

    # -------------------------------------------------------------------------------- tests

    def test_it_satisfies_the_protocol(self):
        problem = nonconformance(self.reader)
        assert problem is None, problem
        assert isinstance(self.reader, Reader)

    def test_its_name_and_description_are_texts(self):
        for member in ("NAME", "DESCRIBES"):
            value = getattr(self.reader, member)
            assert isinstance(value, str) and value.strip() == value and value, \
                f"{member} is {value!r}: give a non-empty text without surrounding blanks"

    def test_sniff_claims_every_sample(self):
        for sample in self._samples():
            assert self.reader.sniff(Probe(sample.data)) is True, \
                f"sniff does not claim the sample {sample.name}"

    def test_sniff_is_quick(self):
        blob = b"model,task,value\n" + b"a-model,a-task,0.5\n" * (4 * 2**20 // 19)
        for data in [s.data for s in self._samples()] + [blob]:
            start = time.perf_counter()
            self.reader.sniff(Probe(data))
            took = time.perf_counter() - start
            assert took < SNIFF_SECONDS, f"sniff took {took:.2f} s on {len(data):,} bytes"

    @FUZZ
    @given(data=st.binary(max_size=2048))
    def test_sniff_answers_a_bool_for_any_bytes(self, data):
        assert isinstance(self.reader.sniff(Probe(data)), bool)

    @FUZZ
    @given(doc=JSON)
    def test_sniff_answers_a_bool_for_any_json_document(self, doc):
        for data in (json.dumps(doc).encode(), (json.dumps(doc) + "\n").encode() * 2):
            assert isinstance(self.reader.sniff(Probe(data)), bool)

    def test_sniff_claims_no_other_readers_file(self):
        claimed = [f"{name}'s {s.name}" for name, s in self._foreign()
                   if self.reader.sniff(Probe(s.data))]
        assert not claimed, f"sniff claims files of other formats: {', '.join(claimed)}"

    def test_read_gives_values(self):
        for sample in self._samples():
            reading = self._read(sample)
            assert isinstance(reading, Reading), f"read gave {type(reading).__name__}"
            assert reading.reader in (self.reader.NAME, hook(self.reader, "READS_AS"))
            assert reading.records or reading.items is not None or reading.table is not None \
                or reading.members, f"{sample.name} reads as nothing (no records, items, table " \
                                    f"or members)"

    def test_records_have_their_dimensions_and_a_number(self):
        for sample in self._samples():
            reading = self._read(sample)
            if reading.records:
                layout = hook(self.reader, "layout")
                assert layout is not None, "a reader of records needs layout"
                dims = layout([(sample.name, r) for r in reading.records], sample.name, [])
                assert dims and all(isinstance(d, str) for d in dims)
                for record in reading.records:
                    missing = [d for d in dims if d not in record]
                    assert not missing, f"a record of {sample.name} has no {missing}: {record}"
                    assert all(isinstance(record[d], str) for d in dims), record
                    float(record["value"])  # a number's text
            if reading.items is not None:
                assert {"item", "score"} <= set(reading.items.columns), list(reading.items.columns)
                assert all(math.isfinite(float(v)) for v in reading.items["score"])

    def test_reading_twice_gives_the_same(self):
        for sample in self._samples():
            assert _comparable(self._read(sample)) == _comparable(self._read(sample))

    def test_a_file_cut_in_half_reads_or_is_refused_clearly(self):
        for sample in self._samples():
            cut = Sample(sample.data[:len(sample.data) // 2], sample.name)
            probe = Probe(cut.data)
            if not self.reader.sniff(probe):
                continue  # not offered to read
            try:
                reading = self.reader.read(probe, cut.name, None)
            except DataError:  # ImportFailed, or its base (the table readers' clear error)
                continue
            assert isinstance(reading, Reading)

    def test_a_reader_of_results_names_its_files(self):
        if any(self._read(s).records for s in self._samples()):
            for member in ("TOOL", "TOOL_FILES"):
                value = hook(self.reader, member)
                assert isinstance(value, str) and value, f"a reader of results needs {member}"

    def test_detect_picks_it_for_its_samples(self, detecting):
        for sample in self._samples():
            assert readers.detect(sample.data) == detecting, sample.name


def _comparable(reading: Reading) -> tuple:
    frames = tuple(None if f is None else (list(f.columns), f.astype(str).values.tolist())
                   for f in (reading.table, reading.items))
    return (reading.reader, reading.file, reading.records, reading.lower, reading.metrics,
            reading.warnings, reading.notes, reading.shape, reading.members, frames)


def _json(doc) -> bytes:
    return json.dumps(doc, indent=2).encode()


def _parquet(columns: dict) -> bytes:
    import pyarrow as pa
    import pyarrow.parquet as pq

    buf = io.BytesIO()
    pq.write_table(pa.table(columns), buf)
    return buf.getvalue()


@lru_cache(maxsize=1)
def built_in_samples() -> dict[str, tuple[Sample, ...]]:
    """One small file of each built-in format, as its tool writes it (the parts its reader looks
    at): the files a new reader must leave to theirs."""
    lm_eval = {"results": {"arc_easy": {"alias": "arc_easy", "acc,none": 0.5,
                                        "acc_stderr,none": 0.01}},
               "versions": {"arc_easy": 1.0}, "n-shot": {"arc_easy": 0},
               "config": {"model": "hf", "model_args": "pretrained=org/m"}, "model_name": "org/m"}
    stamp = "2024-05-02T10-11-12.123456"
    zipped = io.BytesIO()
    with zipfile.ZipFile(zipped, "w") as z:
        z.writestr(f"org__m/results_{stamp}.json", _json(lm_eval))
    eval_log = io.BytesIO()
    header = {"version": 2, "status": "success", "eval": {"model": "openai/gpt-4o", "task": "arc"},
              "results": {"scores": [{"name": "choice", "scorer": "choice",
                                      "metrics": {"accuracy": {"name": "accuracy", "value": 0.5},
                                                  "stderr": {"name": "stderr", "value": 0.1}}}]}}
    with zipfile.ZipFile(eval_log, "w") as z:
        z.writestr("header.json", _json(header))
    samples = {
        "lighteval-details": [Sample(_parquet({
            "doc": [{"query": "2+2?", "choices": ["4", "5"], "gold_index": 0, "id": "0"}],
            "model_response": [{"text": ["4"]}], "metric": [{"acc": 1.0}]}),
            f"details_leaderboard|arc:challenge|25_{stamp}.parquet")],
        "parquet": [Sample(_parquet({"model": ["a", "b"], "task": ["t", "t"],
                                     "value": [0.5, 0.25]}), "tidy.parquet")],
        "lighteval": [Sample(_json({
            "config_general": {"lighteval_sha": "0", "model_name": "org/m"},
            "results": {"leaderboard|arc:challenge|25": {"acc": 0.5, "acc_stderr": 0.01},
                        "all": {"acc": 0.5, "acc_stderr": 0.01}},
            "versions": {"leaderboard|arc:challenge|25": 0}, "config_tasks": {},
            "summary_tasks": {}, "summary_general": {}}), f"results_{stamp}.json")],
        "lm-eval": [Sample(_json(lm_eval), f"results_{stamp}.json")],
        "lm-eval-samples": [Sample(b"".join(json.dumps(
            {"doc_id": i, "doc": {"q": "?"}, "target": "A", "arguments": {"gen_args_0": {
                "arg_0": "Q?"}}, "resps": [["A"]], "filtered_resps": ["A"], "filter": "none",
             "metrics": ["acc"], "doc_hash": "h", "prompt_hash": "p", "target_hash": "t",
             "acc": float(i % 2)}).encode() + b"\n" for i in range(3)),
            f"samples_arc_easy_{stamp}.jsonl")],
        "bigcode": [Sample(_json({"humaneval": {"pass@1": 0.25},
                                  "config": {"model": "org/coder", "tasks": "humaneval",
                                             "n_samples": 1, "temperature": 0.2}}),
                           "evaluation_results.json")],
        "inspect": [Sample(eval_log.getvalue(), "2025-01-01T00-00-00_arc_abc.eval"),
                    Sample(_json(header), "2025-01-01T00-00-00_arc.json")],
        "zip": [Sample(zipped.getvalue(), "runs.zip")],
        "livecodebench": [Sample(_json([{
            "question_title": "P0", "question_content": "Solve", "platform": "leetcode",
            "question_id": "q0", "contest_id": "c", "contest_date": "2024-08-01T00:00:00",
            "starter_code": "", "difficulty": "easy", "output_list": ["x", "x"],
            "code_list": ["print(0)", "print(1)"], "graded_list": [True, False],
            "pass@1": 0.5, "metadata": ["{}", "{}"]}]),
            "output/org-m/Scenario.codegeneration_2_0.2_eval_all.json")],
        "alpaca-eval": [Sample(_json([{
            "instruction": "Name a colour.", "output_1": "Red.", "generator_1": "gpt4_turbo",
            "dataset": "helpful_base", "output_2": "Blue.", "generator_2": "org-m",
            "annotator": "weighted_alpaca_eval_gpt4_turbo", "preference": 1.75}]),
            "annotations.json")],
        "helm": [Sample(_json([
            {"name": {"name": "exact_match", "split": "test"}, "count": 1, "sum": 0.5,
             "sum_squared": 0.25, "min": 0.5, "max": 0.5, "mean": 0.5, "variance": 0.0,
             "stddev": 0.0}]),
            "mmlu:subject=philosophy,method=multiple_choice_joint,model=openai_gpt2/stats.json")],
        "evalplus": [Sample(_json({"CodeGen-16B": {
            "link": "https://example.org", "open-data": "NONE", "prompted": True, "size": 16,
            "pass@1": {"humaneval": 32.9, "humaneval+": 28.0, "mbpp": 54.2, "mbpp+": 45.5}}}),
            "results.json")],
        "evalperf": [Sample(_json({
            "date": "2024-10-19 16:31", "config": {"n_samples": 100, "temperature": 1.0,
                                                   "min_correct": 10, "max_profile": 20},
            "summary": {"dps": 50.0, "dps_norm": 60.0, "pass@1": 90.0},
            "eval": {"HumanEval/10": {"dps": 50.0, "dps_norm": 60.0, "pass@1": 90.0,
                                      "profiled": []}}}),
            "org--m_vllm_temp_1.0_evalperf_results.brief.json")],
        "swe-bench": [Sample(_json({"no_generation": [], "generated": ["a__b-1", "a__b-2"],
                                    "with_logs": ["a__b-1", "a__b-2"], "install_fail": [],
                                    "reset_failed": [], "no_apply": [],
                                    "applied": ["a__b-1", "a__b-2"], "test_errored": [],
                                    "test_timeout": [], "resolved": ["a__b-1"]}),
                              "evaluation/verified/20240601_agent_model/results/results.json")],
        "simple-evals": [Sample(_json({"score": 0.5, "score:std": 0.5, "chars": 120.0,
                                       "chars:std": 10.0}), "mmlu_gpt-4o.json")],
        "json-records": [Sample(_json([{"model": "a", "task": "t", "score": 0.5},
                                       {"model": "b", "task": "t", "score": 0.25}]),
                                "scores.json")],
        "jsonl": [Sample(b'{"model": "a", "task": "t", "value": 0.5}\n'
                         b'{"model": "b", "task": "t", "value": 0.25}\n', "tidy.jsonl")],
        "opencompass": [Sample(b"dataset,version,metric,mode,model-a,model-b\n"
                               b"demo_gsm8k,1d7fe4,accuracy,gen,56.25,32.81\n"
                               b"demo_math,393424,accuracy,gen,18.75,14.06\n",
                               "summary_20240711_101502.csv")],
        "csv": [Sample(b"model,task,value\na,t,0.5\nb,t,0.25\n", "tidy.csv")],
    }
    return {name: tuple(found) for name, found in samples.items()}
