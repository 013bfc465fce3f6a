"""HELM run folders: ``runs/<suite>/<run spec>/stats.json``, one folder per run.

``stats.json`` is a bare list of statistics, ``{"name": {"name", "split", ["sub_split"],
["perturbation"]}, "count", "sum", "mean", "stddev", ...}``: each is a value of one metric on one
split, on the plain inputs or under a perturbation. It does not say which model and scenario the
run was: HELM names each run's folder by its run spec
(``mmlu:subject=philosophy,method=multiple_choice_joint,model=openai_gpt2``), and that folder
name is where they come from (a copy that writes ``-`` for ``:`` is read the same). The run's
``run_spec.json`` says the same (its ``name``) and is not read: a reader reads one file, and a
stats.json whose folder is renamed is refused with what to do. The run's other files
(``run_spec.json``, ``scenario.json``, ``scenario_state.json``, ``per_instance_stats.json``)
hold no scores; a folder or zip search skips them with a note.

Dimensions: metric, split and perturbation (facets; the last two only when there are several),
model (y) by scenario (x: the run spec without its ``model=``). The first metric is the main
one of most runs (``f1_score`` for a QA scenario that has one, else ``exact_match`` ...), the
first split the one most runs have, the first perturbation ``none`` (the plain inputs). Values
are the stats' ``mean`` as written (fractions stay fractions); a stat with ``count`` 0 has none.
docs/readers/helm.md says more.

Standard errors: none. HELM's ``count`` and ``stddev`` are over the run's train trials (each a
draw of few-shot examples, whose mean over instances is one value), not over instances, so
``stddev / sqrt(count)`` is no standard error of the score. ``stddev`` is kept as ``sd`` where a
run has two trials or more (with one trial it is 0 by construction), without ``n``, so that none
is made from it.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from evalmaps.core.text import natural_key
from evalmaps.readers.base import (
    DEFAULT_MAX_BYTES,
    ImportFailed,
    Probe,
    Reading,
    number,
    text_of,
)

NAME = "helm"
DESCRIBES = "a HELM run's stats.json"
TOOL = "HELM run"
TOOL_FILES = "HELM runs"

PLAIN = "none"  # the perturbation label of the stats on the plain inputs
NO_SPLIT = "(no split)"

# which metric is a run's main one, in this order of preference: a scenario that computes one of
# the first (its own measure: math, instruction following, QA's F1, summaries' ROUGE-2,
# translation's BLEU-4) is scored by it; multiple choice by exact match
MAIN = ("math_equiv_chain_of_thought", "math_equiv", "ifeval_strict_accuracy",
        "omni_math_accuracy", "chain_of_thought_correctness", "final_number_exact_match",
        "exact_match_indicator", "f1_score", "rouge_2", "bleu_4", "exact_match",
        "quasi_exact_match", "prefix_exact_match", "quasi_prefix_exact_match", "rouge_l",
        "bleu_1", "f1_set_match", "exact_set_match", "iou_set_match")

# metrics whose values are fractions of instances or scores in [0, 1]; "@k" variants too
FRACTIONS = frozenset(MAIN) | {
    "rouge_1", "classification_macro_f1", "classification_micro_f1", "ece_1_bin", "ece_10_bin",
    "finish_reason_length", "finish_reason_stop", "finish_reason_endoftext",
    "finish_reason_unknown", "prompt_truncated", "max_prob", "toxic_frac",
    "expected_max_toxicity", "max_toxicity_probability"}

# metrics where lower is better (cost, time, calibration error, toxicity, perplexity)
LOWER = frozenset({
    "inference_runtime", "inference_denoised_runtime", "inference_idealized_runtime",
    "training_co2_cost", "training_energy_cost", "ece_1_bin", "ece_10_bin", "toxic_frac",
    "expected_max_toxicity", "max_toxicity_probability", "perplexity", "bits_per_byte",
    "prompt_truncated"})

SPLITS = ("test", "valid", "train")  # the splits' order; others after, as they come
KEY_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

NOTE = ("HELM's stats give no standard error: their count and stddev are over a run's train "
        "trials (draws of few-shot examples), not over instances. Where a run has two trials or "
        "more, that stddev is kept as sd; no standard error is made from it.")


def sniff(probe: Probe) -> bool:
    """A JSON list of HELM stats: each ``{"name": {"name": ...}, "count": ...}``."""
    if probe.head[:1] != b"[":
        return False
    doc = probe.doc
    return isinstance(doc, list) and bool(doc) and all(_is_stat(s) for s in doc)


def _is_stat(stat) -> bool:
    name = stat.get("name") if isinstance(stat, dict) else None
    return isinstance(name, dict) and isinstance(name.get("name"), str) and "count" in stat


def metric_range(label: str):
    """[0, 1] for the metrics that are fractions (``exact_match``, ``f1_score``, ...)."""
    return (0, 1) if base_metric(label) in FRACTIONS else None


def base_metric(label: str) -> str:
    """``exact_match@5`` -> ``exact_match``."""
    return label.split("@", 1)[0]


def parse_run_spec(text: str) -> tuple[str, dict[str, str]] | None:
    """A run spec, ``mmlu:subject=philosophy,model=openai_gpt2`` (or with ``-`` for ``:``, as a
    copy that cannot write ``:`` in a folder's name does) -> (scenario, its arguments in order);
    None when the text is not one."""
    eq = text.find("=")
    if eq < 0:
        return None
    head = text[:eq]
    cut = head.rfind(":")
    if cut < 0:
        cut = head.rfind("-")  # an argument's name holds no '-'
    if cut <= 0:
        return None
    scenario, args = text[:cut], {}
    last = None
    for part in text[cut + 1:].split(","):
        key, sep, value = part.partition("=")
        if sep and KEY_RE.fullmatch(key):
            args[key] = value
            last = key
        elif last is not None:  # a comma inside a value
            args[last] += "," + part
        else:
            return None
    return scenario, args


def _run(file: str) -> tuple[str, str]:
    """The (model, scenario) of the run whose stats.json this is, from its folder's name."""
    folder = PurePosixPath(file).parent.name
    if folder.lower().endswith(".zip"):  # a zip named by its run spec, stats.json at its top
        folder = folder[:-4]
    parsed = parse_run_spec(folder)
    if parsed is None or not parsed[1].get("model"):
        if not folder:
            raise ImportFailed("a HELM stats.json does not name its model and scenario: the name "
                               "of its run's folder does (the run spec). Import the run's "
                               "folder, or a zip of it, not the file alone.", file=file)
        raise ImportFailed(f"this HELM stats.json is in the folder '{folder}', which is not a "
                           f"run spec with a model (scenario:arguments,model=...). Import the "
                           f"run's folder as HELM named it, or rename the folder to the name "
                           f"its run_spec.json gives.", file=file)
    scenario, args = parsed
    model = args.pop("model")
    rest = ",".join(f"{k}={v}" for k, v in args.items())
    return model, f"{scenario}:{rest}" if rest else scenario


def _perturbation(value) -> str:
    """``{"name": "robustness", "robustness": true, "computed_on": "worst"}`` -> ``robustness
    (worst)``; other fields as ``key=value``."""
    if not isinstance(value, dict):
        return PLAIN
    extra = [f"{k}={v}" for k, v in value.items()
             if k not in ("name", "robustness", "fairness", "computed_on") and v is not None]
    label = " ".join([str(value.get("name", "perturbed")), *extra])
    on = value.get("computed_on")
    return f"{label} ({on})" if on else label


def read(probe: Probe, file: str, options=None, max_bytes: int | None = DEFAULT_MAX_BYTES) -> Reading:
    reading = Reading(NAME, file)
    model, scenario = _run(file)
    for stat in probe.doc:
        name = stat["name"]
        mean, count = stat.get("mean"), number(stat.get("count"))
        if not count or number(mean) is None:  # no instance: no value
            continue
        split = str(name.get("split") or NO_SPLIT)
        if name.get("sub_split"):
            split += f"/{name['sub_split']}"
        metric = name["name"]
        sd = stat.get("stddev")
        reading.records.append({
            "model": model, "scenario": scenario, "metric": metric, "split": split,
            "perturbation": _perturbation(name.get("perturbation")),
            "value": text_of(mean), "se": "",
            "sd": text_of(sd) if count >= 2 and number(sd) is not None and sd >= 0 else ""})
        if base_metric(metric) in LOWER:
            reading.lower[metric] = True
    if not reading.records:
        raise ImportFailed("this HELM stats.json holds no value (every stat has a count of 0). "
                           "Import the stats of a run that finished.", file=file)
    reading.notes.append(NOTE)
    return reading


def _main(records: list[dict]) -> str | None:
    """A run's main metric: the first of :data:`MAIN` it has on its plain inputs."""
    have = {r["metric"] for r in records if r["perturbation"] == PLAIN}
    return next((m for m in MAIN if m in have), None)


def layout(records: list[tuple[str, dict]], name: str, warnings: list[str]) -> list[str]:
    """Metric, split and perturbation as facets (split and perturbation when there are
    several), model by scenario."""
    facets = ["metric"] + [d for d in ("split", "perturbation")
                           if len({rec[d] for _, rec in records}) > 1]
    return [*facets, "model", "scenario"]


def order(dim: str, labels: list[str], records: list[dict]) -> list[str]:
    """The metrics: the main one of most runs first, then the other scores, then the rest
    (token counts, run time) as they come; the split most runs have first (then test, valid,
    train); the plain inputs before the perturbations; models and scenarios in natural order."""
    if dim == "metric":
        return sorted(labels, key=_metric_rank(labels, records))
    if dim == "split":  # the one most runs have first: the first panel shows the most runs
        runs: dict[str, set] = {}
        for rec in records:
            runs.setdefault(rec["split"], set()).add((rec["model"], rec["scenario"]))
        return sorted(labels, key=lambda s: (-len(runs.get(s, ())), SPLITS.index(s.split("/")[0])
                                             if s.split("/")[0] in SPLITS else len(SPLITS),
                                             natural_key(s)))
    if dim == "perturbation":
        return sorted(labels, key=lambda p: (p != PLAIN, natural_key(p)))
    return sorted(labels, key=natural_key)


def _metric_rank(labels: list[str], records: list[dict]):
    runs: dict[tuple[str, str], list[dict]] = {}
    for rec in records:
        runs.setdefault((rec["model"], rec["scenario"]), []).append(rec)
    mains: dict[str, int] = {}
    for recs in runs.values():
        main = _main(recs)
        if main is not None:
            mains[main] = mains.get(main, 0) + 1
    place: dict[str, int] = {}  # the rest as the files give them
    for rec in records:
        place.setdefault(rec["metric"], len(place))

    def rank(metric: str) -> tuple:
        if metric in mains:
            return (0, -mains[metric], MAIN.index(metric))
        base = base_metric(metric)
        if base in FRACTIONS:  # a score; "exact_match@5" after "exact_match"
            return (1, MAIN.index(base) if base in MAIN else len(MAIN), metric != base,
                    place[metric])
        return (2, place[metric])
    return rank
