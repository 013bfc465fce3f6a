"""AlpacaEval's judgements: ``results/<model>/<annotator>/annotations.json``, a JSON list with
one object per instruction: ``instruction``, ``dataset`` (the instruction's source set:
helpful_base, koala, oasst, selfinstruct, vicuna), ``generator_1`` (the reference model) and
``output_1``, ``generator_2`` (the evaluated model) and ``output_2``, ``annotator`` and the
judge's ``preference`` in [1, 2] (2: the evaluated model's output preferred; a weighted judge
gives values between, a draw 1.5), with the judge's price, time and raw completion.

Each judgement is a per-item record (:mod:`evalmaps.readers.items`): the item its
``instruction``, the score ``preference - 1`` (exact in floating point: both lie in [1, 2]), so
that a model's mean over its instructions is its AlpacaEval win rate (a fraction; the leaderboard
writes it times 100) and a cell's value the win rate on its instructions. Dimensions: the model
(``generator_2``, a facet), the instruction's ``dataset`` (y) and the ``annotator`` (x). The
instruction is kept as the prompt, the reference model's output as the target and the evaluated
model's as the response. A judgement without a preference (the judge gave none) is left out,
with a warning.
"""

from __future__ import annotations

import pandas as pd

from evalmaps.readers.base import DEFAULT_MAX_BYTES, ImportFailed, Probe, Reading, number, short

NAME = "alpaca-eval"
DESCRIBES = "AlpacaEval judgements (annotations.json)"
TOOL = "AlpacaEval judgements"
TOOL_FILES = "AlpacaEval annotations files"
KEYS = ("instruction", "generator_2", "preference")


def sniff(probe: Probe) -> bool:
    doc = probe.doc
    return isinstance(doc, list) and bool(doc) and isinstance(doc[0], dict) \
        and all(k in doc[0] for k in KEYS) and "output_2" in doc[0]


def read(probe: Probe, file: str, options=None, max_bytes: int | None = DEFAULT_MAX_BYTES) -> Reading:
    reading = Reading(NAME, file)
    rows, seen, unjudged = [], {}, 0
    for i, judged in enumerate(probe.doc, start=1):
        if not isinstance(judged, dict) or not isinstance(judged.get("instruction"), str) \
                or not str(judged.get("generator_2") or "").strip():
            raise ImportFailed("this judgement has no instruction or no generator_2 (the model "
                               "judged). Import the annotations.json AlpacaEval wrote.",
                               file=file, row=i)
        preference = judged.get("preference")
        if preference is None or (isinstance(preference, float) and preference != preference):
            unjudged += 1
            continue
        value = number(preference)
        if value is None or not 1 <= value <= 2:
            raise ImportFailed(f"the preference {str(preference)[:40]!r} is not a number from 1 "
                               f"to 2 (1: the reference output preferred, 2: the model's). "
                               f"Import the annotations.json AlpacaEval wrote.", file=file, row=i)
        model = str(judged["generator_2"]).strip()
        dataset = str(judged.get("dataset") or "unknown").strip()
        annotator = str(judged.get("annotator") or "unknown").strip()
        key = (model, dataset, annotator, judged["instruction"])
        if key in seen:
            raise ImportFailed(f"the instruction of row {seen[key]} is judged again, for the same "
                               f"model by the same annotator. Keep one judgement of each "
                               f"instruction.", file=file, row=i)
        seen[key] = i
        rows.append({"model": model, "dataset": dataset, "annotator": annotator,
                     "item": judged["instruction"], "sample": 0, "score": value - 1.0,
                     "prompt": judged["instruction"],
                     "target": _text(judged.get("output_1")),
                     "response": _text(judged.get("output_2"))})
    if unjudged:
        reading.warnings.append(f"{short(file)}: {unjudged} judgement(s) have no preference (the "
                                f"judge gave none); they are left out, as from the win rate.")
    if not rows:
        reading.warnings.append(f"{short(file)} holds no judgements; it adds nothing.")
        return reading
    reading.items = pd.DataFrame(rows)
    reading.metrics["score"] = {"name": "win rate", "range": [0, 1]}
    return reading


def _text(value) -> str | None:
    return value if isinstance(value, str) and value else None


def layout(records: list[tuple[str, dict]], name: str, warnings: list[str]) -> list[str]:
    return ["model", "dataset", "annotator"]


def metric_range(label: str):
    return (0, 1)
