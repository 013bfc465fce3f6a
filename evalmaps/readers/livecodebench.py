"""LiveCodeBench's graded code generations: ``<scenario>_<n>_<temperature>_eval_all.json``
(``output/<model>/Scenario.codegeneration_10_0.2_eval_all.json``), a JSON list with one object
per problem: ``question_id``, ``question_title``, ``question_content``, ``platform``,
``contest_id``, ``contest_date``, ``difficulty``, ``code_list`` (one program per sample),
``graded_list`` (whether each sample passed every test) and ``pass@1`` (the share passed).

Each sample is a per-item record (:mod:`evalmaps.readers.items`): the item its ``question_id``,
the score 1 when the sample passed, so that a problem's mean is its ``pass@1`` and a cell's value
the mean over its problems, as LiveCodeBench reports it. Dimensions: the model (a facet; from
the folder, as LiveCodeBench names its output folders), difficulty (y: easy, medium, hard) and
platform (x). The question's title and text are kept as the prompt, each sample's program as its
response.
"""

from __future__ import annotations

from pathlib import PurePosixPath

import pandas as pd

from evalmaps.readers.base import DEFAULT_MAX_BYTES, ImportFailed, Probe, Reading, short

NAME = "livecodebench"
DESCRIBES = "LiveCodeBench graded generations (*_eval_all.json)"
TOOL = "LiveCodeBench results"
TOOL_FILES = "LiveCodeBench results files"
DIFFICULTIES = ("easy", "medium", "hard")


def sniff(probe: Probe) -> bool:
    doc = probe.doc
    return isinstance(doc, list) and bool(doc) and isinstance(doc[0], dict) \
        and "question_id" in doc[0] and isinstance(doc[0].get("graded_list"), list)


def read(probe: Probe, file: str, options=None, max_bytes: int | None = DEFAULT_MAX_BYTES) -> Reading:
    reading = Reading(NAME, file)
    path = PurePosixPath(file)
    model = path.parent.name
    if not model:
        model = path.stem.removesuffix("_eval_all")
        reading.warnings.append(f"{short(file)} is in no folder to name its model (LiveCodeBench "
                                f"writes output/<model>/...): it is named after the file, "
                                f"'{model}'.")
    rows = []
    for i, problem in enumerate(probe.doc, start=1):
        if not isinstance(problem, dict) or problem.get("question_id") is None \
                or not isinstance(problem.get("graded_list"), list):
            raise ImportFailed("this problem has no question_id or no graded_list. Import the "
                               "*_eval_all.json LiveCodeBench wrote.", file=file, row=i)
        codes = problem.get("code_list") if isinstance(problem.get("code_list"), list) else []
        title, content = problem.get("question_title"), problem.get("question_content")
        prompt = "\n\n".join(str(t) for t in (title, content) if t) or None
        for sample, passed in enumerate(problem["graded_list"]):
            rows.append({"model": model,
                         "difficulty": str(problem.get("difficulty") or "unknown"),
                         "platform": str(problem.get("platform") or "unknown"),
                         "item": str(problem["question_id"]), "sample": sample,
                         "score": 1.0 if passed is True or passed == 1 else 0.0,
                         "prompt": prompt,
                         "response": str(codes[sample]) if sample < len(codes) else None})
    if not rows:
        reading.warnings.append(f"{short(file)} holds no graded samples; it adds nothing.")
        return reading
    reading.items = pd.DataFrame(rows)
    reading.metrics["score"] = {"name": "pass@1", "range": [0, 1]}
    return reading


def layout(records: list[tuple[str, dict]], name: str, warnings: list[str]) -> list[str]:
    return ["model", "difficulty", "platform"]


def order(dim: str, labels: list[str], records: list[dict]) -> list[str]:
    """Difficulties easy, medium, hard (others after them); other dims as given."""
    if dim != "difficulty":
        return labels
    rank = {d: i for i, d in enumerate(DIFFICULTIES)}
    return sorted(labels, key=lambda d: (rank.get(d.lower(), len(rank)), d))


def metric_range(label: str):
    return (0, 1)
